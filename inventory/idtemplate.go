package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
)

// IDTemplate is the Terraform ID template of an upjet kind whose ID is
// known before its create: what upjet's config.TemplatedStringAsIdentifier
// renders (its GetIDFn), from the external name, the Terraform arguments
// (.parameters) and the provider's setup (.setup.configuration,
// .setup.client_metadata). A kind named by an argument alone
// (NameAsIdentifier, ParameterAsIdentifier) has the template
// {{ .external_name }}.
//
// It renders as upjet does, with one difference: an ID that holds "<no
// value>", where upjet printed a value the data lacks, is an error. A
// scan must never look a create up at a key that is not the create's. A
// value missing where the template only tests it ({{ if .parameters.x }})
// is no error, as in upjet.
type IDTemplate struct {
	text string
	t    *template.Template
	// params and setup are the argument names and setup paths the
	// template names, in order of first use.
	params, setup []string
	boundName     bool
}

// Template fields upjet's GetIDFn passes.
const (
	tmplExternalName = "external_name"
	tmplParameters   = "parameters"
	tmplSetup        = "setup"
)

// ParseIDTemplate parses an upjet ID template. It is an error for the
// template to name anything but .external_name, .parameters.NAME and
// .setup.PATH, or to use a function upjet does not define (ToLower,
// ToUpper).
func ParseIDTemplate(text string) (*IDTemplate, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("an empty ID template")
	}
	t, err := template.New("id").Funcs(template.FuncMap{"ToLower": strings.ToLower, "ToUpper": strings.ToUpper}).
		Parse(text)
	if err != nil {
		return nil, fmt.Errorf("ID template %q: %w", text, err)
	}
	x := &IDTemplate{text: text, t: t}
	var bad []string
	walkFields(t.Root, func(f []string) {
		switch {
		case len(f) == 1 && f[0] == tmplExternalName:
			x.boundName = true
		case len(f) == 2 && f[0] == tmplParameters:
			if !slices.Contains(x.params, f[1]) {
				x.params = append(x.params, f[1])
			}
		case len(f) >= 2 && f[0] == tmplSetup:
			if p := strings.Join(f[1:], "."); !slices.Contains(x.setup, p) {
				x.setup = append(x.setup, p)
			}
		default:
			bad = append(bad, "."+strings.Join(f, "."))
		}
	})
	if len(bad) > 0 {
		return nil, fmt.Errorf("ID template %q names %s: want .external_name, .parameters.NAME or .setup.PATH", text, strings.Join(bad, ", "))
	}
	return x, nil
}

// walkFields calls fn with the path of every field a template's node
// names (.parameters.zone: [parameters zone]).
func walkFields(n parse.Node, fn func([]string)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkFields(c, fn)
		}
	case *parse.ActionNode:
		walkFields(n.Pipe, fn)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			walkFields(c, fn)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			walkFields(a, fn)
		}
	case *parse.FieldNode:
		fn(n.Ident)
	case *parse.ChainNode:
		walkFields(n.Node, fn)
	case *parse.IfNode:
		walkFields(n.Pipe, fn)
		walkFields(n.List, fn)
		walkFields(n.ElseList, fn)
	case *parse.RangeNode:
		walkFields(n.Pipe, fn)
		walkFields(n.List, fn)
		walkFields(n.ElseList, fn)
	case *parse.WithNode:
		walkFields(n.Pipe, fn)
		walkFields(n.List, fn)
		walkFields(n.ElseList, fn)
	}
}

// String returns the template's text.
func (x *IDTemplate) String() string { return x.text }

// Parameters returns the Terraform arguments the template names, in
// order of first use.
func (x *IDTemplate) Parameters() []string { return slices.Clone(x.params) }

// Setup returns the setup paths the template names (configuration.project,
// client_metadata.account_id), in order of first use.
func (x *IDTemplate) Setup() []string { return slices.Clone(x.setup) }

// MissingSetup returns the setup paths the template names that setup
// holds no value at.
func (x *IDTemplate) MissingSetup(setup map[string]any) []string {
	var out []string
	for _, p := range x.setup {
		if !hasPath(setup, strings.Split(p, ".")) {
			out = append(out, p)
		}
	}
	return out
}

// BindsExternalName reports whether the template names .external_name:
// the kind's ID then holds its external name, which an argument of the
// resource also holds (upjet's nameFieldPath).
func (x *IDTemplate) BindsExternalName() bool { return x.boundName }

// Render returns the Terraform ID of a resource with externalName,
// arguments parameters (Terraform names) and setup (configuration and
// client_metadata maps), or an error naming what is missing.
func (x *IDTemplate) Render(externalName string, parameters, setup map[string]any) (string, error) {
	if x.boundName && externalName == "" {
		return "", fmt.Errorf("ID template %q needs the external name, and it is empty", x.text)
	}
	var b bytes.Buffer
	data := map[string]any{tmplExternalName: externalName, tmplParameters: orEmpty(parameters), tmplSetup: orEmpty(setup)}
	if err := x.t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("cannot render ID template %q: %w", x.text, err)
	}
	if id := b.String(); !strings.Contains(id, noValue) {
		return id, nil
	}
	var missing []string
	for _, p := range x.params {
		if v, ok := parameters[p]; !ok || v == nil {
			missing = append(missing, ".parameters."+p)
		}
	}
	for _, p := range x.MissingSetup(setup) {
		missing = append(missing, ".setup."+p)
	}
	return "", fmt.Errorf("cannot render ID template %q: a value it prints is missing (of %s)", x.text, strings.Join(missing, ", "))
}

// noValue is what text/template prints for a value the data lacks.
const noValue = "<no value>"

// hasPath reports whether m holds a value at path, not a map.
func hasPath(m map[string]any, path []string) bool {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = mm[k]; !ok {
			return false
		}
	}
	_, isMap := cur.(map[string]any)
	return cur != nil && !isMap
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// externalNameAction matches the template action that holds the external
// name, as upjet's externalNameRegex does.
var externalNameAction = regexp.MustCompile(`{{\ *\.external_name\b\ *}}`)

// ExternalName returns the external name a Terraform ID rendered from the
// template holds, as upjet's GetExternalNameFromTemplated reads it back
// (what upjet sets after a create): the ID itself when the template does
// not name .external_name; else the part between the separators that
// surround the action in the template.
func (x *IDTemplate) ExternalName(id string) (string, error) {
	loc := externalNameAction.FindStringIndex(x.text)
	if loc == nil {
		return id, nil
	}
	left, right := "", ""
	if loc[0] > 0 {
		left = string(x.text[loc[0]-1])
	}
	if loc[1] < len(x.text) {
		right = string(x.text[loc[1]])
	}
	switch {
	case left == "" && right == "":
		return id, nil
	case left == "":
		return strings.Split(id, right)[0], nil
	case right == "":
		parts := strings.Split(id, left)
		return parts[len(parts)-1], nil
	}
	n := strings.Count(x.text[:loc[0]+1], left)
	parts := strings.SplitAfterN(id, left, n+1)
	return strings.Split(parts[len(parts)-1], right)[0], nil
}
