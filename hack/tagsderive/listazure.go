package main

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
)

// azureIDResolver finds the resource ID structs a Create builds its ID
// with, in the provider's own packages or the vendored go-azure-sdk and
// go-azure-helpers.
type azureIDResolver struct {
	t      *tree
	vendor string
	mod    string
	dirs   map[string]*pkg
}

var reNewID = regexp.MustCompile(`^New[A-Za-z0-9]*ID$`)

// pkgFor returns the parsed package of an import path, or nil.
func (a *azureIDResolver) pkgFor(path string) (*pkg, string) {
	var dir string
	switch {
	case strings.HasPrefix(path, a.mod+"/"):
		dir = filepath.Join(a.t.root, strings.TrimPrefix(path, a.mod+"/"))
		if p := a.t.pkgs[dir]; p != nil {
			return p, a.t.root
		}
		return nil, ""
	case a.vendor != "":
		dir = filepath.Join(a.vendor, path)
	default:
		return nil, ""
	}
	if p, ok := a.dirs[dir]; ok {
		return p, a.vendor
	}
	p := parseDir(a.t.fset, dir)
	a.dirs[dir] = p
	return p, a.vendor
}

// armType reads the ARM type of the ID struct a constructor returns:
// from its Segments() (resourceids.ResourceProviderSegment followed by
// StaticSegments) or from the format string of its ID() method.
func (a *azureIDResolver) armType(p *pkg, ctor string) (string, token.Pos) {
	fd := p.funcs[ctor]
	if fd == nil || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
		return "", token.NoPos
	}
	typ := recvName(fd.Type.Results.List[0].Type)
	if seg := p.method(typ, "Segments"); seg != nil && seg.Body != nil {
		var parts []string
		var pos token.Pos
		ok := true
		ast.Inspect(seg.Body, func(n ast.Node) bool {
			c, isCall := n.(*ast.CallExpr)
			if !isCall {
				return true
			}
			name := calleeName(c)
			switch name {
			case "ResourceProviderSegment":
				v, lit := "", false
				if len(c.Args) >= 2 {
					v, lit = strLit(c.Args[1])
				}
				if !lit {
					ok = false
				}
				parts, pos = []string{v}, c.Pos() // the last provider wins (extension resources)
			case "StaticSegment":
				if parts != nil && len(c.Args) >= 2 {
					v, lit := strLit(c.Args[1])
					if !lit {
						ok = false
					}
					parts = append(parts, v)
				}
			case "ScopeSegment":
				if parts != nil {
					ok = false // a scope after the provider: not a plain ARM type
				}
			}
			return false
		})
		if ok && len(parts) >= 2 {
			return strings.ToLower(strings.Join(parts, "/")), pos
		}
		return "", token.NoPos
	}
	if idm := p.method(typ, "ID"); idm != nil && idm.Body != nil {
		var out string
		var pos token.Pos
		ast.Inspect(idm.Body, func(n ast.Node) bool {
			bl, ok := n.(*ast.BasicLit)
			if !ok || out != "" {
				return true
			}
			s, ok := strLit(bl)
			if !ok {
				return true
			}
			if i := strings.LastIndex(s, "/providers/"); i >= 0 {
				if typ := armTypeFromFormat(s[i+len("/providers/"):]); typ != "" {
					out, pos = typ, bl.Pos()
				}
			}
			return true
		})
		return out, pos
	}
	return "", token.NoPos
}

// armTypeFromFormat reads "Microsoft.Web/sites/%s/slots/%s" as
// microsoft.web/sites/slots; "" unless it alternates type and %s.
func armTypeFromFormat(s string) string {
	segs := strings.Split(s, "/")
	if len(segs) < 3 || len(segs)%2 != 1 || strings.Contains(segs[0], "%") {
		return ""
	}
	parts := []string{segs[0]}
	for i := 1; i < len(segs); i += 2 {
		if strings.Contains(segs[i], "%") || segs[i+1] != "%s" {
			return ""
		}
		parts = append(parts, segs[i])
	}
	return strings.ToLower(strings.Join(parts, "/"))
}

