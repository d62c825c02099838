package docsnippet

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	src := "func f() {\n\t// snippet:a begin\n\tx := 1\n\t_ = x\n\t// snippet:a end\n}\n"
	if diff := cmp.Diff(map[string]string{"a": "x := 1\n_ = x"}, Extract(src)); diff != "" {
		t.Errorf("Extract (-want +got):\n%s", diff)
	}
	cases := map[string]struct {
		doc   string
		names []string
		want  int
	}{
		"Shown":       {doc: "text\n```go\nx := 1\n_ = x\n```\n", names: []string{"a"}, want: 0},
		"NotVerbatim": {doc: "```go\nx := 2\n_ = x\n```\n", names: []string{"a"}, want: 1},
		"NotInGo":     {doc: "```\nx := 1\n_ = x\n```\n", names: []string{"a"}, want: 1},
		"NoSnippet":   {doc: "```go\nx := 1\n_ = x\n```\n", names: []string{"a", "b"}, want: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Check(src, tc.doc, tc.names...); len(got) != tc.want {
				t.Errorf("Check: %d errors %v, want %d", len(got), got, tc.want)
			}
		})
	}
}
