package config

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/fwprovider"
)

// The Terraform resource types, and the kinds upjet generates for them.
const (
	// RecordSetResource is the Terraform type behind the RecordSet kind.
	RecordSetResource = "fakecloud_record_set"
	// RecordResource is the Terraform type behind the Record kind: the
	// fake cloud's record set as GCP's google_dns_record_set presents it,
	// with no tags and a Terraform ID composed from zone, name and type
	// (tfprovider.RecordID).
	RecordResource = "fakecloud_record"
	// AddressResource is the Terraform type behind the Address kind, the
	// one served by a terraform-plugin-framework resource.
	AddressResource = fwprovider.AddressResource
	// NetworkResource is the Terraform type behind the Network kind.
	NetworkResource = "fakecloud_network"
	// CLIRecordSetResource and CLINetworkResource are the Terraform types
	// behind the CLIRecordSet and CLINetwork kinds: the fake cloud's
	// record set and network again (tfprovider.CLIRecordSetResource), for
	// the Terraform CLI connector. upjet binds a Terraform type to one
	// connector; these two put both shapes of crossplane/upjet#561 on the
	// CLI while the RecordSet and Network stay on the plugin SDK.
	CLIRecordSetResource = tfprovider.CLIRecordSetResource
	CLINetworkResource   = tfprovider.CLINetworkResource
	// LateTagNetworkResource is the Terraform type behind the
	// LateTagNetwork kind: the network, tagged in a call after the one
	// that makes it (tfprovider.LateTagNetworkResource), as AWS's
	// aws_route53_zone is. It is declared upjetv2.TagsAfterCreate.
	LateTagNetworkResource = tfprovider.LateTagNetworkResource
	// SpecRecordResource is the Terraform type behind the SpecRecord
	// kind: the record again (tfprovider.SpecRecordResource), configured
	// as provider-upjet-aws's FormattedIdentifierFromProvider configures
	// a kind (configureSpecRecord): no external name before the create,
	// and its Terraform ID built from zone, name and type alone.
	SpecRecordResource = tfprovider.SpecRecordResource
	// NamedRecordResource is the Terraform type behind the NamedRecord
	// kind: the record again (tfprovider.NamedRecordResource), configured
	// as provider-upjet-gcp and -azure configure most of their kinds
	// (configureNamedRecord): its external name the name argument, bound
	// into a templated ID, known before the create.
	NamedRecordResource = tfprovider.NamedRecordResource
	// NamedRecordIDTemplate is the NamedRecord's templated ID, in upjet's
	// syntax: tfprovider.RecordID with the external name for the name.
	NamedRecordIDTemplate = "zones/{{ .parameters.zone }}/records/{{ .external_name }}/{{ .parameters.type }}"
	// BucketResource is the Terraform type behind the Bucket kind: the
	// fake cloud's bucket as AWS's aws_s3_bucket presents an S3 bucket,
	// named by its bucket argument, which is also its Terraform ID.
	BucketResource = "fakecloud_bucket"

	// RecordIDTemplate is the Record's ID template, in upjet's syntax:
	// what a recovery pass renders to find what an interrupted create made
	// (observe-by-template). It follows tfprovider.RecordID.
	RecordIDTemplate = "zones/{{ .parameters.zone }}/records/{{ .parameters.name }}/{{ .parameters.type }}"
)

var (
	// SDKResources are reconciled through upjet's no-fork Terraform plugin
	// SDK client, in the provider's process.
	SDKResources = []string{RecordSetResource, NetworkResource, RecordResource, BucketResource, LateTagNetworkResource, SpecRecordResource, NamedRecordResource}
	// FrameworkResources are reconciled through upjet's no-fork Terraform
	// plugin framework client, in the provider's process.
	FrameworkResources = []string{AddressResource}
	// CLIResources are reconciled through the Terraform CLI: upjet runs
	// terraform (OpenTofu, in the test bed) in a workspace per managed
	// resource, with terraform-provider-fakecloud as its provider.
	// The CLIRecordSet (unique by zone and name, its ID assigned by the
	// cloud) and the CLINetwork (only its ID tells two apart) are the two
	// shapes of crossplane/upjet#561: a repeated create meets 409, or
	// makes a duplicate.
	CLIResources = []string{CLIRecordSetResource, CLINetworkResource}
)

// Resources returns every Terraform resource type the provider configures.
func Resources() []string {
	return slices.Concat(SDKResources, FrameworkResources, CLIResources)
}

// kinds maps each Terraform type to its kind. upjet would derive the
// short group and kind from the type's name (group "record", kind "Set"
// for fakecloud_record_set); every kind lives in the root group instead.
var kinds = map[string]string{
	RecordSetResource:      "RecordSet",
	RecordResource:         "Record",
	AddressResource:        "Address",
	NetworkResource:        "Network",
	BucketResource:         "Bucket",
	CLIRecordSetResource:   "CLIRecordSet",
	CLINetworkResource:     "CLINetwork",
	LateTagNetworkResource: "LateTagNetwork",
	SpecRecordResource:     "SpecRecord",
	NamedRecordResource:    "NamedRecord",
}

