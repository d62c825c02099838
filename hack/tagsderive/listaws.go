package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// awsConsts resolves the constants an ARN's Service field is written with:
// names.X (terraform-provider-aws names package) and pkg.ServiceName
// (aws-sdk-go v1 service packages).
type awsConsts struct {
	fset     *token.FileSet
	names    map[string]string
	namesPos map[string]string
	sdkRoot  string
	sdk      map[string][2]string // import path -> value, position
}

func newAWSConsts(namesDir, sdkRoot string) *awsConsts {
	c := &awsConsts{fset: token.NewFileSet(), names: map[string]string{}, namesPos: map[string]string{}, sdkRoot: sdkRoot, sdk: map[string][2]string{}}
	if namesDir == "" {
		return c
	}
	p := parseDir(c.fset, namesDir)
	for _, f := range p.files {
		for name, v := range stringConsts(f) {
			c.names[name] = v.val
			c.namesPos[name] = relPos(c.fset, filepath.Dir(namesDir), v.pos)
		}
	}
	return c
}

type constVal struct {
	val string
	pos token.Pos
}

// stringConsts are the string constants a file declares.
func stringConsts(f *ast.File) map[string]constVal {
	out := map[string]constVal{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					if v, ok := strLit(vs.Values[i]); ok {
						out[n.Name] = constVal{v, n.Pos()}
					}
				}
			}
		}
	}
	return out
}

// sdkServiceName resolves pkg.ServiceName of an aws-sdk-go v1 import path.
func (c *awsConsts) sdkServiceName(path string) (string, string, bool) {
	const prefix = "github.com/aws/aws-sdk-go/service/"
	if c.sdkRoot == "" || !strings.HasPrefix(path, prefix) {
		return "", "", false
	}
	if v, ok := c.sdk[path]; ok {
		return v[0], v[1], v[0] != ""
	}
	file := filepath.Join(c.sdkRoot, "service", strings.TrimPrefix(path, prefix), "service.go")
	var val, pos string
	if src, err := os.ReadFile(file); err == nil {
		if f, err := parser.ParseFile(c.fset, file, src, 0); err == nil {
			if v, ok := stringConsts(f)["ServiceName"]; ok {
				val, pos = v.val, "aws-sdk-go/"+relPos(c.fset, c.sdkRoot, v.pos)
			}
		}
	}
	c.sdk[path] = [2]string{val, pos}
	return val, pos, val != ""
}

// awsARN is what one arn.ARN{...} literal says.
type awsARN struct {
	service, rtype string // rtype "" when not certain
	region         string // Yes (empty region), No (the provider's region), Unknown
	pos            token.Pos
	note           string // how the service was resolved
}

// listAWS derives the listability of one AWS resource type.
func listAWS(t *tree, idx map[string]*awsResource, consts *awsConsts, name, version string) listRow {
	row := listRow{IndexType: Unknown, Global: Unknown, IDForm: Unknown, TagsOwn: Unknown}
	r := idx[name]
	if r == nil {
		row.Evidence = append(row.Evidence, "resource not registered in this source")
		return row
	}
	if r.create == nil {
		row.Evidence = append(row.Evidence, r.missing+" ("+t.pos(r.factoryPos)+")")
		return row
	}
	// The functions that may set the arn attribute: Create and Read.
	funcs := []*ast.FuncDecl{r.create}
	if rd := awsReadFunc(r.pkg, r.factory, 2); rd != nil {
		funcs = append(funcs, rd)
	} else if r.create.Recv != nil && len(r.create.Recv.List) == 1 {
		if rd := r.pkg.method(recvName(r.create.Recv.List[0].Type), "Read"); rd != nil {
			funcs = append(funcs, rd)
		}
	}
	awsIndexType(t, r.pkg, funcs, consts, &row)
	awsIDForm(t, r.create.Body, &row)
	awsTagsOwn(t, idx, r, name, version, &row)
	return row
}

