package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The -listability mode: for every kind with a cloud-assigned ID (column 3
// `C`) and a tags field (column 5), what the provider source says about
// listing it by tags through the cloud's index: the index type, whether
// the resource is global (AWS), what the Terraform ID is, and whether the
// tags field is the resource's own tags. Each fact that is not "unknown"
// carries its file:line evidence.

// Values of the id_form column besides Unknown.
const (
	IDArn  = "arn"
	IDURL  = "url"
	IDName = "name"
	IDAPI  = "api-id"
	IDArm  = "arm-id" // Azure: an ARM resource ID built from a resource ID struct
	IDPath = "path"   // Google: a relative resource path built from a template
	Yes    = "yes"
	No     = "no"
	NotApp = "-" // the global column outside AWS
)

// listRow is one row of the listability output.
type listRow struct {
	IndexType, Global, IDForm, TagsOwn string
	Evidence                           []string
}

// ev records a fact's evidence.
func (r *listRow) ev(col, pos, what string) {
	r.Evidence = append(r.Evidence, col+": "+pos+" "+what)
}

// listConfig is what the listability mode reads besides the provider roots.
type listConfig struct {
	awsNames   string // terraform-provider-aws names/ directory (names.X constants)
	awsSDKv1   string // github.com/aws/aws-sdk-go module root (pkg.ServiceName constants)
	azureVend  string // a vendor/ root holding github.com/hashicorp/go-azure-sdk and go-azure-helpers
	azurermMod string // Go module path of terraform-provider-azurerm
}

// runListability writes the listability table.
func runListability(c config, w io.Writer) error {
	kinds, err := readKinds(c.kinds)
	if err != nil {
		return err
	}
	rowFor := map[string]func(string, string) listRow{}
	if c.aws != "" {
		t, err := parseTree(c.aws, "internal", true)
		if err != nil {
			return err
		}
		idx := indexAWS(t)
		consts := newAWSConsts(c.list.awsNames, c.list.awsSDKv1)
		rowFor["aws"] = func(n, field string) listRow { return listAWS(t, idx, consts, n, c.awsVer) }
	}
	if c.google != "" {
		t, err := parseTree(c.google, "google/services", false)
		if err != nil {
			return err
		}
		idx := indexGoogle(t)
		rowFor["gcp"] = func(n, field string) listRow { return listGoogle(t, idx, n, field) }
	}
	if c.azurerm != "" {
		t, err := parseTree(c.azurerm, "internal/services", false)
		if err != nil {
			return err
		}
		idx := indexAzurerm(t)
		res := &azureIDResolver{t: t, vendor: c.list.azureVend, mod: c.list.azurermMod, dirs: map[string]*pkg{}}
		rowFor["azure"] = func(n, field string) listRow { return listAzurerm(t, idx, res, n) }
	}
	versions := map[string]string{"aws": c.awsVer, "gcp": c.googleVer, "azure": c.azurermVer}
	bw := bufio.NewWriter(w)
	for _, h := range c.header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	fmt.Fprintln(bw, "provider\tterraform_resource\tindex_type\tglobal\tid_form\ttags_own\tevidence")
	for _, k := range kinds {
		if k.idKnown != "C" {
			continue
		}
		f := rowFor[k.provider]
		if f == nil {
			continue
		}
		r := f(k.resource, k.field)
		evidence := strings.Join(r.Evidence, "; ")
		if evidence == "" {
			evidence = "nothing certain found"
		}
		evidence += " @" + versions[k.provider]
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.provider, k.resource, r.IndexType, r.Global, r.IDForm, r.TagsOwn,
			strings.ReplaceAll(evidence, "\t", " "))
	}
	return bw.Flush()
}

// fileOf returns the parsed file of p holding pos.
func (t *tree) fileOf(p *pkg, pos token.Pos) *ast.File {
	tf := t.fset.File(pos)
	for _, f := range p.files {
		if t.fset.File(f.Pos()) == tf {
			return f
		}
	}
	return nil
}

// importPath is the import path an identifier names in f ("" if none).
func importPath(f *ast.File, name string) string {
	for _, im := range f.Imports {
		path := strings.Trim(im.Path.Value, `"`)
		local := filepath.Base(path)
		if im.Name != nil {
			local = im.Name.Name
		} else if strings.HasPrefix(local, "v") && len(local) > 1 && local[1] >= '0' && local[1] <= '9' {
			local = filepath.Base(filepath.Dir(path)) // github.com/x/foo/v2
		}
		if local == name {
			return path
		}
	}
	return ""
}

// assignedTo finds, in body, the expressions assigned to the local name
// (x := e, x = e, var x = e).
func assignedTo(body ast.Node, name string) []ast.Expr {
	var out []ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				// x, err := f(): the first result
				if len(n.Rhs) == 1 {
					if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == name {
						out = append(out, n.Rhs[0])
					}
				}
				return true
			}
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name {
					out = append(out, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if id.Name == name && i < len(n.Values) {
					out = append(out, n.Values[i])
				}
			}
		}
		return true
	})
	return out
}

// parseDir parses the non-test .go files of one directory into a pkg.
func parseDir(fset *token.FileSet, dir string) *pkg {
	p := &pkg{dir: dir, funcs: map[string]*ast.FuncDecl{}, methods: map[string]*ast.FuncDecl{}, embeds: map[string][]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return p
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		p.files = append(p.files, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fd.Recv == nil {
					p.funcs[fd.Name.Name] = fd
				} else if len(fd.Recv.List) == 1 {
					p.methods[recvName(fd.Recv.List[0].Type)+"."+fd.Name.Name] = fd
				}
			}
		}
	}
	return p
}

// relPos renders pos relative to root, for files parsed outside a tree.
func relPos(fset *token.FileSet, root string, pos token.Pos) string {
	p := fset.Position(pos)
	rel, err := filepath.Rel(root, p.Filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = p.Filename
	}
	return filepath.ToSlash(rel) + ":" + itoa(p.Line)
}