// listAzurerm derives the listability of one azurerm resource type.
func listAzurerm(t *tree, idx map[string]*azurermResource, res *azureIDResolver, name string) listRow {
	row := listRow{IndexType: Unknown, Global: NotApp, IDForm: Unknown, TagsOwn: Unknown}
	r := idx[name]
	if r == nil {
		row.Evidence = append(row.Evidence, "resource not registered in this source")
		return row
	}
	if r.body == nil {
		row.Evidence = append(row.Evidence, r.missing+" ("+t.pos(r.regPos)+")")
		return row
	}
	f := t.fileOf(r.pkg, r.createPos)
	// d.SetId(id.ID()) / metadata.SetID(id): the ID the resource keeps.
	var idVar string
	var setPos token.Pos
	var setWhat string
	ast.Inspect(r.body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || idVar != "" || len(c.Args) != 1 {
			return true
		}
		switch calleeName(c) {
		case "SetId":
			if ic, ok := c.Args[0].(*ast.CallExpr); ok && calleeName(ic) == "ID" && len(ic.Args) == 0 {
				if sel, ok := ic.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						idVar, setPos, setWhat = x.Name, c.Pos(), "d.SetId("+x.Name+".ID())"
					}
				}
			} else if x, ok := c.Args[0].(*ast.Ident); ok {
				// resourceId := parse.NewXxxID(...).ID(); d.SetId(resourceId)
				idVar, setPos, setWhat = x.Name, c.Pos(), "d.SetId("+x.Name+")"
			}
		case "SetID":
			if x, ok := c.Args[0].(*ast.Ident); ok {
				idVar, setPos, setWhat = x.Name, c.Pos(), "metadata.SetID("+x.Name+")"
			}
		}
		return true
	})
	// idVar := pkg.NewXxxID(...) in Create.
	var ctor *ast.CallExpr
	if idVar != "" {
		for _, rhs := range assignedTo(r.body, idVar) {
			c, ok := rhs.(*ast.CallExpr)
			if ok && calleeName(c) == "ID" && len(c.Args) == 0 {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					c, _ = sel.X.(*ast.CallExpr)
				}
			}
			if c != nil && reNewID.MatchString(calleeName(c)) && ctor == nil {
				ctor = c
			}
		}
	}
	if ctor != nil && f != nil {
		var p *pkg
		root := t.root
		switch fn := ctor.Fun.(type) {
		case *ast.Ident:
			p = r.pkg
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok {
				p, root = res.pkgFor(importPath(f, x.Name))
			}
		}
		if p != nil {
			if typ, pos := res.armType(p, calleeName(ctor)); typ != "" {
				row.IndexType = typ
				where := relPos(t.fset, root, pos)
				if root != t.root {
					where = "vendor/" + where
				}
				row.ev("index_type", t.pos(ctor.Pos()), calleeName(ctor)+" builds the ID set at "+t.pos(setPos)+"; its ARM type is at "+where)
				row.IDForm = IDArm
				row.ev("id_form", t.pos(setPos), setWhat+", an ARM resource ID")
			}
		}
		if row.IndexType == Unknown {
			row.Evidence = append(row.Evidence, "index_type: "+t.pos(ctor.Pos())+" "+calleeName(ctor)+" not resolved to an ARM type")
		}
	} else if idVar == "" {
		row.Evidence = append(row.Evidence, "index_type: no d.SetId(id.ID()) or metadata.SetID(id) in Create "+t.pos(r.createPos))
	} else {
		row.Evidence = append(row.Evidence, "index_type: "+t.pos(setPos)+" "+idVar+" not built by a New...ID constructor in Create")
	}
	// tags: the configured tags in the create model's Tags field.
	sig := &signals{}
	scanFunc(r.pkg, r.body, azurermRules(), sig, 1, map[string]bool{r.name: true})
	if len(sig.req) > 0 && strings.Contains(sig.req[0].what, "Tags") {
		row.TagsOwn = Yes
		row.ev("tags_own", t.pos(sig.req[0].pos), sig.req[0].what)
	} else if len(sig.after) > 0 {
		row.TagsOwn = Yes
		row.ev("tags_own", t.pos(sig.after[0].pos), sig.after[0].what)
	}
	return row
}