// awsIndexType reads the ARN the resource's Create and Read set as its
// arn attribute: d.Set("arn", X) / d.Set(names.AttrARN, X) or a Framework
// model's .ARN = X, X being (or holding) an arn.ARN{...} literal.
func awsIndexType(t *tree, p *pkg, funcs []*ast.FuncDecl, consts *awsConsts, row *listRow) {
	var arns []awsARN
	var fromAPI []token.Pos
	for _, fd := range funcs {
		f := t.fileOf(p, fd.Pos())
		{
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				var val ast.Expr
				switch n := n.(type) {
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "Set" || len(n.Args) != 2 || !isARNKey(n.Args[0]) {
						return true
					}
					val = n.Args[1]
				case *ast.AssignStmt:
					if len(n.Lhs) != 1 || len(n.Rhs) != 1 {
						return true
					}
					sel, ok := n.Lhs[0].(*ast.SelectorExpr)
					if !ok || (sel.Sel.Name != "ARN" && sel.Sel.Name != "Arn") {
						return true
					}
					if _, ok := sel.X.(*ast.Ident); !ok {
						return true
					}
					val = n.Rhs[0]
				default:
					return true
				}
				lits := arnLits(p, fd.Body, val, 2)
				if len(lits) == 0 {
					fromAPI = append(fromAPI, val.Pos())
					return true
				}
				for _, cl := range lits {
					arns = append(arns, readARN(p, f, cl, consts))
				}
				return true
			})
		}
	}
	if len(fromAPI) > 0 {
		row.Evidence = append(row.Evidence, "index_type: "+t.pos(fromAPI[0])+" arn attribute set from a value not built in the source (the API response)")
		return
	}
	if len(arns) == 0 {
		return
	}
	a := arns[0]
	for _, b := range arns[1:] {
		if b.service != a.service || b.rtype != a.rtype {
			a.service, a.rtype = "", ""
		}
		if b.region != a.region {
			a.region = Unknown
		}
	}
	if a.service != "" && a.rtype != "" {
		row.IndexType = a.service + ":" + a.rtype
		row.ev("index_type", t.pos(a.pos), "arn.ARN{Service: "+a.service+a.note+", Resource: \""+a.rtype+"...\"} set as the arn attribute")
	} else {
		row.Evidence = append(row.Evidence, "index_type: "+t.pos(a.pos)+" arn.ARN literal whose service or resource type is not certain")
	}
	if a.region != Unknown {
		row.Global = a.region
		what := "arn.ARN built with the provider's Region"
		if a.region == Yes {
			what = "arn.ARN built without a Region (global)"
		}
		row.ev("global", t.pos(a.pos), what)
	}
}

func isARNKey(e ast.Expr) bool {
	if s, ok := strLit(e); ok {
		return s == "arn"
	}
	if sel, ok := e.(*ast.SelectorExpr); ok {
		return sel.Sel.Name == "AttrARN"
	}
	return false
}

// arnLits finds the arn.ARN composite literals an expression is built
// from: inside it, through a local variable of body, or returned by a
// same-package function it calls.
func arnLits(p *pkg, body ast.Node, e ast.Expr, depth int) []*ast.CompositeLit {
	var out []*ast.CompositeLit
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if isARNType(n.Type) {
				out = append(out, n)
				return false
			}
		case *ast.Ident:
			if depth > 0 {
				for _, rhs := range assignedTo(body, n.Name) {
					out = append(out, arnLits(p, body, rhs, depth-1)...)
				}
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && depth > 0 {
				if fd := p.funcs[id.Name]; fd != nil && fd.Body != nil {
					ast.Inspect(fd.Body, func(m ast.Node) bool {
						if rs, ok := m.(*ast.ReturnStmt); ok {
							for _, r := range rs.Results {
								out = append(out, arnLits(p, fd.Body, r, depth-1)...)
							}
						}
						return true
					})
				}
			}
		}
		return true
	})
	return out
}

func isARNType(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "ARN" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "arn"
}

