package tfgoogle

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"github.com/hashicorp/terraform-provider-google/google/services/dns"
	transport_tpg "github.com/hashicorp/terraform-provider-google/google/transport"
)

// testUniverse is the universe domain the tests configure: a name that
// cannot resolve (RFC 2606's .invalid).
const testUniverse = "intentjournal.invalid"

// configure configures a new Provider with cfg and returns its meta.
func configure(t *testing.T, cfg map[string]any) (*transport_tpg.Config, error) {
	t.Helper()
	p := Provider()
	if d := p.Configure(context.Background(), tfsdk.NewResourceConfigRaw(cfg)); d.HasError() {
		for _, x := range d {
			if x.Summary != "" {
				return nil, errors.New(x.Summary)
			}
		}
		return nil, errors.New("configure failed")
	}
	c, ok := p.Meta().(*transport_tpg.Config)
	if !ok {
		t.Fatalf("Meta() = %T, want *transport.Config", p.Meta())
	}
	return c, nil
}

func baseConfig() map[string]any {
	return map[string]any{
		KeyAccessToken:    "test-token",
		KeyProject:        "test-project",
		KeyUniverseDomain: testUniverse,
		KeyDNSEndpoint:    "http://127.0.0.1:1/dns/v1/",
	}
}

// TestConfigureStaysLocal: Configure with an access token and a
// non-default universe domain sends nothing anywhere, and the meta points
// the DNS client at the custom endpoint.
func TestConfigureStaysLocal(t *testing.T) {
	offline(t)
	c, err := configure(t, baseConfig())
	if err != nil {
		t.Fatalf("Configure: %v", err)
	}
	if got, want := transport_tpg.BaseUrl(dns.Product, c), "http://127.0.0.1:1/dns/v1/"; got != want {
		t.Errorf("BaseUrl(dns) = %q, want %q", got, want)
	}
	if c.Project != "test-project" || c.UniverseDomain != testUniverse {
		t.Errorf("Config project %q universe %q, want test-project and %s", c.Project, c.UniverseDomain, testUniverse)
	}
	if !c.AddTerraformAttributionLabel {
		t.Errorf("AddTerraformAttributionLabel = false, want terraform-provider-google's default, true")
	}
}

// TestConfigureRefuses: the two settings that would send a request off
// the machine are refused before anything is sent.
func TestConfigureRefuses(t *testing.T) {
	cases := map[string]struct {
		reason string
		drop   string
		set    map[string]any
		want   error
	}{
		"NoToken":         {reason: "without a token the provider looks for Application Default Credentials", drop: KeyAccessToken, want: ErrNoAccessToken},
		"NoUniverse":      {reason: "the default universe asks Google's userinfo endpoint", drop: KeyUniverseDomain, want: ErrDefaultUniverse},
		"DefaultUniverse": {reason: "googleapis.com is the default universe, spelled out", set: map[string]any{KeyUniverseDomain: "googleapis.com"}, want: ErrDefaultUniverse},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			offline(t)
			cfg := baseConfig()
			delete(cfg, tc.drop)
			for k, v := range tc.set {
				cfg[k] = v
			}
			_, err := configure(t, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want.Error()) {
				t.Errorf("%s\nConfigure() error = %v, want %v", tc.reason, err, tc.want)
			}
		})
	}
}

// TestUniverseDomainSkipsUserinfo is the provider's own code path, with
// and without the setting: transport.Config.LoadAndValidate asks
// https://openidconnect.googleapis.com/v1/userinfo who the token belongs
// to (logGoogleIdentities -> GetCurrentUserEmail) unless the universe
// domain is not googleapis.com. The guard sees the request in the first
// case, which also shows that it would see it.
func TestUniverseDomainSkipsUserinfo(t *testing.T) {
	cases := map[string]struct {
		reason   string
		universe string
		want     []string
	}{
		"Default": {reason: "the default universe sends the userinfo request", universe: "", want: []string{"https://openidconnect.googleapis.com:443"}},
		"Other":   {reason: "another universe domain skips it", universe: testUniverse, want: nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			n := guard.Count()
			c := &transport_tpg.Config{AccessToken: "test-token", Project: "test-project", UniverseDomain: tc.universe}
			if err := c.LoadAndValidate(context.Background()); err != nil {
				t.Fatalf("LoadAndValidate: %v", err)
			}
			if got := guard.Since(n); !slices.Equal(got, tc.want) {
				t.Errorf("%s\nrequests off the machine: got %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

// TestIsMtlsAsksMetadata is why Configure does not call
// transport.IsMtls, as the provider's ProviderConfigure does: it builds a
// client with no credentials, which looks for Application Default
// Credentials and asks the GCE metadata server (here the guard, through
// GCE_METADATA_HOST; without it, a TCP connect to 169.254.169.254:80 and
// a DNS lookup of metadata.google.internal).
func TestIsMtlsAsksMetadata(t *testing.T) {
	n := guard.Count()
	transport_tpg.IsMtls()
	got := guard.Since(n)
	t.Logf("IsMtls asked: %v", got)
	if len(got) == 0 {
		t.Fatalf("IsMtls sent nothing to the metadata server; Configure could call it")
	}
	for _, h := range got {
		if !strings.HasPrefix(h, "metadata:/computeMetadata/") {
			t.Errorf("IsMtls sent %q, want only metadata requests", h)
		}
	}
}
