package gcp

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocShowsExample: the usage in doc.go is the body of listZones in
// example_test.go, which compiles, so the documentation cannot drift
// from the API.
func TestDocShowsExample(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	// The indented block of doc.go's Usage section, without "//\t".
	var snippet []string
	in := false
	for _, l := range strings.Split(string(doc), "\n") {
		switch {
		case l == "// # Usage":
			in = true
		case in && strings.HasPrefix(l, "//\t"):
			snippet = append(snippet, strings.TrimPrefix(l, "//\t"))
		case in && len(snippet) > 0:
			in = false
		}
	}
	m := regexp.MustCompile(`(?s)\nfunc listZones\([^\n]*\{\n(.*?)\n\}\n`).FindSubmatch(ex)
	if m == nil {
		t.Fatal("example_test.go has no func listZones")
	}
	var body []string
	for _, l := range strings.Split(string(m[1]), "\n") {
		body = append(body, strings.TrimPrefix(l, "\t"))
	}
	if diff := cmp.Diff(body, snippet); diff != "" {
		t.Errorf("doc.go's usage differs from listZones in example_test.go (-example +doc):\n%s", diff)
	}
}
