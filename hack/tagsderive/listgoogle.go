package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
	"unicode"
)

// googleProduct is the registry.Product{Name, BaseUrl} of a service package.
type googleProduct struct {
	name, baseURL string
	pos           token.Pos
}

func productOf(p *pkg) (googleProduct, bool) {
	var out googleProduct
	for _, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok || recvName(cl.Type) != "Product" || out.baseURL != "" {
				return true
			}
			for _, e := range cl.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				k, _ := kv.Key.(*ast.Ident)
				if k == nil {
					continue
				}
				switch k.Name {
				case "Name":
					out.name, _ = strLit(kv.Value)
				case "BaseUrl":
					out.baseURL, _ = strLit(kv.Value)
					out.pos = kv.Pos()
				}
			}
			return false
		})
	}
	return out, out.baseURL != "" && out.name != ""
}

var (
	reBasePath  = regexp.MustCompile(`^\{\{([A-Za-z0-9]+)BasePath\}\}(.*)$`)
	reHost      = regexp.MustCompile(`^https://(?:\{\{[a-z]+\}\}-)?([a-z0-9]+\.googleapis\.com)/`)
	reGoogleCol = regexp.MustCompile(`^[a-z][A-Za-z]*s$`)
)

// assetKind is the singular, capitalised form of a collection name
// (networks -> Network, alertPolicies -> AlertPolicy); "" when the plural
// is not a plain -s or -ies one.
func assetKind(col string) string {
	if !reGoogleCol.MatchString(col) || strings.HasSuffix(col, "ss") {
		return ""
	}
	var s string
	switch {
	case strings.HasSuffix(col, "ies"):
		s = strings.TrimSuffix(col, "ies") + "y"
	case strings.HasSuffix(col, "sses") || strings.HasSuffix(col, "xes") || strings.HasSuffix(col, "ches") || strings.HasSuffix(col, "shes"):
		return ""
	default:
		s = strings.TrimSuffix(col, "s")
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// collectionOf is the last literal collection of a create URL path
// ("projects/{{project}}/global/networks" -> networks;
// "projects/{{project}}/alertPolicies" -> alertPolicies; with a trailing
// "/{{name}}" or "?xId={{x}}" the collection before it).
func collectionOf(path string) string {
	if i := strings.Index(path, "?"); i >= 0 {
		path = path[:i]
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	// drop one trailing variable segment (PUT to .../{{name}})
	if n := len(segs); n > 1 && strings.HasPrefix(segs[n-1], "{{") && strings.HasSuffix(segs[n-1], "}}") && !strings.Contains(segs[n-1][2:], "{{") {
		segs = segs[:n-1]
	}
	last := segs[len(segs)-1]
	if strings.ContainsAny(last, "{}:") {
		return ""
	}
	return last
}

// listGoogle derives the listability of one terraform-provider-google resource type.
func listGoogle(t *tree, idx map[string]*googleResource, name, field string) listRow {
	row := listRow{IndexType: Unknown, Global: NotApp, IDForm: Unknown, TagsOwn: Unknown}
	r := idx[name]
	if r == nil {
		row.Evidence = append(row.Evidence, "resource not registered in this source")
		return row
	}
	if r.create == nil {
		row.Evidence = append(row.Evidence, r.missing+" ("+t.pos(r.regPos)+")")
		return row
	}
	body := r.create.Body
	// The create URL: the first tpgresource.ReplaceVars(d, config, "{{XBasePath}}...").
	var createURL, shown string
	var urlPos token.Pos
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || createURL != "" || !isReplaceVars(c) {
			return true
		}
		if s, ok := strLit(c.Args[2]); ok && reBasePath.MatchString(s) {
			createURL, shown, urlPos = s, s, c.Pos()
		}
		// transport_tpg.BaseUrl(Product, config)+"v3/projects/{{project}}/alertPolicies"
		if b, ok := c.Args[2].(*ast.BinaryExpr); ok && b.Op == token.ADD {
			if bc, ok := b.X.(*ast.CallExpr); ok && calleeName(bc) == "BaseUrl" && len(bc.Args) == 2 {
				if id, ok := bc.Args[0].(*ast.Ident); ok && id.Name == "Product" {
					if s, ok := strLit(b.Y); ok {
						createURL, shown, urlPos = "{{ProductBasePath}}"+s, `BaseUrl(Product, config)+"`+s+`"`, c.Pos()
					}
				}
			}
		}
		return true
	})
	if createURL != "" {
		m := reBasePath.FindStringSubmatch(createURL)
		prod, ok := productOf(r.pkg)
		if m[1] == "Product" {
			m[1] = strings.ReplaceAll(prod.name, "_", "")
		}
		host := ""
		if ok && strings.EqualFold(m[1], strings.ReplaceAll(prod.name, "_", "")) {
			if hm := reHost.FindStringSubmatch(prod.baseURL); hm != nil {
				host = hm[1]
			}
		}
		kind := assetKind(collectionOf(m[2]))
		if host != "" && kind != "" {
			row.IndexType = host + "/" + kind
			row.ev("index_type", t.pos(urlPos), "create URL "+shown+", the product's BaseUrl "+prod.baseURL+" at "+t.pos(prod.pos))
		} else {
			row.Evidence = append(row.Evidence, "index_type: "+t.pos(urlPos)+" create URL "+shown+" not read as an asset type")
		}
	} else {
		row.Evidence = append(row.Evidence, "index_type: no {{...BasePath}} create URL in Create "+t.pos(r.createPos)+" (a client library call)")
	}
	googleIDForm(t, body, &row)
	googleTagsOwn(t, r, field, &row)
	return row
}

func isReplaceVars(c *ast.CallExpr) bool {
	n := calleeName(c)
	return (n == "ReplaceVars" || n == "ReplaceVarsForId") && len(c.Args) == 3
}

// googleIDForm reads d.SetId(id) where id comes from a ReplaceVars template.
func googleIDForm(t *tree, body *ast.BlockStmt, row *listRow) {
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || row.IDForm != Unknown || calleeName(c) != "SetId" || len(c.Args) != 1 {
			return true
		}
		var tmpl string
		switch a := c.Args[0].(type) {
		case *ast.Ident:
			// every assignment of the ID variable is the same template
			for i, rhs := range assignedTo(body, a.Name) {
				var s string
				if rc, ok := rhs.(*ast.CallExpr); ok && isReplaceVars(rc) {
					s, _ = strLit(rc.Args[2])
				}
				if s == "" || (i > 0 && s != tmpl) {
					tmpl = ""
					break
				}
				tmpl = s
			}
		case *ast.BasicLit:
			return true
		}
		if strings.Contains(tmpl, "/") && !strings.Contains(tmpl, "://") && !strings.Contains(tmpl, "BasePath") {
			row.IDForm = IDPath
			row.ev("id_form", t.pos(c.Pos()), "ID from template "+tmpl)
		}
		return true
	})
}

