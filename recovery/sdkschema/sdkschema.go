// Package sdkschema describes a Terraform plugin SDK resource's arguments
// as a recovery.Schema, so that recovery.CompareArgs can tell whether the
// arguments a create sent would change a resource found some other way
// than through Terraform (a cloud API read, an upjet observation).
//
// The plugin SDK's schema carries what Terraform's JSON schema does not:
// each optional argument's Default, which Terraform plans when the
// configuration leaves the argument unset.
package sdkschema

import (
	"reflect"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/recovery"
)

// Of returns the schema of r's arguments and nested blocks; nil for a nil
// r.
func Of(r *schema.Resource) *recovery.Schema {
	if r == nil {
		return nil
	}
	return block(r.Schema)
}

func block(m map[string]*schema.Schema) *recovery.Schema {
	out := &recovery.Schema{Attributes: make(map[string]*recovery.Attribute, len(m))}
	for name, s := range m {
		if s == nil {
			continue
		}
		a := &recovery.Attribute{
			Required: s.Required, Optional: s.Optional, Computed: s.Computed,
			Sensitive: s.Sensitive, WriteOnly: writeOnly(s), Default: s.Default,
		}
		switch s.Type {
		case schema.TypeList:
			a.Kind = recovery.KindList
		case schema.TypeSet:
			a.Kind = recovery.KindSet
		case schema.TypeMap:
			a.Kind = recovery.KindMap
		default:
			a.Kind = recovery.KindScalar
		}
		if r, ok := s.Elem.(*schema.Resource); ok && a.Kind != recovery.KindMap {
			a.Block = block(r.Schema)
		}
		out.Attributes[name] = a
	}
	return out
}

// writeOnly reads the plugin SDK's WriteOnly flag, which versions before
// v2.37.0 lack (the legacy line's upjet requires v2.30.0): read by name so
// that this package builds against either.
func writeOnly(s *schema.Schema) bool {
	f := reflect.ValueOf(s).Elem().FieldByName("WriteOnly")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}
