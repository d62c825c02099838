// Package clients configures tfgoogle's provider for upjet's plugin SDK
// connectors, as provider-upjet-gcp's internal/clients does
// (configureNoForkGCPClient): a copy of the provider per provider
// configuration, configured in process, its meta handed to upjet in
// terraform.Setup.Meta.
// TerraformSetupBuilder resolves a managed resource's provider
// configuration into a Config.
package clients

import (
	"context"
	"time"

	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"github.com/pkg/errors"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

const errConfigure = "cannot configure the no-fork Google provider"

// providerTimeout is how long a configured provider's context lives:
// provider-upjet-gcp's upjet async timeout (1 h) plus a 10 min grace
// period. terraform-provider-google keeps the context it was configured
// with (transport.Config.Context) and uses it for later requests.
const providerTimeout = time.Hour + 10*time.Minute

// Config is what a provider configuration sets.
type Config struct {
	// Project is the GCP project of the resources.
	Project string
	// AccessToken is any bearer token the DNS endpoint accepts.
	AccessToken string
	// DNSEndpoint is the Cloud DNS base URL, like
	// http://127.0.0.1:PORT/dns/v1/.
	DNSEndpoint string
	// UniverseDomain is never googleapis.com (tfgoogle refuses it).
	UniverseDomain string
}

// Setup returns the terraform.Setup of cfg: its Configuration, and the
// Meta of p configured with it. p is deliberately a copy: the SDK keeps
// the meta inside the Provider, and a shared pointer would let managed
// resources of different provider configurations race on it.
func Setup(p schema.Provider, cfg Config) (terraform.Setup, error) { //nolint:gocritic // the copy is the point
	ps := terraform.Setup{Configuration: map[string]any{
		tfgoogle.KeyProject:        cfg.Project,
		tfgoogle.KeyAccessToken:    cfg.AccessToken,
		tfgoogle.KeyDNSEndpoint:    cfg.DNSEndpoint,
		tfgoogle.KeyUniverseDomain: cfg.UniverseDomain,
	}}
	// Not the caller's context: the provider keeps this one. It is
	// cancelled after providerTimeout so its clients do not leak.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(providerTimeout, cancel)
	if d := p.Configure(ctx, tfsdk.NewResourceConfigRaw(ps.Configuration)); d.HasError() {
		cancel()
		return terraform.Setup{}, errors.Errorf("%s: %v", errConfigure, d)
	}
	ps.Meta = p.Meta()
	return ps, nil
}