// awsReadFunc finds the Read function named in an SDKv2 factory.
func awsReadFunc(p *pkg, fd *ast.FuncDecl, depth int) *ast.FuncDecl {
	if fd == nil || fd.Body == nil {
		return nil
	}
	var read *ast.FuncDecl
	var delegate string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			k, ok := n.Key.(*ast.Ident)
			if !ok || read != nil {
				return true
			}
			switch k.Name {
			case "Read", "ReadContext", "ReadWithoutTimeout":
				if id, ok := n.Value.(*ast.Ident); ok {
					read = p.funcs[id.Name]
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
	if read == nil && delegate != "" && depth > 0 {
		return awsReadFunc(p, p.funcs[delegate], depth-1)
	}
	return read
}

// awsClientIdents are the names that hold a *conns.AWSClient in the
// function around pos: its parameters of that type and x := meta.(*conns.AWSClient).
func awsClientIdents(f *ast.File, pos token.Pos) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || pos < fd.Pos() || pos >= fd.End() {
			continue
		}
		for _, fld := range fd.Type.Params.List {
			if recvName(fld.Type) == "AWSClient" {
				for _, n := range fld.Names {
					out[n.Name] = true
				}
			}
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
				if ta, ok := as.Rhs[0].(*ast.TypeAssertExpr); ok && recvName(ta.Type) == "AWSClient" {
					if id, ok := as.Lhs[0].(*ast.Ident); ok {
						out[id.Name] = true
					}
				}
			}
			return true
		})
	}
	return out
}

// readARN reads the Service, Region and Resource fields of an arn.ARN literal.
func readARN(p *pkg, f *ast.File, cl *ast.CompositeLit, consts *awsConsts) awsARN {
	a := awsARN{region: Yes, pos: cl.Pos()}
	for _, file := range p.files {
		if file.Pos() <= cl.Pos() && cl.Pos() < file.End() {
			f = file // the literal may be in a helper's file
		}
	}
	for _, e := range cl.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			a.region = Unknown // positional fields: not read
			continue
		}
		k, _ := kv.Key.(*ast.Ident)
		if k == nil {
			continue
		}
		switch k.Name {
		case "Service":
			a.service, a.note = awsService(f, kv.Value, consts)
		case "Region":
			a.region = awsRegion(kv.Value, awsClientIdents(f, cl.Pos()))
		case "Resource":
			if !nestedResource(kv.Value) {
				a.rtype = resourceType(literalPrefix(kv.Value))
			}
		}
	}
	return a
}

// awsService resolves an ARN's Service expression.
func awsService(f *ast.File, e ast.Expr, consts *awsConsts) (string, string) {
	if s, ok := strLit(e); ok {
		return s, ""
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	path := importPath(f, x.Name)
	switch {
	case strings.HasSuffix(path, "/names") && consts.names[sel.Sel.Name] != "":
		return consts.names[sel.Sel.Name], " (names." + sel.Sel.Name + " at " + consts.namesPos[sel.Sel.Name] + ")"
	case sel.Sel.Name == "ServiceName":
		if v, pos, ok := consts.sdkServiceName(path); ok {
			return v, " (" + x.Name + ".ServiceName at " + pos + ")"
		}
	}
	return "", ""
}

// awsRegion classifies an ARN's Region expression.
func awsRegion(e ast.Expr, clients map[string]bool) string {
	if s, ok := strLit(e); ok {
		if s == "" {
			return Yes
		}
		return Unknown
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Region" {
		return Unknown
	}
	switch x := sel.X.(type) {
	case *ast.TypeAssertExpr: // meta.(*conns.AWSClient).Region
		if recvName(x.Type) == "AWSClient" {
			return No
		}
	case *ast.CallExpr: // r.Meta().Region
		if calleeName(x) == "Meta" {
			return No
		}
	case *ast.Ident: // c.Region, c a *conns.AWSClient
		if clients[x.Name] {
			return No
		}
	}
	return Unknown
}

// literalPrefix is the constant beginning of a string expression: a
// literal, the left of a +, or a fmt.Sprintf format up to its first verb.
func literalPrefix(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, _ := strLit(e)
		return s
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			left := literalPrefix(e.X)
			if _, ok := e.X.(*ast.BasicLit); ok {
				return left + "\x00" // the rest is not constant
			}
			return left
		}
	case *ast.CallExpr:
		if calleeName(e) == "Sprintf" && len(e.Args) > 0 {
			if s, ok := strLit(e.Args[0]); ok {
				if i := strings.Index(s, "%"); i >= 0 {
					return s[:i] + "\x00"
				}
				return s
			}
		}
	}
	return ""
}

