// Package clients builds the terraform.SetupFn of provider-fakecloud: it
// resolves a managed resource's ProviderConfig, tracks its usage, and
// configures the in-process Terraform provider with the fake cloud endpoint.
package clients

import (
	"context"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/upjet/pkg/terraform"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
)

// KeyEndpoint is the Terraform provider configuration attribute that holds
// the fake cloud base URL.
const KeyEndpoint = "endpoint"

const (
	errNilProvider       = "cannot build Terraform setup: Terraform provider is nil"
	errNoProviderConfig  = "no providerConfigRef provided"
	errGetProviderConfig = "cannot get referenced ProviderConfig"
	errTrackUsage        = "cannot track ProviderConfig usage"
	errNoEndpoint        = "ProviderConfig has no spec.endpoint"
	errUnsupportedSource = "unsupported credentials source: the fake cloud accepts only None"
	errConfigureNoFork   = "cannot configure the no-fork Terraform provider"
)

// TerraformSetupBuilder returns a terraform.SetupFn that reads the
// ProviderConfig a managed resource refers to, records a
// ProviderConfigUsage, and configures a copy of tfProvider with the
// ProviderConfig's endpoint. The configured provider's meta (its API client)
// is returned in Setup.Meta, which upjet's no-fork connectors pass to every
// CRUD call. Nothing here survives a restart: upjet keeps no state of its
// own outside the managed resource.
func TerraformSetupBuilder(tfProvider *schema.Provider) terraform.SetupFn {
	return func(ctx context.Context, kube client.Client, mg resource.Managed) (terraform.Setup, error) {
		ps := terraform.Setup{}
		if tfProvider == nil {
			return ps, errors.New(errNilProvider)
		}

		configRef := mg.GetProviderConfigReference()
		if configRef == nil {
			return ps, errors.New(errNoProviderConfig)
		}
		pc := &v1alpha1.ProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Name: configRef.Name}, pc); err != nil {
			return ps, errors.Wrap(err, errGetProviderConfig)
		}

		t := resource.NewProviderConfigUsageTracker(kube, &v1alpha1.ProviderConfigUsage{})
		if err := t.Track(ctx, mg); err != nil {
			return ps, errors.Wrap(err, errTrackUsage)
		}

		switch pc.Spec.Credentials.Source {
		case "", xpv1.CredentialsSourceNone:
		default:
			return ps, errors.Errorf("%s: %q", errUnsupportedSource, pc.Spec.Credentials.Source)
		}
		if pc.Spec.Endpoint == "" {
			return ps, errors.New(errNoEndpoint)
		}
		ps.Configuration = map[string]any{
			KeyEndpoint: pc.Spec.Endpoint,
		}
		return ps, configureNoForkClient(ctx, &ps, *tfProvider)
	}
}

// configureNoForkClient configures p with ps.Configuration and stores the
// resulting meta in ps.Meta. p is deliberately a copy, as in
// provider-upjet-aws: the SDK keeps the meta inside the Provider, and a
// shared pointer would let resources with different ProviderConfigs race on
// it.
func configureNoForkClient(ctx context.Context, ps *terraform.Setup, p schema.Provider) error { //nolint:gocritic // the copy is the point
	diags := p.Configure(context.WithoutCancel(ctx), tfsdk.NewResourceConfigRaw(ps.Configuration))
	if diags.HasError() {
		return errors.Errorf("%s: %v", errConfigureNoFork, diags)
	}
	ps.Meta = p.Meta()
	return nil
}
