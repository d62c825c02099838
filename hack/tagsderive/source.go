package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// pkg is one Go package directory of a provider's source.
type pkg struct {
	dir   string
	files []*ast.File
	// funcs are the package-level functions by name.
	funcs map[string]*ast.FuncDecl
	// methods are the methods by "Type.Name" (pointer receivers stripped).
	methods map[string]*ast.FuncDecl
	// embeds are the anonymous struct fields of each struct type.
	embeds map[string][]string
}

// tree is a parsed provider source tree.
type tree struct {
	root string
	fset *token.FileSet
	pkgs map[string]*pkg // by directory
	// order is the directories, sorted, for deterministic walks.
	order []string
}

// parseTree parses every non-test .go file under root/sub.
func parseTree(root, sub string, comments bool) (*tree, error) {
	t := &tree{root: root, fset: token.NewFileSet(), pkgs: map[string]*pkg{}}
	mode := parser.SkipObjectResolution
	if comments {
		mode |= parser.ParseComments
	}
	start := filepath.Join(root, sub)
	err := filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != start && (name == "testdata" || name == "test-fixtures" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(t.fset, path, src, mode)
		if err != nil {
			// A file that does not parse is skipped; its resources come out unknown.
			return nil
		}
		dir := filepath.Dir(path)
		p := t.pkgs[dir]
		if p == nil {
			p = &pkg{dir: dir, funcs: map[string]*ast.FuncDecl{}, methods: map[string]*ast.FuncDecl{}, embeds: map[string][]string{}}
			t.pkgs[dir] = p
		}
		p.files = append(p.files, f)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					p.funcs[decl.Name.Name] = decl
				} else if len(decl.Recv.List) == 1 {
					p.methods[recvName(decl.Recv.List[0].Type)+"."+decl.Name.Name] = decl
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fld := range st.Fields.List {
						if len(fld.Names) == 0 {
							p.embeds[ts.Name.Name] = append(p.embeds[ts.Name.Name], recvName(fld.Type))
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for dir := range t.pkgs {
		t.order = append(t.order, dir)
	}
	sort.Strings(t.order)
	return t, nil
}

// recvName is the type name of a receiver or embedded field expression.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	}
	return ""
}

// method finds Type.Name, looking through embedded struct fields.
func (p *pkg) method(typ, name string) *ast.FuncDecl {
	seen := map[string]bool{}
	var find func(string) *ast.FuncDecl
	find = func(typ string) *ast.FuncDecl {
		if seen[typ] {
			return nil
		}
		seen[typ] = true
		if fd := p.methods[typ+"."+name]; fd != nil {
			return fd
		}
		for _, e := range p.embeds[typ] {
			if fd := find(e); fd != nil {
				return fd
			}
		}
		return nil
	}
	return find(typ)
}

// pos renders a position as relative/file.go:LINE.
func (t *tree) pos(p token.Pos) string {
	position := t.fset.Position(p)
	rel, err := filepath.Rel(t.root, position.Filename)
	if err != nil {
		rel = position.Filename
	}
	return filepath.ToSlash(rel) + ":" + itoa(position.Line)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// strLit returns the value of a string literal expression.
func strLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s := bl.Value
	if len(s) >= 2 {
		return s[1 : len(s)-1], true
	}
	return "", false
}

// calleeName is the name of the called function: f(...) or x.f(...).
func calleeName(c *ast.CallExpr) string {
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		return fn.Sel.Name
	case *ast.IndexExpr:
		if id, ok := fn.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// walkStack walks n calling f with each node and its ancestors (outermost first).
func walkStack(n ast.Node, f func(n ast.Node, stack []ast.Node)) {
	var stack []ast.Node
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		f(n, stack)
		stack = append(stack, n)
		return true
	})
}
