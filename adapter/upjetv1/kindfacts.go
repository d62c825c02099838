package upjetv1

import (
	"slices"

	"github.com/crossplane/upjet/pkg/config"
	"github.com/crossplane/upjet/pkg/types/name"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// KindFacts derives the strategy.Facts of a kind from its upjet
// configuration, so that strategy.Classify can choose its finder with no
// per-kind code. Provider is left empty: the caller knows it.
//
// Whether the ID is known before the create comes from r.ExternalName
// (adapter.ExternalNameFacts, which hands its functions a probe external
// name and tells the configurations apart).
//
// TagFields are the tags or labels map fields of the Terraform schema that
// spec.forProvider carries (not computed-only): tags, labels and any
// *_labels, by their JSON names (userLabels), sorted.
func KindFacts(r *config.Resource) strategy.Facts {
	f := strategy.Facts{TerraformResource: r.Name}
	en := r.ExternalName
	f.IDKnownBeforeCreate, f.ExternalNameConfig, f.Detail = adapter.ExternalNameFacts(en.DisableNameInitializer, en.SetIdentifierArgumentFn, en.GetIDFn)
	f.TagFields = tagFields(r.Name, r.TerraformResource)
	return f
}

// tagFields returns the JSON names of the tags and labels fields of
// spec.forProvider of the Terraform resource type tfResource, r, that can
// hold crossplane's tags (adapter.TagField); see KindFacts.
func tagFields(tfResource string, r *schema.Resource) []string {
	if r == nil {
		return nil
	}
	var out []string
	for k, s := range r.Schema {
		if s == nil || s.Type != schema.TypeMap || !(s.Optional || s.Required) {
			continue
		}
		if adapter.TagField(tfResource, k, s.ForceNew, s.Description) {
			out = append(out, name.NewFromSnake(k).LowerCamelComputed)
		}
	}
	slices.Sort(out)
	return out
}
