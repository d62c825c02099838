package config

import (
	"regexp"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	fwprov "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/pkg/errors"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/fwprovider"
)

const (
	// ResourcePrefix is the prefix of the Terraform resource types that
	// provider-fakecloud manages.
	ResourcePrefix = "fakecloud"
	// ModulePath is the Go module that holds the provider.
	ModulePath = "github.com/intentjournal/intentjournal/adapter/upjetv2"
	// RootGroup is the API group of the cluster-scoped managed resources.
	// Both kinds live directly in it, so their short group is empty.
	RootGroup = "fakecloud.intentjournal.io"
	// RootGroupNamespaced is the API group of the namespaced managed
	// resources: RootGroup with ".m.", as upjet-v2-upgrade.md recommends.
	RootGroupNamespaced = "fakecloud.m.intentjournal.io"

	// RecordSetResource is the Terraform type behind the RecordSet kind.
	RecordSetResource = "fakecloud_record_set"
	// NetworkResource is the Terraform type behind the Network kind.
	NetworkResource = "fakecloud_network"
	// AddressResource is the Terraform type behind the Address kind, the
	// one served by a terraform-plugin-framework resource (namespaced only).
	AddressResource = fwprovider.AddressResource
	// RecordResource is the Terraform type behind the Record kind
	// (namespaced only): the fake cloud's record set as GCP's
	// google_dns_record_set presents it, with no tags and a Terraform ID
	// composed from zone, name and type (tfprovider.RecordID).
	RecordResource = "fakecloud_record"
	// BucketResource is the Terraform type behind the Bucket kind
	// (namespaced only): the fake cloud's bucket as AWS's aws_s3_bucket
	// presents an S3 bucket, named by its bucket argument, which is also
	// its Terraform ID, and unique in the whole cloud.
	BucketResource = "fakecloud_bucket"

	// RecordIDTemplate is the Record's ID template, in upjet's syntax:
	// what the recovery pass renders to find what an interrupted create
	// made (upjetv2.NewFinders, observe-by-template). It follows
	// tfprovider.RecordID, as recovery/strategy's built-in
	// google_dns_record_set template follows resourceDnsRecordSetCreate.
	RecordIDTemplate = "zones/{{ .parameters.zone }}/records/{{ .parameters.name }}/{{ .parameters.type }}"

	// providerSource is the address the schema document is keyed by, as in
	// the output of `terraform providers schema -json`.
	providerSource = "registry.terraform.io/intentjournal/fakecloud"
)

// GetProvider returns the upjet configuration of the cluster-scoped
// resources, built around a fresh instance of the fake cloud's SDKv2
// Terraform provider. The same *schema.Provider is also what upjet's
// no-fork connectors call into, so the Go schema, not the JSON document, is
// authoritative.
func GetProvider(opts ...Option) (*ujconfig.Provider, error) {
	return newProvider(tfprovider.New(), nil, RootGroup, opts...)
}

// GetProviderNamespaced returns the upjet configuration of the namespaced
// resources: GetProvider's, in RootGroupNamespaced; the Address kind,
// whose resource is served by the terraform-plugin-framework provider
// fwprovider and reconciled through upjet's framework connector; the
// Record kind, built like GCP's DNS record set (IdentifierFromProvider, no
// tags, an ID composed from its spec); and the Bucket kind, configured as
// provider-upjet-aws configures the S3 bucket
// (ParameterAsIdentifier("bucket"): the external name is the ID).
func GetProviderNamespaced(opts ...Option) (*ujconfig.Provider, error) {
	return newProvider(tfprovider.New(), fwprovider.New(), RootGroupNamespaced, opts...)
}

// Option configures GetProvider and GetProviderNamespaced.
type Option func(*options)

type options struct {
	tagger ujconfig.NewInitializerFn
}

// WithTagger replaces upjet's config.TagInitializer, which writes
// crossplane-kind, crossplane-name and crossplane-providerconfig into
// spec.forProvider.tags before the first create, with tagger. It is the one
// line of configuration a provider wrapped with intentjournal changes (its
// tagger adds a UID tag, so recovery can tell its resources from
// look-alikes).
func WithTagger(tagger ujconfig.NewInitializerFn) Option {
	return func(o *options) { o.tagger = tagger }
}

