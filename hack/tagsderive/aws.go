package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
)

// awsResource is where a terraform-provider-aws resource is defined.
type awsResource struct {
	pkg        *pkg
	create     *ast.FuncDecl // the Create function or method
	createPos  token.Pos
	tagsAnnot  bool // @Tags(...) on the factory: transparent tagging
	missing    string
	factoryPos token.Pos
	factory    *ast.FuncDecl // the SDKv2 factory (nil for Framework resources)
}

var (
	reAWSAnnot     = regexp.MustCompile(`@(SDKResource|FrameworkResource)\("([a-z0-9_]+)"`)
	reAWSTagsIn    = regexp.MustCompile(`^(getTagsIn|getTagSpecificationsIn|tagsFromCreate)`)
	reAWSTagField  = regexp.MustCompile(`^(Tags|Tagging|TagList|TagSpecifications)$`)
	reAWSAfterCall = regexp.MustCompile(`(?i)^[a-z0-9]*(create|update|add)tags|^TagResource$|^Tag(Resource|Role|User|Policy|InstanceProfile|OpenIDConnectProvider|SAMLProvider|ServerCertificate|MFADevice)s?$|^ChangeTagsForResource$|^Put[A-Za-z]*Tagging$`)
)

func awsRules() *rules {
	return &rules{
		tagsIn: func(c *ast.CallExpr) bool { return reAWSTagsIn.MatchString(calleeName(c)) },
		afterCall: func(c *ast.CallExpr) (string, bool) {
			name := calleeName(c)
			if strings.HasPrefix(name, "testAcc") || !reAWSAfterCall.MatchString(name) {
				return "", false
			}
			return name + " call (tags an existing resource)", true
		},
		reqExpr: func(n ast.Node, stack []ast.Node) (string, bool) {
			// Tags built from the configuration without getTagsIn, e.g.
			// input.Tagging = aws.String(tags.URLEncode()) or Tags: Tags(tags).
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && reAWSTagField.MatchString(id.Name) && mentionsTags(n.Value) {
					return id.Name + ": (configured tags) in the create request", true
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
					if sel, ok := n.Lhs[0].(*ast.SelectorExpr); ok && reAWSTagField.MatchString(sel.Sel.Name) && mentionsTags(n.Rhs[0]) {
						return "." + sel.Sel.Name + " = (configured tags) in the create request", true
					}
				}
			}
			return "", false
		},
		partition: func(name string) bool { return name == "IsUnsupportedOperationInPartitionError" },
		follow:    followDefault,
	}
}

// indexAWS finds every resource type of terraform-provider-aws: SDKv2
// resources by @SDKResource("aws_x") on their factory, Framework resources
// by @FrameworkResource("aws_x") or by Metadata setting TypeName = "aws_x".
func indexAWS(t *tree) map[string]*awsResource {
	out := map[string]*awsResource{}
	for _, dir := range t.order {
		p := t.pkgs[dir]
		for _, f := range p.files {
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				if fd.Doc != nil {
					text := fd.Doc.Text()
					tagsAnnot := strings.Contains(text, "@Tags(")
					for _, m := range reAWSAnnot.FindAllStringSubmatch(text, -1) {
						if _, dup := out[m[2]]; dup {
							continue
						}
						r := &awsResource{pkg: p, tagsAnnot: tagsAnnot, factoryPos: fd.Pos()}
						if m[1] == "SDKResource" {
							r.factory = fd
							awsSDKCreate(p, fd, r, 2)
						} else {
							awsFrameworkCreate(p, factoryType(fd), r)
						}
						out[m[2]] = r
					}
				}
				// Framework resources of older versions name their type in Metadata.
				if fd.Recv != nil && fd.Name.Name == "Metadata" && len(fd.Recv.List) == 1 {
					typ := recvName(fd.Recv.List[0].Type)
					ast.Inspect(fd.Body, func(n ast.Node) bool {
						as, ok := n.(*ast.AssignStmt)
						if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
							return true
						}
						sel, ok := as.Lhs[0].(*ast.SelectorExpr)
						if !ok || sel.Sel.Name != "TypeName" {
							return true
						}
						name, ok := strLit(as.Rhs[0])
						if !ok || !strings.HasPrefix(name, "aws_") {
							return true
						}
						if _, dup := out[name]; dup {
							return true
						}
						r := &awsResource{pkg: p, factoryPos: fd.Pos(), tagsAnnot: frameworkTagsAnnot(p, typ)}
						awsFrameworkCreate(p, typ, r)
						out[name] = r
						return true
					})
				}
			}
		}
	}
	return out
}

// frameworkTagsAnnot reports @Tags on the factory that returns typ.
func frameworkTagsAnnot(p *pkg, typ string) bool {
	for _, fd := range p.funcs {
		if fd.Doc != nil && strings.Contains(fd.Doc.Text(), "@FrameworkResource") && factoryType(fd) == typ {
			return strings.Contains(fd.Doc.Text(), "@Tags(")
		}
	}
	return false
}

