package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
)

var reGoogleLabelKey = regexp.MustCompile(`^(labels|resourceLabels|userLabels|Labels|ResourceLabels|UserLabels)$`)

func googleRules() *rules {
	return &rules{
		reqExpr: func(n ast.Node, stack []ast.Node) (string, bool) {
			switch n := n.(type) {
			case *ast.AssignStmt:
				// obj["labels"] = labelsProp; cluster.Labels = tpgresource.ExpandEffectiveLabels(d)
				for _, l := range n.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && reGoogleLabelKey.MatchString(sel.Sel.Name) {
						return "." + sel.Sel.Name + " = set in the create request", true
					}
					if ix, ok := l.(*ast.IndexExpr); ok {
						if k, ok := strLit(ix.Index); ok && reGoogleLabelKey.MatchString(k) {
							return `obj["` + k + `"] set in the create body`, true
						}
					}
				}
			case *ast.KeyValueExpr:
				// &compute.Instance{Labels: ...} or map{"labels": ...}
				if id, ok := n.Key.(*ast.Ident); ok && reGoogleLabelKey.MatchString(id.Name) {
					return id.Name + ": in the create request", true
				}
				if k, ok := strLit(n.Key); ok && reGoogleLabelKey.MatchString(k) {
					return `"` + k + `": in the create request`, true
				}
			}
			return "", false
		},
		afterLit: func(s string) bool { return strings.Contains(s, "setLabels") },
		afterCall: func(c *ast.CallExpr) (string, bool) {
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "SetLabels" {
				return "", false
			}
			// tpgresource.SetLabels only writes Terraform state.
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "tpgresource" {
				return "", false
			}
			return "SetLabels call after the create", true
		},
		follow: followDefault,
	}
}

// googleResource is where a terraform-provider-google resource is defined.
type googleResource struct {
	pkg       *pkg
	create    *ast.FuncDecl
	createPos token.Pos
	missing   string
	regPos    token.Pos
}

// indexGoogle finds resources registered as registry.Schema{Name: "google_x",
// Type: registry.SchemaTypeResource, Schema: ResourceX()}.
func indexGoogle(t *tree) map[string]*googleResource {
	out := map[string]*googleResource{}
	for _, dir := range t.order {
		p := t.pkgs[dir]
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				cl, ok := n.(*ast.CompositeLit)
				if !ok || recvName(cl.Type) != "Schema" {
					return true
				}
				var name, typ, factory string
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
						name, _ = strLit(kv.Value)
					case "Type":
						typ = recvName(kv.Value)
					case "Schema":
						if c, ok := kv.Value.(*ast.CallExpr); ok {
							if id, ok := c.Fun.(*ast.Ident); ok {
								factory = id.Name
							}
						}
					}
				}
				if name == "" || typ != "SchemaTypeResource" {
					return true
				}
				if _, dup := out[name]; dup {
					return true
				}
				r := &googleResource{pkg: p, regPos: cl.Pos()}
				out[name] = r
				fd := p.funcs[factory]
				if fd == nil {
					r.missing = "factory " + factory + " not found"
					return true
				}
				ar := &awsResource{}
				awsSDKCreate(p, fd, ar, 2)
				r.create, r.createPos, r.missing = ar.create, ar.createPos, ar.missing
				return true
			})
		}
	}
	return out
}

// classifyGoogle answers for one Google resource type.
func classifyGoogle(t *tree, idx map[string]*googleResource, name, version string) result {
	r := idx[name]
	if r == nil {
		return result{Unknown, "unknown: resource not registered in this source @" + version}
	}
	if r.create == nil {
		return result{Unknown, "unknown: " + r.missing + " (" + t.pos(r.regPos) + ") @" + version}
	}
	sig := &signals{}
	scanFunc(r.pkg, r.create.Body, googleRules(), sig, 1, map[string]bool{r.create.Name.Name: true})
	if len(sig.after) > 0 {
		// A create that puts labels in the insert body and then calls
		// setLabels anyway is taken as tagging after its create, as the
		// AWS rule takes a request with a later tagging call: the
		// provider's own comment says the insert does not keep them
		// ("Labels cannot be set in a create"), and a crash between the
		// calls may leave an unlabelled resource.
		ev := t.pos(sig.after[0].pos) + " " + sig.after[0].what + ": labels set after the insert"
		if len(sig.req) > 0 {
			ev += " (also put in the insert body at " + t.pos(sig.req[0].pos) + ")"
		}
		return result{After, ev + " @" + version}
	}
	return decide(t, sig, r.createPos, false, version)
}
