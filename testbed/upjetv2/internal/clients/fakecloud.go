// Package clients builds the terraform.SetupFn of provider-fakecloud on the
// Crossplane v2 line: it resolves a managed resource's provider config (a
// cluster-scoped ProviderConfig for a legacy MR; a namespaced ProviderConfig
// or a ClusterProviderConfig for a modern one), tracks its usage, and
// configures the in-process Terraform provider with the fake cloud endpoint.
package clients

//lint:file-ignore SA1019 the cluster-scoped kinds are crossplane-runtime v2's legacy managed resources on purpose: provider-upjet-aws, -gcp and -azure still serve them beside the namespaced ones.

import (
	"context"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/v1alpha1"
)

// KeyEndpoint is the Terraform provider configuration attribute that holds
// the fake cloud base URL.
const KeyEndpoint = "endpoint"

const (
	errNilProvider       = "cannot build Terraform setup: Terraform provider is nil"
	errNotManaged        = "managed resource is neither legacy nor modern"
	errNoProviderConfig  = "no providerConfigRef provided"
	errGetProviderConfig = "cannot get referenced ProviderConfig"
	errBadConfigKind     = "referenced provider config kind is not ProviderConfig or ClusterProviderConfig"
	errTrackUsage        = "cannot track ProviderConfig usage"
	errNoEndpoint        = "ProviderConfig has no spec.endpoint"
	errUnsupportedSource = "unsupported credentials source: the fake cloud accepts only None"
	errConfigureNoFork   = "cannot configure the no-fork Terraform provider"
)

// TerraformSetupBuilder returns a terraform.SetupFn that reads the provider
// config a managed resource refers to, records a ProviderConfigUsage, and
// configures a copy of tfProvider with the config's endpoint. The
// configured provider's meta (its API client) is returned in Setup.Meta,
// which upjet's SDK connectors pass to every CRUD call. fw, when not nil,
// is returned in Setup.FrameworkProvider: upjet's framework connector
// configures a protocol 6 server of its own around it, per Connect, with
// Setup.Configuration. The Terraform CLI connector writes
// Setup.Configuration into each workspace's main.tf.json instead. Nothing
// here survives a restart: upjet keeps no state of its own outside the
// managed resource.
func TerraformSetupBuilder(tfProvider *schema.Provider, fw fwprovider.Provider) terraform.SetupFn {
	return func(ctx context.Context, kube client.Client, mg resource.Managed) (terraform.Setup, error) {
		ps := terraform.Setup{}
		if tfProvider == nil {
			return ps, errors.New(errNilProvider)
		}
		spec, err := resolve(ctx, kube, mg)
		if err != nil {
			return ps, err
		}
		switch spec.source {
		case "", string(xpv1.CredentialsSourceNone):
		default:
			return ps, errors.Errorf("%s: %q", errUnsupportedSource, spec.source)
		}
		if spec.endpoint == "" {
			return ps, errors.New(errNoEndpoint)
		}
		ps.Configuration = map[string]any{
			KeyEndpoint: spec.endpoint,
		}
		ps.FrameworkProvider = fw
		return ps, configureNoForkClient(ctx, &ps, *tfProvider)
	}
}

// configSpec is what the setup reads of a provider config's spec.
type configSpec struct {
	endpoint, source string
}

// specOf reads spec.endpoint and spec.credentials.source of pc, of any of
// the three provider config kinds.
func specOf(pc client.Object) (configSpec, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pc)
	if err != nil {
		return configSpec{}, errors.Wrap(err, errGetProviderConfig)
	}
	var s configSpec
	s.endpoint, _, _ = unstructured.NestedString(u, "spec", "endpoint")
	s.source, _, _ = unstructured.NestedString(u, "spec", "credentials", "source")
	return s, nil
}

// EndpointOf returns the fake cloud endpoint the provider config pc, of any
// of the three kinds, names (spec.endpoint).
func EndpointOf(pc client.Object) (string, error) {
	s, err := specOf(pc)
	return s.endpoint, err
}

// resolve returns the spec of the provider config mg refers to, as
// upjet-v2-upgrade.md recommends ("Kind aware ProviderConfig handling"):
// legacy MRs resolve only the legacy group's ProviderConfig, modern MRs
// only the modern group's kinds.
func resolve(ctx context.Context, kube client.Client, mg resource.Managed) (configSpec, error) {
	switch mg := mg.(type) {
	case resource.LegacyManaged:
		ref := mg.GetProviderConfigReference()
		if ref == nil {
			return configSpec{}, errors.New(errNoProviderConfig)
		}
		pc := &clusterv1alpha1.ProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Name: ref.Name}, pc); err != nil {
			return configSpec{}, errors.Wrap(err, errGetProviderConfig)
		}
		if err := resource.NewLegacyProviderConfigUsageTracker(kube, &clusterv1alpha1.ProviderConfigUsage{}).Track(ctx, mg); err != nil {
			return configSpec{}, errors.Wrap(err, errTrackUsage)
		}
		return specOf(pc)
	case resource.ModernManaged:
		ref := mg.GetProviderConfigReference()
		if ref == nil {
			return configSpec{}, errors.New(errNoProviderConfig)
		}
		var pc client.Object
		key := types.NamespacedName{Name: ref.Name}
		switch ref.Kind {
		case namespacedv1alpha1.ProviderConfigKind:
			pc, key.Namespace = &namespacedv1alpha1.ProviderConfig{}, mg.GetNamespace()
		case namespacedv1alpha1.ClusterProviderConfigKind:
			pc = &namespacedv1alpha1.ClusterProviderConfig{}
		default:
			return configSpec{}, errors.Errorf("%s: %q", errBadConfigKind, ref.Kind)
		}
		if err := kube.Get(ctx, key, pc); err != nil {
			return configSpec{}, errors.Wrap(err, errGetProviderConfig)
		}
		if err := resource.NewProviderConfigUsageTracker(kube, &namespacedv1alpha1.ProviderConfigUsage{}).Track(ctx, mg); err != nil {
			return configSpec{}, errors.Wrap(err, errTrackUsage)
		}
		return specOf(pc)
	default:
		return configSpec{}, errors.New(errNotManaged)
	}
}

// configureNoForkClient configures p with ps.Configuration and stores the
// resulting meta in ps.Meta. p is deliberately a copy, as in
// provider-upjet-aws: the SDK keeps the meta inside the Provider, and a
// shared pointer would let resources with different provider configs race
// on it.
func configureNoForkClient(ctx context.Context, ps *terraform.Setup, p schema.Provider) error { //nolint:gocritic // the copy is the point
	diags := p.Configure(context.WithoutCancel(ctx), tfsdk.NewResourceConfigRaw(ps.Configuration))
	if diags.HasError() {
		return errors.Errorf("%s: %v", errConfigureNoFork, diags)
	}
	ps.Meta = p.Meta()
	return nil
}
