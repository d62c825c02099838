package upjetv1

import (
	"maps"
	"slices"

	"github.com/crossplane/upjet/pkg/config"
	"github.com/crossplane/upjet/pkg/terraform"
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
// (adapter.ProbeExternalName, which hands its functions a probe external
// name, parameters synthesised from the Terraform schema and a setup of
// upjet's own types, and tells the configurations apart).
//
// TagFields are the tags or labels map fields of the Terraform schema that
// spec.forProvider carries (not computed-only): tags, labels and any
// *_labels, by their JSON names (userLabels), sorted.
func KindFacts(r *config.Resource) strategy.Facts {
	f := strategy.Facts{TerraformResource: r.Name}
	en := r.ExternalName
	nf := adapter.ProbeExternalName(adapter.NameProbe{DisableNameInitializer: en.DisableNameInitializer,
		SetIdentifierArgument: en.SetIdentifierArgumentFn, GetID: en.GetIDFn,
		Parameters: probeParameters(r.TerraformResource), Setup: probeSetup})
	f.IDKnownBeforeCreate, f.IDFromSpec, f.ExternalNameConfig, f.Detail = nf.IDKnownBeforeCreate, nf.IDFromSpec, nf.Config, nf.Detail
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

// probeSetup is the setup ProbeExternalName hands a GetIDFn: upjet's own
// terraform.Setup.Map, with placeholders where provider-upjet-aws, -gcp
// and -azure's GetIDFns read it (region, project, zone, subscription,
// account).
var probeSetup = terraform.Setup{
	Configuration: terraform.ProviderConfiguration{
		"region": "intentjournal-probe-region", "project": "intentjournal-probe-project", "zone": "intentjournal-probe-zone",
		"subscription_id": "intentjournal-probe-subscription",
	},
	ClientMetadata: map[string]string{"account_id": "intentjournal-probe-account", "region": "intentjournal-probe-region"},
}.Map()

// probeParameters returns ProbeExternalName's parameter sets for the
// Terraform resource r: its string, number, list and block arguments
// (adapter.ProbeParameters).
func probeParameters(r *schema.Resource) [2]map[string]any {
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
