package upjetv1_test

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
)

// snippets returns the regions of src between "// snippet:<name> begin"
// and "// snippet:<name> end", without the marker lines, de-indented by one
// tab, keyed by name.
func snippets(t *testing.T, src string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var name string
	var body []string
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "// snippet:") && strings.HasSuffix(trimmed, " begin"):
			name = strings.TrimSuffix(strings.TrimPrefix(trimmed, "// snippet:"), " begin")
			body = nil
		case strings.HasPrefix(trimmed, "// snippet:") && strings.HasSuffix(trimmed, " end"):
			out[name] = strings.Join(body, "\n")
			name = ""
		case name != "":
			body = append(body, strings.TrimPrefix(line, "\t"))
		}
	}
	return out
}

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
	got := snippets(t, string(src))
	for _, name := range []string{"main", "controller"} {
		s, ok := got[name]
		if !ok || strings.TrimSpace(s) == "" {
			t.Errorf("example_test.go has no snippet %q", name)
			continue
		}
		if !strings.Contains(string(doc), "```go\n"+s+"\n```") {
			t.Errorf("docs/integrating.md does not show snippet %q of example_test.go verbatim in a go code block; it should contain:\n%s", name, s)
		}
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
	ct := reflect.TypeFor[upjetv1.Config]()
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