// newProvider builds the configuration of rootGroup around sdk and, when fw
// is not nil, fw's Address resource. ujconfig.NewProvider panics on a
// schema it cannot use; newProvider turns that into an error.
func newProvider(sdk *schema.Provider, fw fwprov.Provider, rootGroup string, opts ...Option) (pc *ujconfig.Provider, err error) {
	o := options{tagger: ujconfig.TagInitializer}
	for _, fn := range opts {
		fn(&o)
	}
	if sdk == nil {
		return nil, errors.New("cannot configure provider: Terraform provider is nil")
	}
	schemaJSON, err := ProviderSchemaJSON(sdk, fw)
	if err != nil {
		return nil, errors.Wrap(err, "cannot build the Terraform provider schema document")
	}
	defer func() {
		if r := recover(); r != nil {
			pc, err = nil, errors.Errorf("cannot configure provider: %v", r)
		}
	}()
	want := []string{RecordSetResource, NetworkResource}
	sdkKinds := []string{RecordSetResource, NetworkResource}
	if rootGroup == RootGroupNamespaced {
		sdkKinds = append(sdkKinds, RecordResource, BucketResource)
		want = append(want, RecordResource, BucketResource)
	}
	popts := []ujconfig.ProviderOption{
		ujconfig.WithRootGroup(rootGroup),
		ujconfig.WithShortName(ResourcePrefix),
		ujconfig.WithTerraformProvider(sdk),
		// Every resource is reconciled in-process, through the plugin SDK
		// or the plugin framework; none through the Terraform CLI.
		ujconfig.WithIncludeList(nil),
		ujconfig.WithTerraformPluginSDKIncludeList(exact(sdkKinds...)),
		ujconfig.WithDefaultResourceOptions(
			IdentifierFromProvider(),
			AddExternalTagsField(o.tagger),
		),
	}
	if fw != nil {
		// As provider-upjet-aws configures its framework resources: the
		// framework provider, and an include list of its own.
		popts = append(popts,
			ujconfig.WithTerraformPluginFrameworkProvider(fw),
			ujconfig.WithTerraformPluginFrameworkIncludeList(exact(AddressResource)))
		want = append(want, AddressResource)
	}
	pc = ujconfig.NewProvider(schemaJSON, ResourcePrefix, ModulePath, nil, popts...)
	for _, configure := range []func(*ujconfig.Provider){
		configureRecordSet,
		configureNetwork,
		configureAddress,
		configureRecord,
		configureBucket,
	} {
		configure(pc)
	}
	pc.ConfigureResources()
	for _, name := range want {
		if pc.Resources[name] == nil {
			return nil, errors.Errorf("cannot configure provider: Terraform provider has no resource %q", name)
		}
	}
	return pc, nil
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
// user-supplied tags are replaced. It writes no crossplane-namespace tag,
// although crossplane-runtime v2's resource.GetExternalTags returns one for
// a namespaced resource: two namespaced MRs of one name in two namespaces
// get the same tags.
func AddExternalTagsField(tagger ujconfig.NewInitializerFn) ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		if s, ok := r.TerraformResource.Schema["tags"]; ok && s.Type == schema.TypeMap {
			r.InitializerFns = append(r.InitializerFns, tagger)
		}
	}
}

func configureRecordSet(p *ujconfig.Provider) {
	p.AddResourceConfigurator(RecordSetResource, func(r *ujconfig.Resource) {
		r.ShortGroup = ""
		r.Kind = "RecordSet"
	})
}

func configureNetwork(p *ujconfig.Provider) {
	p.AddResourceConfigurator(NetworkResource, func(r *ujconfig.Resource) {
		r.ShortGroup = ""
		r.Kind = "Network"
	})
}

func configureAddress(p *ujconfig.Provider) {
	p.AddResourceConfigurator(AddressResource, func(r *ujconfig.Resource) {
		r.ShortGroup = ""
		r.Kind = "Address"
	})
}

func configureRecord(p *ujconfig.Provider) {
	p.AddResourceConfigurator(RecordResource, func(r *ujconfig.Resource) {
		r.ShortGroup = ""
		r.Kind = "Record"
	})
}

// configureBucket names the bucket by its external name, as
// provider-upjet-aws's s3 config does for aws_s3_bucket. It runs after the
// default IdentifierFromProvider and replaces it.
func configureBucket(p *ujconfig.Provider) {
	p.AddResourceConfigurator(BucketResource, func(r *ujconfig.Resource) {
		r.ShortGroup = ""
		r.Kind = "Bucket"
		r.ExternalName = ujconfig.ParameterAsIdentifier("bucket")
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
