package recovery

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// What a match is.
//
// A weak proof adopts a found resource only when applying the arguments
// the create sent to it would change nothing: the plan Terraform would
// make of those arguments against the resource's state is empty. Every
// path decides it that way:
//
//   - an in-process finder (upjet's connectors) from upjet's own
//     ResourceUpToDate, Terraform's diff;
//   - the Terraform importer, and the Terraform CLI kinds, from the plan
//     of the recorded arguments against the imported state;
//   - a finder that reads the resource another way (a cloud API) from
//     CompareArgs on the resource's Schema, which applies Terraform's
//     rules for a plan statically: whole values, arguments the create
//     left unset, defaults, sets as sets. A finder with no Schema cannot
//     claim a match, and its weak proofs are reported.

// Schema is what a comparison needs of a resource type's arguments: each
// argument's shape and whether Terraform plans a value for it when the
// configuration leaves it unset. Build one from the Terraform provider's
// schema (recovery/terraform's SchemaOf for the CLI's JSON schema, a
// line's adapter for the plugin SDK's).
type Schema struct {
	// Attributes are the arguments and nested blocks, by Terraform name.
	Attributes map[string]*Attribute
}

// AttrKind is the shape of an attribute's value.
type AttrKind string

// Attribute kinds.
const (
	KindScalar AttrKind = "scalar"
	KindList   AttrKind = "list"
	KindSet    AttrKind = "set"
	KindMap    AttrKind = "map"
	// KindObject is a single nested object (a block of nesting mode
	// single, or an attribute of object type).
	KindObject AttrKind = "object"
)

// Attribute is one argument or nested block of a Schema.
type Attribute struct {
	Kind AttrKind
	// Block is the schema of a nested block's (or object's) elements;
	// nil for primitive values and elements.
	Block *Schema
	// Required, Optional and Computed are Terraform's flags. An attribute
	// neither required nor optional is computed only: not an argument.
	Required, Optional, Computed bool
	// Sensitive is a value the resource's read may not report (upjet
	// omits it from status.atProvider); WriteOnly one it never reports.
	// Neither is compared where the read does not report it.
	Sensitive, WriteOnly bool
	// Default is the value Terraform plans for an optional argument the
	// configuration leaves unset (the plugin SDK's Default); nil for none.
	Default any
	// Normalize, when set, returns the canonical form of a value, as the
	// provider's diff suppression compares it (a DNS name's case and
	// trailing dot, a JSON document's spacing).
	Normalize func(any) any
}

// argument reports whether a is set by configuration at all.
func (a *Attribute) argument() bool { return a.Required || a.Optional }

// Comparison is what CompareArgs found.
type Comparison struct {
	// Match is ArgsSame when applying the arguments changes nothing,
	// ArgsDifferent when it would change something, and ArgsUnchecked
	// when the comparison cannot be made (no schema, or an argument the
	// schema does not know).
	Match ArgsMatch
	// Differ names the arguments that would change, in spec.forProvider's
	// spelling (upjet's lowerCamelCase of the Terraform name), sorted.
	Differ []string
	// NotCompared names the arguments the create set that could not be
	// compared (write-only, or sensitive and not reported), sorted.
	NotCompared []string
	// Why says why the comparison could not be made (ArgsUnchecked).
	Why string
}

// CompareArgs tells whether applying sent, the arguments a create sent
// (spec.forProvider, upjet's spelling, or Terraform's), to a resource
// whose state is observed (status.atProvider, or Terraform's attributes)
// would change it, as Terraform would plan it on schema s:
//
//   - an argument sent is compared whole: an extra map key, list element
//     or set member on either side differs; a set compares as a set;
//   - an optional argument the create left unset plans its Default (else
//     null): a resource holding another value differs; an optional and
//     computed one plans what the resource holds;
//   - a write-only argument, and a sensitive one the state does not
//     report, are not compared, and are named in NotCompared;
//   - numbers compare by value (300, 300.0 and "300" are one value);
//     empty lists, maps and strings equal null, as the plugin SDK
//     stores them; Attribute.Normalize applies first.
//
// With s nil, or an argument sent that s does not know (other than
// upjet's reference and selector fields), the match is ArgsUnchecked:
// a weak proof then does not adopt.
func CompareArgs(s *Schema, sent, observed map[string]any) Comparison {
	if s == nil {
		return Comparison{Match: ArgsUnchecked, Why: "no schema of the resource's arguments to compare them with"}
	}
	var c Comparison
	if err := compareBlock(s, "", sent, observed, &c); err != nil {
		return Comparison{Match: ArgsUnchecked, Why: err.Error()}
	}
	slices.Sort(c.Differ)
	c.Differ = slices.Compact(c.Differ)
	slices.Sort(c.NotCompared)
	c.Match = ArgsSame
	if len(c.Differ) > 0 {
		c.Match = ArgsDifferent
	}
	return c
}