// nestedResource reports a resource part with a constant segment after a
// variable one (fmt.Sprintf("application/%s/environment/%s")): the
// Tagging API's resource type of such an ARN is not certain.
func nestedResource(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok || calleeName(c) != "Sprintf" || len(c.Args) == 0 {
		return false
	}
	s, ok := strLit(c.Args[0])
	if !ok {
		return false
	}
	seenVar := false
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == ':' }) {
		if strings.Contains(seg, "%") {
			seenVar = true
		} else if seenVar {
			return true
		}
	}
	return false
}

// resourceType is the Tagging API's resource type of an ARN resource part
// beginning with prefix: up to the first "/" or ":" ("vpc/ID" -> vpc,
// "log-group:NAME" -> log-group), or "/restapis/ID" -> /restapis. It is ""
// when the separator is not in the constant part.
func resourceType(prefix string) string {
	s := prefix
	if i := strings.Index(s, "\x00"); i >= 0 {
		s = s[:i]
	}
	if strings.HasPrefix(s, "/") {
		if i := strings.Index(s[1:], "/"); i > 0 {
			return s[:i+1]
		}
		return ""
	}
	if i := strings.IndexAny(s, "/:"); i > 0 {
		return s[:i]
	}
	return ""
}

// awsIDForm reads what the create sets as the Terraform ID.
func awsIDForm(t *tree, body *ast.BlockStmt, row *listRow) {
	type idSet struct {
		form, what string
		pos        token.Pos
	}
	var sets []idSet
	ast.Inspect(body, func(n ast.Node) bool {
		var val ast.Expr
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "SetId" && len(n.Args) == 1 {
				if s, ok := strLit(n.Args[0]); ok && s == "" {
					return true
				}
				val = n.Args[0]
			} else if ok && sel.Sel.Name == "setID" {
				sets = append(sets, idSet{Unknown, "setID()", n.Pos()})
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if sel, ok := n.Lhs[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "ID" {
					if _, ok := sel.X.(*ast.Ident); ok {
						val = n.Rhs[0]
					}
				}
			}
		}
		if val != nil {
			form, what := idExprForm(body, val, 3)
			sets = append(sets, idSet{form, what, val.Pos()})
		}
		return true
	})
	if len(sets) == 0 {
		return
	}
	for _, s := range sets[1:] {
		if s.form != sets[0].form {
			row.Evidence = append(row.Evidence, "id_form: "+t.pos(sets[0].pos)+" and "+t.pos(s.pos)+" set different IDs")
			return
		}
	}
	if sets[0].form != Unknown {
		row.IDForm = sets[0].form
		row.ev("id_form", t.pos(sets[0].pos), "ID set from "+sets[0].what)
	}
}

var (
	reIDConv = regexp.MustCompile(`^(ToString|StringValue|String|StringValueToFramework|StringToFramework|StringToFrameworkLegacy|StringPointerValue|Value)$`)
)