// googleTagsOwn: obj["labels"] in the create body map is the resource's
// own labels; Labels: in a *Properties struct (an instance template's
// properties) are the labels of what is made from it.
func googleTagsOwn(t *tree, r *googleResource, field string, row *listRow) {
	keys := map[string]bool{}
	for _, f := range strings.Split(field, ",") {
		keys[strings.ToLower(f)] = true
	}
	visited := map[string]bool{r.create.Name.Name: true}
	var own, other token.Pos
	var otherWhat string
	var scan func(body ast.Node, depth int)
	scan = func(body ast.Node, depth int) {
		walkStack(body, func(n ast.Node, stack []ast.Node) {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					// instanceProperties.Labels = ..., instanceProperties := &compute.InstanceProperties{}
					if sel, ok := l.(*ast.SelectorExpr); ok && keys[strings.ToLower(sel.Sel.Name)] {
						if x, ok := sel.X.(*ast.Ident); ok {
							for _, rhs := range assignedTo(body, x.Name) {
								if u, ok := rhs.(*ast.UnaryExpr); ok {
									rhs = u.X
								}
								if cl, ok := rhs.(*ast.CompositeLit); ok && strings.HasSuffix(recvName(cl.Type), "Properties") && !other.IsValid() {
									other, otherWhat = n.Pos(), x.Name+"."+sel.Sel.Name+" set in a "+recvName(cl.Type)+" (the properties of what is made from it)"
								}
							}
						}
					}
					ix, ok := l.(*ast.IndexExpr)
					if !ok {
						continue
					}
					k, ok := strLit(ix.Index)
					if x, isID := ix.X.(*ast.Ident); ok && isID && x.Name == "obj" && keys[strings.ToLower(k)] && !own.IsValid() {
						own = n.Pos()
					}
				}
			case *ast.KeyValueExpr:
				k, ok := n.Key.(*ast.Ident)
				if !ok || !keys[strings.ToLower(k.Name)] || len(stack) == 0 {
					return
				}
				if cl, ok := stack[len(stack)-1].(*ast.CompositeLit); ok {
					if typ := recvName(cl.Type); strings.HasSuffix(typ, "Properties") && !other.IsValid() {
						other, otherWhat = n.Pos(), k.Name+": in a "+typ+" (the properties of what is made from it)"
					}
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && depth > 0 && !visited[id.Name] {
					if fd := r.pkg.funcs[id.Name]; fd != nil && fd.Body != nil {
						visited[id.Name] = true
						scan(fd.Body, depth-1)
					}
				}
			}
		})
	}
	scan(r.create.Body, 2)
	switch {
	case other.IsValid() && !own.IsValid():
		row.TagsOwn = No
		row.ev("tags_own", t.pos(other), otherWhat)
	case own.IsValid() && !other.IsValid():
		row.TagsOwn = Yes
		row.ev("tags_own", t.pos(own), `obj["`+field+`"] set in the create body`)
	}
}