// compareBlock compares one block's arguments, recording differing ones
// under the top-level argument top ("" at the top level).
func compareBlock(s *Schema, top string, sent, observed map[string]any, c *Comparison) error {
	byName := make(map[string]string, len(s.Attributes))
	for name := range s.Attributes {
		byName[name] = name
		byName[LowerCamel(name)] = name
	}
	for _, k := range slices.Sorted(maps.Keys(sent)) {
		if _, ok := byName[k]; ok || upjetOnly(k) {
			continue
		}
		where := k
		if top != "" {
			where = top + "." + k
		}
		return fmt.Errorf("the argument %s is not in the resource's schema", where)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Attributes)) {
		a := s.Attributes[name]
		if !a.argument() {
			continue
		}
		report := top
		if report == "" {
			report = LowerCamel(name)
		}
		want, wantSet := lookup(sent, name)
		have, haveSet := lookup(observed, name)
		if want = normalizedValue(want); unset(want) {
			wantSet = false
		}
		if a.WriteOnly || a.Sensitive && !haveSet {
			if wantSet {
				c.NotCompared = append(c.NotCompared, report)
			}
			continue
		}
		if !wantSet {
			if a.Computed {
				// Terraform keeps what the resource holds.
				continue
			}
			want = normalizedValue(a.Default)
		}
		if !a.equal(want, normalizedValue(have)) {
			c.Differ = append(c.Differ, report)
			continue
		}
		if err := a.compareNested(report, want, normalizedValue(have), c); err != nil {
			return err
		}
	}
	return nil
}

// compareNested checks nested blocks' own arguments for unknown names
// (equal already told whether they differ).
func (a *Attribute) compareNested(report string, want, have any, c *Comparison) error {
	if a.Block == nil || isNull(want) {
		return nil
	}
	for _, w := range elements(want) {
		wm, _ := w.(map[string]any)
		var probe Comparison
		if err := compareBlock(a.Block, report, wm, wm, &probe); err != nil {
			return err
		}
		c.NotCompared = append(c.NotCompared, probe.NotCompared...)
	}
	return nil
}

// equal reports whether want, the planned value, equals have, the state's.
func (a *Attribute) equal(want, have any) bool {
	if a.Normalize != nil {
		want, have = a.Normalize(want), a.Normalize(have)
	}
	if isNull(want) || isNull(have) {
		return isNull(want) && isNull(have)
	}
	switch a.Kind {
	case KindList, KindSet, KindObject:
		ws, hs := elements(want), elements(have)
		if len(ws) != len(hs) {
			return false
		}
		if a.Kind == KindSet {
			return a.sameSet(ws, hs)
		}
		for i := range ws {
			if !a.sameElement(ws[i], hs[i]) {
				return false
			}
		}
		return true
	case KindMap:
		wm, wok := want.(map[string]any)
		hm, hok := have.(map[string]any)
		if !wok || !hok || len(wm) != len(hm) {
			return false
		}
		for k, wv := range wm {
			hv, ok := hm[k]
			if !ok || !a.sameElement(wv, hv) {
				return false
			}
		}
		return true
	}
	return scalarEqual(want, have)
}

// sameElement compares one element of a collection: a nested block's by
// its schema (unset arguments as Terraform plans them), a primitive's by
// value.
func (a *Attribute) sameElement(want, have any) bool {
	if a.Block == nil {
		return scalarEqual(normalizedValue(want), normalizedValue(have))
	}
	wm, wok := want.(map[string]any)
	hm, hok := have.(map[string]any)
	if !wok || !hok {
		return false
	}
	var c Comparison
	if err := compareBlock(a.Block, "-", wm, hm, &c); err != nil {
		return false
	}
	return len(c.Differ) == 0
}

// sameSet matches every element of want with its own element of have.
func (a *Attribute) sameSet(want, have []any) bool {
	used := make([]bool, len(have))
next:
	for _, w := range want {
		for i, h := range have {
			if !used[i] && a.sameElement(w, h) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	return true
}

// elements returns a collection's elements; a single object (upjet's
// embedded singleton block) is one element.
func elements(v any) []any {
	switch o := v.(type) {
	case []any:
		return o
	case nil:
		return nil
	}
	return []any{v}
}

// scalarEqual compares primitives: numbers by value, whatever their
// spelling ("300" from a read that returns numbers as strings); other
// values as JSON.
func scalarEqual(a, b any) bool {
	if af, ok := number(a); ok {
		bf, ok := number(b)
		return ok && af == bf
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil && n != ""
	}
	return 0, false
}

// unset reports whether a configuration value leaves its argument unset:
// null, or an empty list or map (a zero or false is a value).
func unset(v any) bool {
	switch o := v.(type) {
	case nil:
		return true
	case []any:
		return len(o) == 0
	case map[string]any:
		return len(o) == 0
	}
	return false
}

// isNull reports whether v is what the plugin SDK stores for an unset
// value: nil, an empty string, list or map, zero or false.
func isNull(v any) bool {
	switch o := v.(type) {
	case nil:
		return true
	case string:
		return o == ""
	case float64:
		return o == 0
	case bool:
		return !o
	case []any:
		return len(o) == 0
	case map[string]any:
		return len(o) == 0
	}
	return false
}

// normalizedValue returns v as encoding/json decodes its JSON form.
func normalizedValue(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

// lookup returns m's value of the Terraform name name, spelt either way.
func lookup(m map[string]any, name string) (any, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	v, ok := m[LowerCamel(name)]
	return v, ok
}

// upjetOnly reports whether k is a field upjet adds to spec.forProvider
// that is no Terraform argument: a cross-resource reference or selector.
func upjetOnly(k string) bool {
	return strings.HasSuffix(k, "Ref") || strings.HasSuffix(k, "Refs") || strings.HasSuffix(k, "Selector")
}

// LowerCamel returns upjet's spelling of a Terraform name, the field of
// spec.forProvider that holds it: "cidr_block" becomes "cidrBlock".
func LowerCamel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