// idExprForm classifies the value set as an ID.
func idExprForm(body ast.Node, e ast.Expr, depth int) (string, string) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return idExprForm(body, e.X, depth)
	case *ast.StarExpr:
		return idExprForm(body, e.X, depth)
	case *ast.TypeAssertExpr:
		if c, ok := e.X.(*ast.CallExpr); ok && calleeName(c) == "Get" && len(c.Args) == 1 {
			if isNameKey(c.Args[0]) {
				return IDName, `d.Get("name")`
			}
			return Unknown, ""
		}
		return idExprForm(body, e.X, depth)
	case *ast.CallExpr:
		name := calleeName(e)
		if reIDConv.MatchString(name) && len(e.Args) > 0 {
			return idExprForm(body, e.Args[len(e.Args)-1], depth)
		}
		if name == "Name" { // create.Name(name, namePrefix)
			if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "create" {
					return IDName, "create.Name(...)"
				}
			}
		}
	case *ast.SelectorExpr:
		return fieldForm(e.Sel.Name)
	case *ast.IndexExpr: // output.HostIds[0]
		if sel, ok := e.X.(*ast.SelectorExpr); ok && strings.HasSuffix(sel.Sel.Name, "Ids") {
			return IDAPI, "response field " + sel.Sel.Name + "[...]"
		}
	case *ast.Ident:
		if depth == 0 {
			return Unknown, ""
		}
		rhs := assignedTo(body, e.Name)
		if len(rhs) != 1 {
			return Unknown, ""
		}
		return idExprForm(body, rhs[0], depth-1)
	}
	return Unknown, ""
}

func isNameKey(e ast.Expr) bool {
	if s, ok := strLit(e); ok {
		return s == "name"
	}
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "AttrName"
}

// fieldForm classifies an API response field by its name.
func fieldForm(f string) (string, string) {
	lower := strings.ToLower(f)
	switch {
	case strings.HasSuffix(lower, "url"):
		return IDURL, "response field " + f
	case strings.HasSuffix(lower, "arn"):
		return IDArn, "response field " + f
	case strings.HasSuffix(f, "Id") || strings.HasSuffix(f, "ID"):
		return IDAPI, "response field " + f
	case f == "Name" || strings.HasSuffix(f, "Name"):
		return IDName, "response field " + f
	}
	return Unknown, ""
}

// awsTagsOwn decides whether the tags field is the resource's own tags.
func awsTagsOwn(t *tree, idx map[string]*awsResource, r *awsResource, name, version string, row *listRow) {
	// The configured tags map passed under a request field that is not
	// the request's tags (aws_inspector_resource_group's
	// ResourceGroupTags: a selector of instances).
	var other *ast.KeyValueExpr
	ast.Inspect(r.create.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || other != nil {
			return true
		}
		k, ok := kv.Key.(*ast.Ident)
		if !ok || reAWSTagField.MatchString(k.Name) {
			return true
		}
		if getsTags(kv.Value) {
			other = kv
		}
		return true
	})
	res := classifyAWS(t, idx, name, version)
	switch {
	case other != nil:
		k := other.Key.(*ast.Ident).Name
		if res.Answer == Request || res.Answer == After || res.Answer == PartitionFallback {
			row.Evidence = append(row.Evidence, "tags_own: "+t.pos(other.Pos())+" tags also passed as "+k+" besides the resource's tags")
			return
		}
		row.TagsOwn = No
		row.ev("tags_own", t.pos(other.Pos()), "the tags map is sent as "+k+", not as the resource's tags")
	case res.Answer == Request || res.Answer == After || res.Answer == PartitionFallback:
		row.TagsOwn = Yes
		pos, _, _ := strings.Cut(strings.TrimSuffix(res.Evidence, " @"+version), " ")
		row.ev("tags_own", pos, "tags sent as the resource's tags ("+res.Answer+")")
	}
}

// getsTags reports d.Get("tags") / d.Get(names.AttrTags) in e.
func getsTags(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || calleeName(c) != "Get" || len(c.Args) != 1 {
			return true
		}
		if s, ok := strLit(c.Args[0]); ok && s == "tags" {
			found = true
		}
		if sel, ok := c.Args[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "AttrTags" {
			found = true
		}
		return !found
	})
	return found
}
