//go:build fullprovider

package tfgoogle

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"github.com/hashicorp/terraform-provider-google/google/provider"
	transport_tpg "github.com/hashicorp/terraform-provider-google/google/transport"
)

// TestConfigureMatchesProviderConfigure holds Configure to the second
// source it rebuilds: terraform-provider-google's own
// provider.ProviderConfigure, given the same configuration, builds the
// same transport.Config, but for IsMtls, which Configure leaves false
// without asking (configure.go). It links the whole provider (about 822
// packages), so it runs only with -tags fullprovider.
func TestConfigureMatchesProviderConfigure(t *testing.T) {
	cases := map[string]map[string]any{
		"Base": baseConfig(),
		"Everything": func() map[string]any {
			c := baseConfig()
			c["region"], c["zone"], c["billing_project"] = "europe-west1", "europe-west1-b", "billing"
			c["user_project_override"], c["request_timeout"], c["poll_interval"] = true, "30s", "2s"
			c["request_reason"], c["deletion_policy"] = "test", "ABANDON"
			c["scopes"] = []any{"https://www.googleapis.com/auth/ndev.clouddns.readwrite"}
			c["default_labels"] = map[string]any{"team": "dns"}
			c["add_terraform_attribution_label"] = false
			return c
		}(),
	}
	ignore := cmp.Options{
		cmpopts.IgnoreFields(transport_tpg.Config{}, "Client", "Context", "TokenSource", "GRPCLoggingOptions", "RequestBatcherServiceUsage", "RequestBatcherIam", "RPCClients", "IsMtls"),
		cmpopts.IgnoreUnexported(transport_tpg.Config{}),
		cmpopts.EquateEmpty(),
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			n := guard.Count()
			full := provider.Provider()
			if d := full.Configure(context.Background(), tfsdk.NewResourceConfigRaw(cfg)); d.HasError() {
				t.Fatalf("provider.Provider().Configure: %v", d)
			}
			// The whole provider's Configure calls IsMtls: the guard,
			// as GCE_METADATA_HOST, answers its metadata request.
			for _, h := range guard.Since(n) {
				if !strings.HasPrefix(h, "metadata:") {
					t.Errorf("the whole provider's Configure sent %q off the machine", h)
				}
			}
			want := full.Meta().(*transport_tpg.Config)
			offline(t)
			got, err := configure(t, cfg)
			if err != nil {
				t.Fatalf("Configure: %v", err)
			}
			if diff := cmp.Diff(want, got, ignore); diff != "" {
				t.Errorf("Configure's transport.Config differs from ProviderConfigure's: -want +got:\n%s", diff)
			}
		})
	}
}
