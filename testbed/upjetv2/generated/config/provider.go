package config

import (
	// The schema document and the provider metadata are embedded, as in
	// upjet-provider-template.
	_ "embed"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/pkg/errors"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/fwprovider"
)

const (
	// ResourcePrefix is the prefix of the Terraform resource types, and
	// the provider's short name.
	ResourcePrefix = "fakecloud"
	// ModulePath is the import path the generated code lives under.
	ModulePath = "github.com/intentjournal/intentjournal/testbed/upjetv2/generated"
	// RootGroup is the API group of the cluster-scoped managed resources.
	// Every kind lives directly in it (an empty short group).
	RootGroup = "fakecloud.intentjournal.io"
	// RootGroupNamespaced is the API group of the namespaced managed
	// resources: RootGroup with ".m.", as upjet-v2-upgrade.md recommends.
	RootGroupNamespaced = "fakecloud.m.intentjournal.io"
)

//go:embed schema.json
var providerSchema []byte

//go:embed provider-metadata.yaml
var providerMetadata []byte

// controllerTemplate is the provider's own controller template, shaped as
// provider-upjet-aws's and -gcp's (its header says how).
//
//go:embed templates/controller.go.tmpl
var controllerTemplate string

// basePackages are the hand-written packages the generated registration
// and setup files include: the ProviderConfig kinds in apis/<scope>/v1alpha1
// (their group and version are the hand-written test bed's) and their
// controller in internal/controller/<scope>/providerconfig. upjet's
// defaults also name an apis/<scope>/v1beta1, which this provider does
// not have.
var basePackages = ujconfig.BasePackages{
	APIVersion:    []string{"v1alpha1"},
	ControllerMap: map[string]string{"providerconfig": ujconfig.PackageNameConfig},
}

// GetProvider returns the upjet configuration of the cluster-scoped
// resources.
func GetProvider(opts ...Option) (*ujconfig.Provider, error) {
	return newProvider(RootGroup, opts...)
}

// GetProviderNamespaced returns the upjet configuration of the namespaced
// resources: GetProvider's, in RootGroupNamespaced.
func GetProviderNamespaced(opts ...Option) (*ujconfig.Provider, error) {
	return newProvider(RootGroupNamespaced, opts...)
}

// Option configures GetProvider and GetProviderNamespaced.
type Option func(*options)

type options struct {
	tagger ujconfig.NewInitializerFn
}

// WithTagger replaces upjet's config.TagInitializer, which writes
// crossplane-kind, crossplane-name and crossplane-providerconfig into
// spec.forProvider.tags before the first create, with tagger: the one line
// of configuration a provider wrapped with intentjournal changes.
func WithTagger(tagger ujconfig.NewInitializerFn) Option {
	return func(o *options) { o.tagger = tagger }
}

// newProvider builds the configuration of rootGroup. ujconfig.NewProvider
// panics on a schema or include list it cannot use; newProvider turns that
// into an error.
func newProvider(rootGroup string, opts ...Option) (pc *ujconfig.Provider, err error) {
	o := options{tagger: ujconfig.TagInitializer}
	for _, fn := range opts {
		fn(&o)
	}
	defer func() {
		if r := recover(); r != nil {
			pc, err = nil, errors.Errorf("cannot configure provider: %v", r)
		}
	}()
	pc = ujconfig.NewProvider(providerSchema, ResourcePrefix, ModulePath, providerMetadata,
		ujconfig.WithRootGroup(rootGroup),
		ujconfig.WithShortName(ResourcePrefix),
		// One include list per connector; a resource in two panics.
		ujconfig.WithIncludeList(exact(CLIResources...)),
		ujconfig.WithTerraformProvider(tfprovider.New()),
		ujconfig.WithTerraformPluginSDKIncludeList(exact(SDKResources...)),
		ujconfig.WithTerraformPluginFrameworkProvider(fwprovider.New()),
		ujconfig.WithTerraformPluginFrameworkIncludeList(exact(FrameworkResources...)),
		ujconfig.WithDefaultResourceOptions(
			IdentifierFromProvider(),
			AddExternalTagsField(o.tagger),
		),
		ujconfig.WithBasePackages(basePackages),
		ujconfig.WithFeaturesPackage("internal/features"),
		// The provider's own template, made crash-safe: the one line a
		// provider with its own template changes.
		ujconfig.WithControllerTemplate(upjetv2.MustWrapControllerTemplate(controllerTemplate)),
	)
	for _, configure := range configurators {
		configure(pc)
	}
	pc.ConfigureResources()
	for _, name := range Resources() {
		if pc.Resources[name] == nil {
			return nil, errors.Errorf("cannot configure provider: the schema has no resource %q", name)
		}
	}
	return pc, nil
}
