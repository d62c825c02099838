// Package config is the upjet configuration of a provider over the real
// terraform-provider-google's Cloud DNS resources (package tfgoogle),
// shaped as provider-upjet-gcp's config package (read at 8da2207):
// the same default resource options, external names, per-kind
// configuration and singleton list handling, for two kinds,
// ManagedZone and RecordSet in group dns, both reconciled through
// upjet's plugin SDK client in the provider's process.
//
// The schema document, schema.json, is written by cmd/schema from
// tfgoogle.Provider; it matches what OpenTofu 1.12.6's
// `providers schema -json` prints for the same provider.
package config

import (
	// The schema document and the provider metadata are embedded, as in
	// provider-upjet-gcp.
	_ "embed"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/crossplane/upjet/v2/pkg/schema/traverser"
	conversiontfjson "github.com/crossplane/upjet/v2/pkg/types/conversion/tfjson"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/pkg/errors"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

const (
	// ResourcePrefix is the provider's short name, provider-upjet-gcp's.
	ResourcePrefix = "gcp"
	// ModulePath is the import path generated code would live under.
	ModulePath = "github.com/intentjournal/intentjournal/testbed/gcpdns"
	// RootGroup is the API group suffix of the cluster-scoped kinds:
	// ManagedZone is in dns.gcp.intentjournal.io.
	RootGroup = "gcp.intentjournal.io"
	// RootGroupNamespaced is the namespaced kinds' suffix, with ".m." as
	// provider-upjet-gcp's gcp.m.upbound.io.
	RootGroupNamespaced = "gcp.m.intentjournal.io"
	// VersionV1Beta1 is the version of every configured kind.
	VersionV1Beta1 = "v1beta1"
	// VersionV1Beta2 is the cluster-scoped version of the kinds whose
	// singleton lists became embedded objects (oldSingletonListAPIs).
	VersionV1Beta2 = "v1beta2"
)

//go:embed schema.json
var providerSchema []byte

//go:embed provider-metadata.yaml
var providerMetadata []byte

// controllerTemplate is the provider's own controller template, shaped as
// provider-upjet-gcp's (its header says how).
//
//go:embed templates/controller.go.tmpl
var controllerTemplate string

// basePackages are the hand-written packages the generated registration
// and setup files include: the provider configurations in
// apis/<scope>/v1beta1 and their controller in
// internal/controller/<scope>/providerconfig, as provider-upjet-gcp's.
// upjet's defaults also name an apis/<scope>/v1alpha1, which this
// provider does not have.
var basePackages = ujconfig.BasePackages{
	APIVersion:    []string{"v1beta1"},
	ControllerMap: map[string]string{"providerconfig": ujconfig.PackageNameConfig},
}

// oldSingletonListAPIs are the kinds provider-upjet-gcp serves at
// v1beta2 in the cluster scope (its config/old-singleton-list-apis.txt,
// cut to this provider's resources).
var oldSingletonListAPIs = map[string]bool{
	tfgoogle.ManagedZoneResource: true,
	tfgoogle.RecordSetResource:   true,
}

// GetProvider returns the configuration of the cluster-scoped kinds.
// sdk is the provider the controllers call in process (tfgoogle.Provider).
// With generation true, the kinds' schema is read from schema.json, with
// MaxItems taken from sdk, as provider-upjet-gcp's generator does: it
// keeps numbers float64 in the API types.
func GetProvider(sdk *schema.Provider, generation bool) (*ujconfig.Provider, error) {
	pc, err := newProvider(RootGroup, sdk, generation)
	if err != nil {
		return nil, err
	}
	for n, r := range pc.Resources {
		if len(r.CRDListConversionPaths()) == 0 {
			continue
		}
		if oldSingletonListAPIs[n] {
			r.Version = VersionV1Beta2
			r.SetCRDStorageVersion(r.Version)
			//lint:ignore SA1019 provider-upjet-gcp sets it too, to Version.
			r.ControllerReconcileVersion = r.Version
		}
		r.TerraformConversions = []ujconfig.TerraformConversion{ujconfig.NewTFSingletonConversion()}
	}
	return pc, nil
}

// GetProviderNamespaced returns the configuration of the namespaced kinds:
// GetProvider's, in RootGroupNamespaced, every kind at v1beta1.
func GetProviderNamespaced(sdk *schema.Provider, generation bool) (*ujconfig.Provider, error) {
	pc, err := newProvider(RootGroupNamespaced, sdk, generation)
	if err != nil {
		return nil, err
	}
	for _, r := range pc.Resources {
		if len(r.CRDListConversionPaths()) != 0 {
			r.TerraformConversions = []ujconfig.TerraformConversion{ujconfig.NewTFSingletonConversion()}
		}
	}
	return pc, nil
}

// newProvider builds the configuration of rootGroup. ujconfig.NewProvider
// panics on a schema or include list it cannot use; newProvider turns that
// into an error.
func newProvider(rootGroup string, sdk *schema.Provider, generation bool) (pc *ujconfig.Provider, err error) {
	if sdk == nil {
		return nil, errors.New("cannot configure provider: no Terraform provider")
	}
	if generation {
		if sdk, err = generationProvider(sdk); err != nil {
			return nil, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			pc, err = nil, errors.Errorf("cannot configure provider: %v", r)
		}
	}()
	pc = ujconfig.NewProvider(providerSchema, ResourcePrefix, ModulePath, providerMetadata,
		ujconfig.WithDefaultResourceOptions(
			externalNameConfig(),
			defaultVersion(),
			resourceConfigurator(),
			descriptionOverrides(),
			deletionPolicyOverride(),
		),
		ujconfig.WithRootGroup(rootGroup),
		ujconfig.WithShortName(ResourcePrefix),
		// No kind is reconciled through the Terraform CLI.
		ujconfig.WithIncludeList(nil),
		ujconfig.WithTerraformPluginSDKIncludeList(resourceList(terraformPluginSDKExternalNameConfigs)),
		ujconfig.WithTerraformProvider(sdk),
		ujconfig.WithSchemaTraversers(&ujconfig.SingletonListEmbedder{}),
		ujconfig.WithFeaturesPackage("internal/features"),
		ujconfig.WithBasePackages(basePackages),
		// The provider's own template, made crash-safe: the one line a
		// provider with its own template changes.
		ujconfig.WithControllerTemplate(upjetv2.MustWrapControllerTemplate(controllerTemplate)),
	)
	configureDNS(pc)
	pc.ConfigureResources()
	for n := range terraformPluginSDKExternalNameConfigs {
		if pc.Resources[n] == nil {
			return nil, errors.Errorf("cannot configure provider: the schema has no resource %q", n)
		}
	}
	return pc, nil
}

// generationProvider returns a provider whose resources are read from
// schema.json, with sdk's MaxItems constraints, as provider-upjet-gcp's
// getProviderSchema and its MaxItems sync build it for code generation.
func generationProvider(sdk *schema.Provider) (*schema.Provider, error) {
	ps := tfjson.ProviderSchemas{}
	if err := ps.UnmarshalJSON(providerSchema); err != nil {
		return nil, errors.Wrap(err, "cannot read the schema document")
	}
	if len(ps.Schemas) != 1 {
		return nil, errors.Errorf("the schema document has %d provider schemas, want 1", len(ps.Schemas))
	}
	var rs map[string]*tfjson.Schema
	for _, v := range ps.Schemas {
		rs = v.ResourceSchemas
	}
	p := &schema.Provider{ResourcesMap: conversiontfjson.GetV2ResourceMap(rs)}
	if err := traverser.TFResourceSchema(sdk.ResourcesMap).Traverse(traverser.NewMaxItemsSync(p.ResourcesMap)); err != nil {
		return nil, errors.Wrap(err, "cannot sync the MaxItems constraints between the Go schema and the JSON schema")
	}
	return p, nil
}

// configureDNS is provider-upjet-gcp's config/namespaced/dns Configure for
// these two kinds, with the one reference its reference injector adds from
// the registry examples (a record set's managed_zone to a ManagedZone).
// The zone's references to google_compute_network are left out: this
// provider has no Network kind.
func configureDNS(p *ujconfig.Provider) {
	p.AddResourceConfigurator(tfgoogle.RecordSetResource, func(r *ujconfig.Resource) {
		r.MarkAsRequired("managed_zone")
		delete(r.References, "name")
		r.References["managed_zone"] = ujconfig.Reference{TerraformName: tfgoogle.ManagedZoneResource}
	})
}

func defaultVersion() ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		r.Version = VersionV1Beta1
	}
}

// descriptionOverrides drops the Terraform descriptions, as
// provider-upjet-gcp does.
func descriptionOverrides() ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		ujconfig.ManipulateEveryField(r.TerraformResource, func(s *schema.Schema) {
			s.Description = ""
		})
	}
}

// deletionPolicyOverride moves deletion_policy to the status, as
// provider-upjet-gcp does for every resource that gained the argument in
// terraform-provider-google v7.33.0 (both of these did).
func deletionPolicyOverride() ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		ujconfig.MoveToStatus(r.TerraformResource, "deletion_policy")
	}
}
