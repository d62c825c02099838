package tfgoogle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/hashicorp/terraform-provider-google/google/services/dns"
	transport_tpg "github.com/hashicorp/terraform-provider-google/google/transport"
	"github.com/hashicorp/terraform-provider-google/version"
)

// defaultUniverse is Google's public universe domain. With it, every
// Configure sends a request to https://openidconnect.googleapis.com/v1/userinfo
// (transport.Config.LoadAndValidate -> logGoogleIdentities ->
// GetCurrentUserEmail); with any other, GetCurrentUserEmail returns at once.
const defaultUniverse = "googleapis.com"

var (
	// ErrNoAccessToken is returned by Configure when no access_token is
	// set: without one the provider looks for Application Default
	// Credentials, which may ask the GCE metadata server.
	ErrNoAccessToken = errors.New("tfgoogle: access_token is required")
	// ErrDefaultUniverse is returned by Configure when universe_domain is
	// unset or googleapis.com: the provider would then ask Google's
	// userinfo endpoint who the token belongs to.
	ErrDefaultUniverse = errors.New("tfgoogle: universe_domain must be set to a domain other than googleapis.com")
)

// configureFunc returns p's ConfigureContextFunc. It builds the
// transport.Config terraform-provider-google's provider.ProviderConfigure
// builds from the arguments providerSchema declares, in the same order:
// HandleSDKDefaults, the fields, custom endpoints (argument, then
// environment variable), IsMtls, universe domain, scopes, labels, batching,
// LoadAndValidate, then the universe domain check. It differs in two
// ways, both to keep traffic on the machine: an access token is required
// (no credentials file, no Application Default Credentials, no
// environment variables for them), and so is a non-default universe
// domain.
func configureFunc(p *schema.Provider) schema.ConfigureContextFunc {
	return func(ctx context.Context, d *schema.ResourceData) (any, diag.Diagnostics) {
		c, err := newConfig(ctx, d, p.UserAgent("terraform-provider-google", version.ProviderVersion))
		if err != nil {
			return nil, diag.FromErr(err)
		}
		return c, nil
	}
}

func newConfig(ctx context.Context, d *schema.ResourceData, userAgent string) (*transport_tpg.Config, error) {
	if err := transport_tpg.HandleSDKDefaults(d); err != nil {
		return nil, err
	}
	c := &transport_tpg.Config{
		Project:             d.Get(KeyProject).(string),
		Region:              d.Get("region").(string),
		Zone:                d.Get("zone").(string),
		UserProjectOverride: d.Get("user_project_override").(bool),
		BillingProject:      d.Get("billing_project").(string),
		UserAgent:           userAgent,
		DeletionPolicy:      d.Get("deletion_policy").(string),
		RequestReason:       d.Get("request_reason").(string),
		AccessToken:         d.Get(KeyAccessToken).(string),
		UniverseDomain:      d.Get(KeyUniverseDomain).(string),
		CustomEndpoints:     map[string]string{},
	}
	if c.AccessToken == "" {
		return nil, ErrNoAccessToken
	}
	if c.UniverseDomain == "" || c.UniverseDomain == defaultUniverse {
		return nil, ErrDefaultUniverse
	}
	var err error
	if c.RequestTimeout, err = duration(d, "request_timeout"); err != nil {
		return nil, err
	}
	if c.PollInterval, err = duration(d, "poll_interval"); err != nil {
		return nil, err
	}
	if v := d.Get(KeyDNSEndpoint).(string); v != "" {
		c.CustomEndpoints[dns.Product.CustomEndpointField] = v
	} else if v := os.Getenv(dns.Product.CustomEndpointEnvVar); v != "" {
		c.CustomEndpoints[dns.Product.CustomEndpointField] = v
	}
	// ProviderConfigure sets IsMtls from transport.IsMtls(), which builds
	// a client with no credentials: Application Default Credentials, and
	// so the GCE metadata server probe (a TCP connect to 169.254.169.254
	// and a DNS lookup of metadata.google.internal), on every process's
	// first Configure. A custom endpoint is used as given whatever IsMtls
	// says (transport.BaseUrl returns it first), so it stays false here.
	c.IsMtls = false
	c.ImpersonateServiceAccount = d.Get("impersonate_service_account").(string)
	for _, s := range d.Get("scopes").([]any) {
		c.Scopes = append(c.Scopes, s.(string))
	}
	c.DefaultLabels = map[string]string{}
	for k, v := range d.Get("default_labels").(map[string]any) {
		c.DefaultLabels[k] = v.(string)
	}
	c.AddTerraformAttributionLabel = d.Get("add_terraform_attribution_label").(bool)
	if c.AddTerraformAttributionLabel {
		c.TerraformAttributionLabelAdditionStrategy = transport_tpg.CreateOnlyAttributionStrategy
		if v, ok := d.GetOk("terraform_attribution_label_addition_strategy"); ok {
			c.TerraformAttributionLabelAdditionStrategy = v.(string)
		}
		switch c.TerraformAttributionLabelAdditionStrategy {
		case transport_tpg.CreateOnlyAttributionStrategy, transport_tpg.ProactiveAttributionStrategy:
		default:
			return nil, fmt.Errorf("unrecognized terraform_attribution_label_addition_strategy %q", c.TerraformAttributionLabelAdditionStrategy)
		}
	}
	if c.BatchingConfig, err = transport_tpg.ExpandProviderBatchingConfig(nil); err != nil {
		return nil, err
	}
	// ProviderConfigure prefers the plugin server's stop context
	// (schema.StopContext); a provider configured in process has none,
	// and ProviderConfigure then uses ctx, as here. The Config keeps it.
	if err := c.LoadAndValidate(ctx); err != nil {
		return nil, err
	}
	// With an access token, GetCredentials leaves UniverseDomain as
	// configured; a change here would mean credentials of another universe.
	if c.UniverseDomain != d.Get(KeyUniverseDomain).(string) {
		return nil, fmt.Errorf("universe domain mismatch: %q configured, %q in the credentials", d.Get(KeyUniverseDomain), c.UniverseDomain)
	}
	return c, nil
}

// duration parses the Go duration in argument key of d, zero when unset.
func duration(d *schema.ResourceData, key string) (time.Duration, error) {
	v, ok := d.GetOk(key)
	if !ok {
		return 0, nil
	}
	t, err := time.ParseDuration(v.(string))
	if err != nil {
		return 0, fmt.Errorf("could not parse %s value: %w", key, err)
	}
	return t, nil
}
