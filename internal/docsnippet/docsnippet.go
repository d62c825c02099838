// Package docsnippet keeps the Go code a document shows identical to code
// that compiles: a test marks regions of a compiled file with
// "// snippet:<name> begin" and "// snippet:<name> end" lines, and checks
// that the document shows each region verbatim in a go code block.
package docsnippet

import (
	"fmt"
	"strings"
)

// Extract returns the regions of src between "// snippet:<name> begin" and
// "// snippet:<name> end", without the marker lines, de-indented by one
// tab, keyed by name.
func Extract(src string) map[string]string {
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

// Check returns one error per name whose snippet src lacks, or doc does not
// show verbatim in a go code block.
func Check(src, doc string, names ...string) []error {
	got := Extract(src)
	var errs []error
	for _, name := range names {
		s, ok := got[name]
		if !ok || strings.TrimSpace(s) == "" {
			errs = append(errs, fmt.Errorf("no snippet %q", name))
			continue
		}
		if !strings.Contains(doc, "```go\n"+s+"\n```") {
			errs = append(errs, fmt.Errorf("the document does not show snippet %q verbatim in a go code block; it should contain:\n%s", name, s))
		}
	}
	return errs
}