// configurators are the per-resource configuration, run by newProvider
// after the default resource options.
var configurators = []func(*ujconfig.Provider){
	configureKinds,
	configureBucket,
	configureSpecRecord,
	configureNamedRecord,
	configureIntentJournal,
}

// IdentifierFromProvider configures every resource to take its external name
// from the ID the fake cloud assigns on create. Until the first Observe after
// a successful create, the external name is therefore empty: that window is
// the hazard intentjournal closes.
func IdentifierFromProvider() ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		r.ExternalName = ujconfig.IdentifierFromProvider
	}
}

// AddExternalTagsField adds tagger to resources whose schema has a tags
// map, as provider-upjet-aws does. upjet v2.3.0's Tagger sets the whole map
// to crossplane-kind, crossplane-name and crossplane-providerconfig, so
// user-supplied tags are replaced.
func AddExternalTagsField(tagger ujconfig.NewInitializerFn) ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		if s, ok := r.TerraformResource.Schema["tags"]; ok && s.Type == schema.TypeMap {
			r.InitializerFns = append(r.InitializerFns, tagger)
		}
	}
}

// configureKinds puts every kind directly in the root group, under the
// names of kinds.
func configureKinds(p *ujconfig.Provider) {
	for name, kind := range kinds {
		p.AddResourceConfigurator(name, func(r *ujconfig.Resource) {
			r.ShortGroup = ""
			r.Kind = kind
		})
	}
}

// configureBucket names the bucket by its external name, as
// provider-upjet-aws's s3 config does for aws_s3_bucket. It runs after the
// default IdentifierFromProvider and replaces it.
func configureBucket(p *ujconfig.Provider) {
	p.AddResourceConfigurator(BucketResource, func(r *ujconfig.Resource) {
		r.ExternalName = ujconfig.ParameterAsIdentifier("bucket")
	})
}

// configureSpecRecord configures the SpecRecord as provider-upjet-aws's
// FormattedIdentifierFromProvider(separator, keys...) configures a kind
// (config/externalname.go there): IdentifierFromProvider, so no external
// name before the create, with a GetIDFn that builds the Terraform ID
// from arguments alone, failing when one is missing; here the record's
// own ID, tfprovider.RecordID.
func configureSpecRecord(p *ujconfig.Provider) {
	p.AddResourceConfigurator(SpecRecordResource, func(r *ujconfig.Resource) {
		e := ujconfig.IdentifierFromProvider
		e.GetIDFn = func(_ context.Context, _ string, parameters map[string]any, _ map[string]any) (string, error) {
			var v [3]string
			for i, key := range []string{"zone", "name", "type"} {
				s, ok := parameters[key].(string)
				if !ok || s == "" {
					return "", fmt.Errorf("%s cannot be empty", key)
				}
				v[i] = s
			}
			return tfprovider.RecordID(v[0], v[1], v[2]), nil
		}
		r.ExternalName = e
	})
}

// configureNamedRecord configures the NamedRecord as provider-upjet-gcp
// configures google_dns_managed_zone, and most GCP and Azure kinds:
// TemplatedStringAsIdentifier with the name argument bound to the
// external name.
func configureNamedRecord(p *ujconfig.Provider) {
	p.AddResourceConfigurator(NamedRecordResource, func(r *ujconfig.Resource) {
		r.ExternalName = ujconfig.TemplatedStringAsIdentifier("name", NamedRecordIDTemplate)
	})
}

// configureIntentJournal records what intentjournal needs to know of a
// kind and upjet's configuration does not say (upjetv2.Configure); the
// generated controllers read it at run time through upjetv2.KindFor. The
// record sets' key is their zone and name, though the cloud assigns their
// IDs; the Record's ID is composed from zone, name and type by its
// provider's own code, which no ID template in its configuration shows;
// the LateTagNetwork is tagged after its create.
func configureIntentJournal(p *ujconfig.Provider) {
	for _, name := range []string{RecordSetResource, CLIRecordSetResource} {
		p.AddResourceConfigurator(name, func(r *ujconfig.Resource) {
			upjetv2.Configure(r, upjetv2.NaturalKey("zone", "name"), upjetv2.NameKeyed())
		})
	}
	p.AddResourceConfigurator(RecordResource, func(r *ujconfig.Resource) {
		upjetv2.Configure(r, upjetv2.NaturalKey("zone", "name", "type"))
	})
	// A kind of the provider's own that tags after its create (the
	// shipped lists cover terraform-provider-aws's and -google's).
	p.AddResourceConfigurator(LateTagNetworkResource, func(r *ujconfig.Resource) {
		upjetv2.Configure(r, upjetv2.TagsAfterCreate())
	})
}

// exact returns anchored regular expressions matching exactly names.
func exact(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "^" + regexp.QuoteMeta(n) + "$"
	}
	return out
}
