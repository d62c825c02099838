package strategy

import (
	"errors"
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"
)

// ErrBadTemplate reports an ID template that does not parse, references
// data other than .parameters, .setup and .external_name, or a templates
// file that is malformed.
var ErrBadTemplate = errors.New("strategy: bad ID template")

// ErrMissingValue reports a template that referenced a parameter or setup
// value the data does not hold: the rendered ID would hold "<no value>".
var ErrMissingValue = errors.New("strategy: the ID template references a value the data does not hold")

// noValue is what text/template prints for a missing map key, which upjet
// does not make an error.
const noValue = "<no value>"

// funcs are the template functions upjet's TemplatedStringAsIdentifier
// offers (upjet v2.3.0, pkg/config/externalname.go), ToLower and ToUpper,
// and two of intentjournal's own for the normalisations Terraform
// providers make before they build an ID (a StateFunc trimming a trailing
// dot): TrimPrefix and TrimSuffix, which take the affix first so that they
// end a pipeline, {{ .parameters.name | TrimSuffix "." }}. A template
// that uses them is not one upjet can run.
var funcs = template.FuncMap{
	"ToLower":    strings.ToLower,
	"ToUpper":    strings.ToUpper,
	"TrimPrefix": func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
	"TrimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
}

// Template is an ID template in upjet's syntax, parsed and checked. It is
// safe for concurrent use.
type Template struct {
	src         string
	t           *template.Template
	usesExtName bool
	usesSetup   bool
}

// ParseTemplate parses src as upjet's TemplatedStringAsIdentifier does
// (Go text/template, functions ToLower and ToUpper, and intentjournal's
// TrimPrefix and TrimSuffix) and checks that it
// references only .parameters, .setup.configuration,
// .setup.client_metadata and .external_name. Errors wrap ErrBadTemplate.
func ParseTemplate(src string) (*Template, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("%w: the template is empty", ErrBadTemplate)
	}
	t, err := template.New("getid").Funcs(funcs).Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTemplate, err)
	}
	if len(t.Templates()) > 1 {
		return nil, fmt.Errorf("%w: {{define}} and {{block}} are not allowed in an ID template", ErrBadTemplate)
	}
	c := checker{}
	if err := c.list(t.Root, true); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadTemplate, err)
	}
	return &Template{src: src, t: t, usesExtName: c.usesExtName, usesSetup: c.usesSetup}, nil
}

// String returns the template's source.
func (t *Template) String() string { return t.src }

// UsesExternalName reports whether the template references .external_name.
// A cloud-assigned kind's external name is the ID itself, unknown before
// the create, so such a template cannot find what the create made.
func (t *Template) UsesExternalName() bool { return t.usesExtName }

// UsesSetup reports whether the template references .setup. Rendering
// such a template needs the provider's Terraform setup (its configuration
// and client metadata), which a caller builds only then: building it may
// read credentials and call the cloud.
func (t *Template) UsesSetup() bool { return t.usesSetup }

// Render executes the template on the data upjet's GetIDFn gives it:
// external_name, parameters (the Terraform arguments) and setup (a map
// with "configuration" and "client_metadata"). Where upjet would print
// "<no value>" for a missing key, Render returns ErrMissingValue: an ID
// holding it finds nothing.
func (t *Template) Render(externalName string, parameters, setup map[string]any) (string, error) {
	data := map[string]any{
		"external_name": externalName,
		"parameters":    parameters,
		"setup":         setup,
	}
	var b strings.Builder
	if err := t.t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("cannot render ID template %q: %w", t.src, err)
	}
	if strings.Contains(b.String(), noValue) {
		return "", fmt.Errorf("%w: %q renders %q", ErrMissingValue, t.src, b.String())
	}
	return b.String(), nil
}

// checker walks a parsed template and refuses references outside the data
// upjet gives a template.
type checker struct{ usesExtName, usesSetup bool }

// list checks the nodes of l. atRoot is true where dot is the template's
// data, false inside {{with}} and {{range}}, where it is a value the
// enclosing pipeline (itself checked) produced.
func (c *checker) list(l *parse.ListNode, atRoot bool) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		if err := c.node(n, atRoot); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) node(n parse.Node, atRoot bool) error {
	switch n := n.(type) {
	case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
		return nil
	case *parse.ActionNode:
		return c.pipe(n.Pipe, atRoot)
	case *parse.IfNode:
		return c.branch(&n.BranchNode, atRoot, atRoot)
	case *parse.WithNode:
		return c.branch(&n.BranchNode, false, atRoot)
	case *parse.RangeNode:
		return c.branch(&n.BranchNode, false, atRoot)
	case *parse.TemplateNode:
		return fmt.Errorf("{{template %q}} is not allowed in an ID template", n.Name)
	}
	return fmt.Errorf("%s is not allowed in an ID template", n)
}

// branch checks an if, with or range: its pipeline where it stands, its
// body with dot as bodyAtRoot says, its else branch with dot unchanged.
func (c *checker) branch(b *parse.BranchNode, bodyAtRoot, atRoot bool) error {
	if err := c.pipe(b.Pipe, atRoot); err != nil {
		return err
	}
	if err := c.list(b.List, bodyAtRoot); err != nil {
		return err
	}
	return c.list(b.ElseList, atRoot)
}

func (c *checker) pipe(p *parse.PipeNode, atRoot bool) error {
	if p == nil {
		return nil
	}
	for _, cmd := range p.Cmds {
		for _, arg := range cmd.Args {
			if err := c.arg(arg, atRoot); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *checker) arg(n parse.Node, atRoot bool) error {
	switch n := n.(type) {
	case *parse.FieldNode:
		if atRoot {
			return c.ref(n.Ident, n.String())
		}
		return nil
	case *parse.VariableNode:
		if n.Ident[0] != "$" {
			return nil // a variable the template declared
		}
		if len(n.Ident) == 1 {
			return errors.New("$ is the whole data; reference .parameters, .setup or .external_name")
		}
		return c.ref(n.Ident[1:], n.String())
	case *parse.DotNode:
		if atRoot {
			return errors.New("{{ . }} is the whole data; reference .parameters, .setup or .external_name")
		}
		return nil
	case *parse.ChainNode:
		return c.arg(n.Node, atRoot)
	case *parse.PipeNode:
		return c.pipe(n, atRoot)
	case *parse.IdentifierNode, *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode:
		return nil
	}
	return fmt.Errorf("%s is not allowed in an ID template", n)
}

// ref checks a field path from the data's root.
func (c *checker) ref(idents []string, text string) error {
	switch idents[0] {
	case "parameters":
		return nil
	case "external_name":
		if len(idents) > 1 {
			return fmt.Errorf("%s: .external_name is a string and has no fields", text)
		}
		c.usesExtName = true
		return nil
	case "setup":
		c.usesSetup = true
		if len(idents) > 1 && idents[1] != "configuration" && idents[1] != "client_metadata" {
			return fmt.Errorf("%s: .setup holds only .setup.configuration and .setup.client_metadata", text)
		}
		return nil
	}
	return fmt.Errorf("%s: an ID template may reference only .parameters, .setup and .external_name", text)
}
