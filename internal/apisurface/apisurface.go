// Package apisurface lists the exported API of a Go package from its
// source: what a caller can name. It reads files with go/parser and
// type-checks nothing, so it works on a package of any module and any
// crossplane line without building it.
package apisurface

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Decl is one exported identifier of a package.
type Decl struct {
	// Kind is func, method, type, var or const.
	Kind string
	// Name is the identifier; a method's is Receiver.Method, a struct
	// field's Type.Field.
	Name string
	// Option reports whether a func returns a type whose name ends in
	// Option: a functional option.
	Option bool
}

func (d Decl) String() string { return d.Kind + " " + d.Name }

// Surface is a package's exported API, sorted by name.
type Surface struct {
	Decls []Decl
	// Fields counts the exported fields of each exported struct type.
	Fields map[string]int
}

// Count returns how many Decls are of kind k; k "" counts them all but
// methods.
func (s Surface) Count(k string) int {
	n := 0
	for _, d := range s.Decls {
		if k == "" && d.Kind != "method" || d.Kind == k {
			n++
		}
	}
	return n
}

// Options returns how many funcs are functional options.
func (s Surface) Options() int {
	n := 0
	for _, d := range s.Decls {
		if d.Option {
			n++
		}
	}
	return n
}

// Names returns "kind name" of every Decl.
func (s Surface) Names() []string {
	out := make([]string, 0, len(s.Decls))
	for _, d := range s.Decls {
		out = append(out, d.String())
	}
	return out
}

// Read parses the non-test .go files of dir and returns their exported
// API. Methods count when their receiver type is exported.
func Read(dir string) (Surface, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Surface{}, fmt.Errorf("cannot read package %s: %w", dir, err)
	}
	s := Surface{Fields: map[string]int{}}
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return Surface{}, fmt.Errorf("cannot parse %s: %w", n, err)
		}
		s.add(f)
	}
	slices.SortFunc(s.Decls, func(a, b Decl) int { return strings.Compare(a.String(), b.String()) })
	return s, nil
}

func (s *Surface) add(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				s.Decls = append(s.Decls, Decl{Kind: "func", Name: d.Name.Name, Option: returnsOption(d.Type)})
				continue
			}
			if r := receiver(d.Recv.List[0].Type); ast.IsExported(r) {
				s.Decls = append(s.Decls, Decl{Kind: "method", Name: r + "." + d.Name.Name})
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if !sp.Name.IsExported() {
						continue
					}
					s.Decls = append(s.Decls, Decl{Kind: "type", Name: sp.Name.Name})
					if st, ok := sp.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								if n.IsExported() {
									s.Fields[sp.Name.Name]++
								}
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.IsExported() {
							s.Decls = append(s.Decls, Decl{Kind: d.Tok.String(), Name: n.Name})
						}
					}
				}
			}
		}
	}
}

// receiver returns the type name of a method receiver expression.
func receiver(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiver(e.X)
	case *ast.IndexExpr:
		return receiver(e.X)
	case *ast.IndexListExpr:
		return receiver(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// returnsOption reports whether a func returns one result whose type
// name ends in Option.
func returnsOption(t *ast.FuncType) bool {
	if t.Results == nil || len(t.Results.List) != 1 {
		return false
	}
	var name string
	switch r := t.Results.List[0].Type.(type) {
	case *ast.Ident:
		name = r.Name
	case *ast.SelectorExpr:
		name = r.Sel.Name
	}
	return strings.HasSuffix(name, "Option")
}
