package recovery

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/recovery/report"
)

// TestReasonsAgree checks that one list of reasons holds everywhere: every
// Reason constant of this package is in Reasons, the report schema's
// reason.examples are exactly Reasons, docs/report.md names each, and no
// Decision or Entry in this package's code sets its reason from a string
// literal instead of a constant.
func TestReasonsAgree(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{} // name -> value
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if !strings.HasPrefix(id.Name, "Reason") || i >= len(n.Values) {
						continue
					}
					if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[id.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Reason" {
					if lit, ok := n.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						t.Errorf("%s: reason %s is a literal; declare a Reason constant and list it in Reasons", fset.Position(lit.Pos()), lit.Value)
					}
				}
			}
			return true
		})
	}
	var values []string
	for _, v := range consts {
		values = append(values, v)
	}
	slices.Sort(values)
	listed := slices.Sorted(slices.Values(Reasons))
	if diff := cmp.Diff(values, listed); diff != "" {
		t.Errorf("the Reason constants (-) and Reasons (+) differ:\n%s", diff)
	}

	var schema struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Examples []string `json:"examples"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(report.JSONSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	var inSchema []string
	for _, d := range schema.Defs {
		if p, ok := d.Properties["reason"]; ok {
			inSchema = append(inSchema, p.Examples...)
		}
	}
	slices.Sort(inSchema)
	if diff := cmp.Diff(listed, inSchema); diff != "" {
		t.Errorf("Reasons (-) and the report schema's reason.examples (+) differ:\n%s", diff)
	}

	doc, err := os.ReadFile(filepath.Join("..", "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Reasons {
		if !strings.Contains(string(doc), "`"+r+"`") {
			t.Errorf("docs/report.md does not name the reason `%s`", r)
		}
	}
}
