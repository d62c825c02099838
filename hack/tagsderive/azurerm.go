package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
)

var reAzureAfterCall = regexp.MustCompile(`(?i)^(update|patch|createorupdate|set)tags|^UpdateTagsThenPoll$`)

func azurermRules() *rules {
	return &rules{
		reqExpr: func(n ast.Node, stack []ast.Node) (string, bool) {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				// Tags: tags.Expand(...) in the PUT model
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Tags" && !inAfterCall(stack) {
					return "Tags: in the create model", true
				}
			case *ast.AssignStmt:
				// model.Tags = tags.Expand(...)
				for _, l := range n.Lhs {
					if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Tags" && !inAfterCall(stack) {
						return ".Tags = set in the create model", true
					}
				}
			}
			return "", false
		},
		// tags.Expand(...) put in the model under another field (DNS records' Metadata:)
		tagsIn: func(c *ast.CallExpr) bool {
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Expand") {
				return false
			}
			x, ok := sel.X.(*ast.Ident)
			return ok && x.Name == "tags"
		},
		afterCall: func(c *ast.CallExpr) (string, bool) {
			name := calleeName(c)
			if !reAzureAfterCall.MatchString(name) {
				return "", false
			}
			return name + " call (tags an existing resource)", true
		},
		follow: followDefault,
	}
}

// inAfterCall reports a node inside the arguments of a tags update call.
func inAfterCall(stack []ast.Node) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		if c, ok := stack[i].(*ast.CallExpr); ok && reAzureAfterCall.MatchString(calleeName(c)) {
			return true
		}
	}
	return false
}

// azurermResource is where a terraform-provider-azurerm resource is defined.
type azurermResource struct {
	pkg       *pkg
	body      *ast.BlockStmt
	name      string // create function name, for recursion guard
	createPos token.Pos
	missing   string
	regPos    token.Pos
}

// indexAzurerm finds untyped resources in SupportedResources() maps
// ("azurerm_x": resourceX()) and typed resources (a type with
// ResourceType() returning "azurerm_x" and a Create() sdk.ResourceFunc).
func indexAzurerm(t *tree) map[string]*azurermResource {
	out := map[string]*azurermResource{}
	for _, dir := range t.order {
		p := t.pkgs[dir]
		for _, f := range p.files {
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || fd.Body == nil || len(fd.Recv.List) != 1 {
					continue
				}
				switch fd.Name.Name {
				case "SupportedResources":
					ast.Inspect(fd.Body, func(n ast.Node) bool {
						kv, ok := n.(*ast.KeyValueExpr)
						if !ok {
							return true
						}
						name, ok := strLit(kv.Key)
						if !ok || !strings.HasPrefix(name, "azurerm_") {
							return true
						}
						if _, dup := out[name]; dup {
							return true
						}
						r := &azurermResource{pkg: p, regPos: kv.Pos()}
						out[name] = r
						c, ok := kv.Value.(*ast.CallExpr)
						if !ok {
							r.missing = "registration is not a factory call"
							return true
						}
						id, ok := c.Fun.(*ast.Ident)
						if !ok || p.funcs[id.Name] == nil {
							r.missing = "factory not found"
							return true
						}
						ar := &awsResource{}
						awsSDKCreate(p, p.funcs[id.Name], ar, 2)
						if ar.create != nil {
							r.body, r.name, r.createPos = ar.create.Body, ar.create.Name.Name, ar.createPos
						}
						r.missing = ar.missing
						return true
					})
				case "ResourceType":
					typ := recvName(fd.Recv.List[0].Type)
					var name string
					ast.Inspect(fd.Body, func(n ast.Node) bool {
						if rs, ok := n.(*ast.ReturnStmt); ok && len(rs.Results) == 1 {
							name, _ = strLit(rs.Results[0])
						}
						return true
					})
					if !strings.HasPrefix(name, "azurerm_") {
						continue
					}
					cf := p.method(typ, "Create")
					if cf == nil || cf.Body == nil {
						continue // a data source
					}
					if _, dup := out[name]; dup {
						continue
					}
					r := &azurermResource{pkg: p, regPos: fd.Pos(), name: "Create"}
					out[name] = r
					ast.Inspect(cf.Body, func(n ast.Node) bool {
						kv, ok := n.(*ast.KeyValueExpr)
						if !ok || r.body != nil {
							return true
						}
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Func" {
							if fl, ok := kv.Value.(*ast.FuncLit); ok {
								r.body, r.createPos = fl.Body, fl.Pos()
							}
						}
						return true
					})
					if r.body == nil {
						r.missing = "Create() has no Func literal"
					}
				}
			}
		}
	}
	return out
}

// classifyAzurerm answers for one Azure resource type.
func classifyAzurerm(t *tree, idx map[string]*azurermResource, name, version string) result {
	r := idx[name]
	if r == nil {
		return result{Unknown, "unknown: resource not registered in this source @" + version}
	}
	if r.body == nil {
		return result{Unknown, "unknown: " + r.missing + " (" + t.pos(r.regPos) + ") @" + version}
	}
	sig := &signals{}
	scanFunc(r.pkg, r.body, azurermRules(), sig, 1, map[string]bool{r.name: true})
	return decide(t, sig, r.createPos, false, version)
}
