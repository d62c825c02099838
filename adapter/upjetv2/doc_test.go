package upjetv2_test

import (
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/intentjournal/intentjournal/internal/docsnippet"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
)

// TestIntegratingDocShowsExample checks that docs/integrating.md shows the
// snippets of example_test.go verbatim, so the lines a provider author
// copies are lines that compile against this package.
func TestIntegratingDocShowsExample(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatalf("cannot read the example: %v", err)
	}
	doc, err := os.ReadFile("../../docs/integrating.md")
	if err != nil {
		t.Fatalf("cannot read the integration guide: %v", err)
	}
	for _, err := range docsnippet.Check(string(src), string(doc), "main", "controller", "inventory", "generator", "controllers", "configure") {
		t.Errorf("docs/integrating.md and example_test.go: %v", err)
	}
	quick, err := os.ReadFile("../../docs/quickstart-provider.md")
	if err != nil {
		t.Fatalf("cannot read the provider quick start: %v", err)
	}
	for _, err := range docsnippet.Check(string(src), string(quick), "main", "generator", "controllers", "configure") {
		t.Errorf("docs/quickstart-provider.md and example_test.go: %v", err)
	}
}

// TestIntegratingDocCoversConfig checks that docs/integrating.md names every
// exported field of Config, so a field added to the code cannot go
// undocumented.
func TestIntegratingDocCoversConfig(t *testing.T) {
	doc, err := os.ReadFile("../../docs/integrating.md")
	if err != nil {
		t.Fatalf("cannot read the integration guide: %v", err)
	}
	ct := reflect.TypeFor[upjetv2.Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if !f.IsExported() {
			continue
		}
		// In prose (`Name` or `Config.Name`) or set in a Go snippet (Name:).
		named := regexp.MustCompile("`(Config\\.)?" + f.Name + "`|\\s" + f.Name + ":")
		if !named.Match(doc) {
			t.Errorf("docs/integrating.md does not name Config.%s", f.Name)
		}
	}
}
