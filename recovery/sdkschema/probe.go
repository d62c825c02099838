package sdkschema

import (
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/adapter"
)

// TagFields returns the Terraform names of the map arguments of r, the
// resource type tfResource, that spec.forProvider carries (not
// computed-only) and that can hold crossplane's tags (adapter.TagField:
// tags, labels and any *_labels, not Kubernetes node labels nor GCP's
// Resource Manager tag bindings), sorted. For a Terraform plugin framework
// resource upjet builds r from the provider's schema document, so its
// tags are found too.
func TagFields(tfResource string, r *schema.Resource) []string {
	if r == nil {
		return nil
	}
	var out []string
	for k, s := range r.Schema {
		if s == nil || s.Type != schema.TypeMap || !(s.Optional || s.Required) {
			continue
		}
		if adapter.TagField(tfResource, k, s.ForceNew, s.Description) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ProbeParameters returns adapter.ProbeExternalName's parameter sets for
// the Terraform resource r: its string, number, list and block arguments
// (adapter.ProbeParameters).
func ProbeParameters(r *schema.Resource) [2]map[string]any {
	if r == nil {
		return adapter.ProbeParameters(nil)
	}
	return adapter.ProbeParameters(probeArgs(r.Schema))
}

// probeArgs returns the arguments of s that spec.forProvider carries.
func probeArgs(s map[string]*schema.Schema) []adapter.ProbeArg {
	var out []adapter.ProbeArg
	for _, k := range slices.Sorted(maps.Keys(s)) {
		a := s[k]
		if a == nil || !(a.Optional || a.Required) {
			continue
		}
		switch a.Type {
		case schema.TypeString:
			out = append(out, adapter.ProbeArg{Name: k, Kind: adapter.ProbeString})
		case schema.TypeInt, schema.TypeFloat:
			out = append(out, adapter.ProbeArg{Name: k, Kind: adapter.ProbeNumber})
		case schema.TypeList, schema.TypeSet:
			switch e := a.Elem.(type) {
			case *schema.Resource:
				out = append(out, adapter.ProbeArg{Name: k, Kind: adapter.ProbeBlock, Block: probeArgs(e.Schema)})
			case *schema.Schema:
				if e.Type == schema.TypeString {
					out = append(out, adapter.ProbeArg{Name: k, Kind: adapter.ProbeList})
				}
			}
		}
	}
	return out
}

// RequiredArguments returns the required top-level arguments of r that
// are not blocks, sorted: what an import block's resource block must set.
func RequiredArguments(r *schema.Resource) []string {
	if r == nil {
		return nil
	}
	var out []string
	for k, s := range r.Schema {
		if s == nil || !s.Required {
			continue
		}
		if _, block := s.Elem.(*schema.Resource); block {
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TagsAttribute returns the attribute that holds r's tags: tags, else
// labels, as the in-process observations are read
// (adapter.ObservedResource).
func TagsAttribute(r *schema.Resource) string {
	if r != nil {
		for _, k := range []string{"tags", "labels"} {
			if _, ok := r.Schema[k]; ok {
				return k
			}
		}
	}
	return "tags"
}
