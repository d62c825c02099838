package clients

//lint:file-ignore SA1019 the cluster-scoped kinds are crossplane-runtime v2's legacy managed resources on purpose: provider-upjet-gcp still serves them beside the namespaced ones.

import (
	"context"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/cluster/v1beta1"
	namespacedv1beta1 "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/v1beta1"
)

// UniverseDomain is the universe domain every provider configuration
// gets: not googleapis.com, so that Configure never asks Google who the
// token belongs to (tfgoogle refuses googleapis.com).
const UniverseDomain = "intentjournal.invalid"

// NoneToken is the access token sent when the provider configuration's
// credentials source is None: the fake Cloud DNS takes any.
const NoneToken = "intentjournal-none"

const (
	errNilProvider       = "cannot build Terraform setup: Terraform provider is nil"
	errNotManaged        = "managed resource is neither legacy nor modern"
	errNoProviderConfig  = "no providerConfigRef provided"
	errGetProviderConfig = "cannot get referenced ProviderConfig"
	errBadConfigKind     = "referenced provider config kind is not ProviderConfig or ClusterProviderConfig"
	errTrackUsage        = "cannot track ProviderConfig usage"
	errCredentials       = "cannot read the provider configuration's credentials"
)

// TerraformSetupBuilder returns the provider's terraform.SetupFn, as
// provider-upjet-gcp's TerraformSetupBuilder: it reads the provider
// configuration a managed resource refers to, records its usage, and
// returns Setup with a configured copy of p as Meta.
func TerraformSetupBuilder(p *schema.Provider) terraform.SetupFn {
	return func(ctx context.Context, kube client.Client, mg resource.Managed) (terraform.Setup, error) {
		if p == nil {
			return terraform.Setup{}, errors.New(errNilProvider)
		}
		cfg, err := resolve(ctx, kube, mg)
		if err != nil {
			return terraform.Setup{}, err
		}
		return Setup(*p, cfg)
	}
}

// spec is the part of a provider configuration's spec the setup reads; the
// three kinds share it.
type spec struct {
	ProjectID   string
	DNSEndpoint string
	Source      xpv1.CredentialsSource
	Selectors   xpv1.CommonCredentialSelectors
}

// resolve returns the Config of the provider configuration mg refers to:
// a legacy MR's cluster-scoped ProviderConfig, a modern MR's namespaced
// ProviderConfig or ClusterProviderConfig.
func resolve(ctx context.Context, kube client.Client, mg resource.Managed) (Config, error) {
	var s spec
	switch mg := mg.(type) {
	case resource.LegacyManaged:
		ref := mg.GetProviderConfigReference()
		if ref == nil {
			return Config{}, errors.New(errNoProviderConfig)
		}
		pc := &clusterv1beta1.ProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Name: ref.Name}, pc); err != nil {
			return Config{}, errors.Wrap(err, errGetProviderConfig)
		}
		if err := resource.NewLegacyProviderConfigUsageTracker(kube, &clusterv1beta1.ProviderConfigUsage{}).Track(ctx, mg); err != nil {
			return Config{}, errors.Wrap(err, errTrackUsage)
		}
		s = spec{pc.Spec.ProjectID, pc.Spec.DNSEndpoint, pc.Spec.Credentials.Source, pc.Spec.Credentials.CommonCredentialSelectors}
	case resource.ModernManaged:
		ref := mg.GetProviderConfigReference()
		if ref == nil {
			return Config{}, errors.New(errNoProviderConfig)
		}
		switch ref.Kind {
		case namespacedv1beta1.ProviderConfigKind:
			pc := &namespacedv1beta1.ProviderConfig{}
			if err := kube.Get(ctx, types.NamespacedName{Namespace: mg.GetNamespace(), Name: ref.Name}, pc); err != nil {
				return Config{}, errors.Wrap(err, errGetProviderConfig)
			}
			s = spec{pc.Spec.ProjectID, pc.Spec.DNSEndpoint, pc.Spec.Credentials.Source, pc.Spec.Credentials.CommonCredentialSelectors}
		case namespacedv1beta1.ClusterProviderConfigKind:
			pc := &namespacedv1beta1.ClusterProviderConfig{}
			if err := kube.Get(ctx, types.NamespacedName{Name: ref.Name}, pc); err != nil {
				return Config{}, errors.Wrap(err, errGetProviderConfig)
			}
			s = spec{pc.Spec.ProjectID, pc.Spec.DNSEndpoint, pc.Spec.Credentials.Source, pc.Spec.Credentials.CommonCredentialSelectors}
		default:
			return Config{}, errors.Errorf("%s: %q", errBadConfigKind, ref.Kind)
		}
		if err := resource.NewProviderConfigUsageTracker(kube, &namespacedv1beta1.ProviderConfigUsage{}).Track(ctx, mg); err != nil {
			return Config{}, errors.Wrap(err, errTrackUsage)
		}
	default:
		return Config{}, errors.New(errNotManaged)
	}
	token := NoneToken
	if s.Source != "" && s.Source != xpv1.CredentialsSourceNone {
		b, err := resource.CommonCredentialExtractor(ctx, s.Source, kube, s.Selectors)
		if err != nil {
			return Config{}, errors.Wrap(err, errCredentials)
		}
		token = string(b)
	}
	return Config{Project: s.ProjectID, AccessToken: token, DNSEndpoint: s.DNSEndpoint, UniverseDomain: UniverseDomain}, nil
}
