package upjetv2

import (
	"slices"

	"github.com/crossplane/upjet/v2/pkg/config"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/crossplane/upjet/v2/pkg/types/name"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery/sdkschema"
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
// spec.forProvider carries (not computed-only) and that can hold
// crossplane's tags: tags, labels and any *_labels, by their JSON names
// (userLabels), sorted; not those that hold something else (notTagFields):
// Kubernetes node labels and GCP's Resource Manager tag bindings. For a Terraform
// plugin framework resource upjet builds that schema from the provider's
// schema document, so its tags are found too (the test bed's Address: its
// TestNewFindersTestBed).
func KindFacts(r *config.Resource) strategy.Facts {
	f := strategy.Facts{TerraformResource: r.Name}
	en := r.ExternalName
	nf := adapter.ProbeExternalName(adapter.NameProbe{DisableNameInitializer: en.DisableNameInitializer,
		SetIdentifierArgument: en.SetIdentifierArgumentFn, GetID: en.GetIDFn,
		Parameters: sdkschema.ProbeParameters(r.TerraformResource), Setup: probeSetup})
	f.IDKnownBeforeCreate, f.IDFromSpec, f.ExternalNameConfig, f.Detail = nf.IDKnownBeforeCreate, nf.IDFromSpec, nf.Config, nf.Detail
	f.TagFields = tagFields(r.Name, r.TerraformResource)
	return f
}

// tagFields returns the JSON names of the tags and labels fields of
// spec.forProvider of the Terraform resource type tfResource, r
// (sdkschema.TagFields), sorted.
func tagFields(tfResource string, r *schema.Resource) []string {
	var out []string
	for _, k := range sdkschema.TagFields(tfResource, r) {
		out = append(out, name.NewFromSnake(k).LowerCamelComputed)
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