// factoryType is the type a Framework factory returns (&resourceX{}).
func factoryType(fd *ast.FuncDecl) string {
	typ := ""
	if fd.Body == nil {
		return ""
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if typ != "" {
			return false
		}
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
			if cl, ok := u.X.(*ast.CompositeLit); ok {
				typ = recvName(cl.Type)
			}
		}
		return true
	})
	return typ
}

func awsFrameworkCreate(p *pkg, typ string, r *awsResource) {
	if typ == "" {
		r.missing = "factory type not found"
		return
	}
	fd := p.method(typ, "Create")
	if fd == nil {
		r.missing = "no Create method on " + typ
		return
	}
	r.create, r.createPos = fd, fd.Pos()
}

// awsSDKCreate finds Create/CreateContext/CreateWithoutTimeout in the
// &schema.Resource{...} a factory returns, following a factory that
// returns another factory's result.
func awsSDKCreate(p *pkg, fd *ast.FuncDecl, r *awsResource, depth int) {
	if fd.Body == nil {
		r.missing = "factory has no body"
		return
	}
	var createName string
	var createKV token.Pos
	var delegate string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			k, ok := n.Key.(*ast.Ident)
			if !ok || createName != "" {
				return true
			}
			switch k.Name {
			case "Create", "CreateContext", "CreateWithoutTimeout":
				if id, ok := n.Value.(*ast.Ident); ok {
					createName, createKV = id.Name, n.Pos()
				} else if fl, ok := n.Value.(*ast.FuncLit); ok {
					r.create = &ast.FuncDecl{Name: ast.NewIdent("create"), Type: fl.Type, Body: fl.Body}
					r.createPos = fl.Pos()
					createName = "<literal>"
				}
			}
		case *ast.ReturnStmt:
			if len(n.Results) == 1 {
				if c, ok := n.Results[0].(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok {
						delegate = id.Name
					}
				}
			}
		}
		return true
	})
	switch {
	case createName == "<literal>":
		return
	case createName != "":
		if cf := p.funcs[createName]; cf != nil {
			r.create, r.createPos = cf, cf.Pos()
			return
		}
		r.missing = "create function " + createName + " not found"
		r.createPos = createKV
	case delegate != "" && depth > 0 && p.funcs[delegate] != nil:
		awsSDKCreate(p, p.funcs[delegate], r, depth-1)
	default:
		r.missing = "no Create in the resource schema"
	}
}

// classifyAWS answers for one AWS resource type.
func classifyAWS(t *tree, idx map[string]*awsResource, name, version string) result {
	r := idx[name]
	if r == nil {
		return result{Unknown, "unknown: resource not registered in this source @" + version}
	}
	if r.create == nil {
		return result{Unknown, "unknown: " + r.missing + " (" + t.pos(r.factoryPos) + ") @" + version}
	}
	if strings.HasPrefix(name, "aws_default_") {
		return result{After, t.pos(r.createPos) + " aws_default_* adopts an existing resource and tags it by a later update @" + version}
	}
	sig := &signals{}
	scanFunc(r.pkg, r.create.Body, awsRules(), sig, 1, map[string]bool{r.create.Name.Name: true})
	if len(sig.req)+len(sig.after)+len(sig.partition) == 0 && r.tagsAnnot {
		if at, ok := tagsInElsewhere(t, r.pkg, r.create); ok {
			return result{Unknown, "unknown: Create " + t.pos(r.createPos) + " sends no tags the scan can see, but " + t.pos(at) + " calls getTagsIn outside it (an unfollowed helper?) @" + version}
		}
	}
	return decide(t, sig, r.createPos, r.tagsAnnot, version)
}

// mentionsTags reports an expression that uses a variable or call named
// like tags (tags, tagsIn, Tags(...)), not getTagsIn (handled by tagsIn).
func mentionsTags(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "tags") && !reAWSTagsIn.MatchString(id.Name) {
			found = true
		}
		return !found
	})
	return found
}

// tagsInElsewhere finds a getTagsIn call in the create function's file
// that the scan of the create function did not reach.
func tagsInElsewhere(t *tree, p *pkg, create *ast.FuncDecl) (token.Pos, bool) {
	file := t.fset.File(create.Pos())
	for _, f := range p.files {
		if t.fset.File(f.Pos()) != file {
			continue
		}
		var at token.Pos
		ast.Inspect(f, func(n ast.Node) bool {
			if at.IsValid() {
				return false
			}
			if n == create {
				return false
			}
			if c, ok := n.(*ast.CallExpr); ok && reAWSTagsIn.MatchString(calleeName(c)) {
				at = c.Pos()
			}
			return true
		})
		return at, at.IsValid()
	}
	return token.NoPos, false
}
