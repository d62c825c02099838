package strategy

import (
	"bufio"
	_ "embed" // the default templates
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Templates maps Terraform resource types to their ID templates. The zero
// value holds none. Build one with NewTemplates, DecodeTemplates or
// DefaultTemplates: every template in it has been checked.
type Templates struct {
	byResource map[string]*Template
}

// resourceType is what a Terraform resource type looks like.
var resourceType = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// NewTemplates parses and checks a template per Terraform resource type.
// Errors wrap ErrBadTemplate and name the resource type.
func NewTemplates(src map[string]string) (Templates, error) {
	t := Templates{byResource: make(map[string]*Template, len(src))}
	for _, r := range slices.Sorted(maps.Keys(src)) {
		if !resourceType.MatchString(r) {
			return Templates{}, fmt.Errorf("%w: %q is not a Terraform resource type", ErrBadTemplate, r)
		}
		p, err := ParseTemplate(src[r])
		if err != nil {
			return Templates{}, fmt.Errorf("template of %s: %w", r, err)
		}
		t.byResource[r] = p
	}
	return t, nil
}

// Lookup returns the template of a Terraform resource type.
func (t Templates) Lookup(resource string) (*Template, bool) {
	p, ok := t.byResource[resource]
	return p, ok
}

// Resources returns the resource types that have a template, sorted.
func (t Templates) Resources() []string {
	return slices.Sorted(maps.Keys(t.byResource))
}

// Len returns the number of templates.
func (t Templates) Len() int { return len(t.byResource) }

//go:embed templates/default.tsv
var defaultTemplates string

// DefaultTemplates returns the templates built in from
// templates/default.tsv: the kinds whose cloud-assigned ID their spec
// determines, with the ID format of their Terraform provider's source.
func DefaultTemplates() (Templates, error) {
	t, err := DecodeTemplates(strings.NewReader(defaultTemplates))
	if err != nil {
		return Templates{}, fmt.Errorf("built-in templates/default.tsv: %w", err)
	}
	return t, nil
}

// maxLine bounds a line of the kinds and templates files.
const maxLine = 64 << 10

// DecodeTemplates reads a templates file (see the package documentation).
// Errors name the line and wrap ErrBadTemplate; it never panics.
func DecodeTemplates(r io.Reader) (Templates, error) {
	t := Templates{byResource: map[string]*Template{}}
	firstLine := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		res, src, ok := strings.Cut(line, "\t")
		switch {
		case !ok:
			return Templates{}, fmt.Errorf("%w: line %d: want RESOURCE<TAB>TEMPLATE", ErrBadTemplate, n)
		case !resourceType.MatchString(res):
			return Templates{}, fmt.Errorf("%w: line %d: %q is not a Terraform resource type", ErrBadTemplate, n, res)
		case strings.TrimSpace(src) != src:
			return Templates{}, fmt.Errorf("%w: line %d: the template of %s has leading or trailing blanks, which would be part of the ID", ErrBadTemplate, n, res)
		case strings.ContainsFunc(src, isControlNotTab):
			return Templates{}, fmt.Errorf("%w: line %d: the template of %s holds a control character", ErrBadTemplate, n, res)
		}
		if first, dup := firstLine[res]; dup {
			return Templates{}, fmt.Errorf("%w: line %d: %s already has a template, on line %d", ErrBadTemplate, n, res, first)
		}
		p, err := ParseTemplate(src)
		if err != nil {
			return Templates{}, fmt.Errorf("line %d: template of %s: %w", n, res, err)
		}
		firstLine[res] = n
		t.byResource[res] = p
	}
	if err := sc.Err(); err != nil {
		return Templates{}, fmt.Errorf("%w: after line %d: %w", ErrBadTemplate, n, err)
	}
	return t, nil
}

// EncodeTemplates writes t in the format DecodeTemplates reads, sorted by
// resource type.
func EncodeTemplates(w io.Writer, t Templates) error {
	bw := bufio.NewWriter(w)
	for _, r := range t.Resources() {
		fmt.Fprintf(bw, "%s\t%s\n", r, t.byResource[r].String())
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cannot write the templates: %w", err)
	}
	return nil
}

func isControlNotTab(r rune) bool { return r != '\t' && unicode.IsControl(r) }
