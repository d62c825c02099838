package config

import (
	"regexp"

	ujconfig "github.com/crossplane/upjet/pkg/config"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/pkg/errors"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
)

const (
	// ResourcePrefix is the prefix of the Terraform resource types that
	// provider-fakecloud manages.
	ResourcePrefix = "fakecloud"
	// ModulePath is the Go module that holds the provider.
	ModulePath = "github.com/intentjournal/intentjournal"
	// RootGroup is the API group suffix of the managed resources. Both kinds
	// live directly in fakecloud.intentjournal.io, so their short group is
	// empty.
	RootGroup = "fakecloud.intentjournal.io"

	// RecordSetResource is the Terraform type behind the RecordSet kind.
	RecordSetResource = "fakecloud_record_set"
	// NetworkResource is the Terraform type behind the Network kind.
	NetworkResource = "fakecloud_network"

	// providerSource is the address the schema document is keyed by, as in
	// the output of `terraform providers schema -json`.
	providerSource = "registry.terraform.io/intentjournal/fakecloud"
)

// GetProvider returns the upjet configuration of provider-fakecloud, built
// around a fresh instance of the fake cloud's SDKv2 Terraform provider. The
// same *schema.Provider is also what upjet's no-fork connectors call into, so
// the Go schema, not the JSON document, is authoritative.
func GetProvider(opts ...Option) (*ujconfig.Provider, error) {
	return newProvider(tfprovider.New(), opts...)
}

// Option configures GetProvider.
type Option func(*options)

type options struct {
	tagger ujconfig.NewInitializerFn
}

// WithUIDTag writes intentjournal's UID tag beside crossplane's external
// tags (upjetv1.TagInitializer in place of upjet's config.TagInitializer):
// the one line of configuration a provider wrapped with intentjournal
// changes, so recovery can tell its resources from look-alikes.
func WithUIDTag() Option {
	return func(o *options) { o.tagger = upjetv1.TagInitializer }
}

// newProvider builds the configuration around sdk. ujconfig.NewProvider
// panics on a schema it cannot use; newProvider turns that into an error.
func newProvider(sdk *schema.Provider, opts ...Option) (pc *ujconfig.Provider, err error) {
	o := options{tagger: ujconfig.TagInitializer}
	for _, fn := range opts {
		fn(&o)
	}
	if sdk == nil {
		return nil, errors.New("cannot configure provider: Terraform provider is nil")
	}
	schemaJSON, err := ProviderSchemaJSON(sdk)
	if err != nil {
		return nil, errors.Wrap(err, "cannot build the Terraform provider schema document")
	}
	defer func() {
		if r := recover(); r != nil {
			pc, err = nil, errors.Errorf("cannot configure provider: %v", r)
		}
	}()
	pc = ujconfig.NewProvider(schemaJSON, ResourcePrefix, ModulePath, nil,
		ujconfig.WithRootGroup(RootGroup),
		ujconfig.WithShortName(ResourcePrefix),
		ujconfig.WithTerraformProvider(sdk),
		// Every resource is reconciled in-process through the plugin SDK;
		// none through the Terraform CLI.
		ujconfig.WithIncludeList(nil),
		ujconfig.WithTerraformPluginSDKIncludeList(exact(RecordSetResource, NetworkResource)),
		ujconfig.WithDefaultResourceOptions(
			IdentifierFromProvider(),
			AddExternalTagsField(o.tagger),
		),
	)
	for _, configure := range []func(*ujconfig.Provider){
		configureRecordSet,
		configureNetwork,
	} {
		configure(pc)
	}
	pc.ConfigureResources()
	for _, name := range []string{RecordSetResource, NetworkResource} {
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

// AddExternalTagsField adds tagger (upjet's TagInitializer, or
// intentjournal's, which adds the UID tag) to resources whose schema has a
// tags map, so that crossplane-kind, crossplane-name and
// crossplane-providerconfig are written to spec.forProvider.tags before the
// first create. This is provider-upjet-aws's convention. upjet's Tagger sets
// the whole map, so user-supplied tags are replaced by the three external
// tags.
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
		// intentjournal: what upjet's configuration does not say. The
		// record set is found by zone and name after its managed resource
		// is gone, and the cloud keeps them unique although it assigns
		// the ID.
		upjetv1.Configure(r, upjetv1.NaturalKey("zone", "name"), upjetv1.NameKeyed())
	})
}

func configureNetwork(p *ujconfig.Provider) {
	p.AddResourceConfigurator(NetworkResource, func(r *ujconfig.Resource) {
		r.ShortGroup = ""
		r.Kind = "Network"
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
