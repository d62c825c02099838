package config

import (
	"context"
	"testing"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

// kindOf is what a test reads of a configured kind.
type kindOf struct {
	Group, Kind, Version string
	SDKClient, Async     bool
	NameInitializer      bool
	ZoneReference        string
	TTLType              schema.ValueType
}

func summarize(r *ujconfig.Resource) kindOf {
	k := kindOf{
		Group: r.ShortGroup, Kind: r.Kind, Version: r.Version,
		SDKClient: r.ShouldUseTerraformPluginSDKClient(), Async: r.UseAsync,
		NameInitializer: !r.ExternalName.DisableNameInitializer,
		ZoneReference:   r.References["managed_zone"].TerraformName,
	}
	if s := r.TerraformResource.Schema["ttl"]; s != nil {
		k.TTLType = s.Type
	}
	return k
}

func TestProviders(t *testing.T) {
	cases := map[string]struct {
		reason     string
		get        func(*schema.Provider, bool) (*ujconfig.Provider, error)
		generation bool
		want       map[string]kindOf
	}{
		"NamespacedRuntime": {
			reason: "the namespaced kinds at v1beta1, on the plugin SDK client, async, the Go schema's int TTL",
			get:    GetProviderNamespaced,
			want: map[string]kindOf{
				tfgoogle.ManagedZoneResource: {Group: "dns", Kind: "ManagedZone", Version: "v1beta1", SDKClient: true, Async: true, NameInitializer: true},
				tfgoogle.RecordSetResource:   {Group: "dns", Kind: "RecordSet", Version: "v1beta1", SDKClient: true, Async: true, ZoneReference: tfgoogle.ManagedZoneResource, TTLType: schema.TypeInt},
			},
		},
		"NamespacedGeneration": {
			reason:     "generation reads schema.json: a JSON number is a float, as in provider-upjet-gcp's API types",
			get:        GetProviderNamespaced,
			generation: true,
			want: map[string]kindOf{
				tfgoogle.ManagedZoneResource: {Group: "dns", Kind: "ManagedZone", Version: "v1beta1", SDKClient: true, Async: true, NameInitializer: true},
				tfgoogle.RecordSetResource:   {Group: "dns", Kind: "RecordSet", Version: "v1beta1", SDKClient: true, Async: true, ZoneReference: tfgoogle.ManagedZoneResource, TTLType: schema.TypeFloat},
			},
		},
		"Cluster": {
			reason: "the cluster-scoped kinds are v1beta2, as provider-upjet-gcp's: their singleton lists became objects",
			get:    GetProvider,
			want: map[string]kindOf{
				tfgoogle.ManagedZoneResource: {Group: "dns", Kind: "ManagedZone", Version: "v1beta2", SDKClient: true, Async: true, NameInitializer: true},
				tfgoogle.RecordSetResource:   {Group: "dns", Kind: "RecordSet", Version: "v1beta2", SDKClient: true, Async: true, ZoneReference: tfgoogle.ManagedZoneResource, TTLType: schema.TypeInt},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pc, err := tc.get(tfgoogle.Provider(), tc.generation)
			if err != nil {
				t.Fatalf("%s\nget provider: %v", tc.reason, err)
			}
			got := map[string]kindOf{}
			for n, r := range pc.Resources {
				got[n] = summarize(r)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nkinds: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestExternalNames: the zone's Terraform ID is built from the provider's
// project and the external name, the zone's name; the record set's is the
// ID the create returned, taken as it is.
func TestExternalNames(t *testing.T) {
	pc, err := GetProviderNamespaced(tfgoogle.Provider(), false)
	if err != nil {
		t.Fatal(err)
	}
	setup := map[string]any{"configuration": map[string]any{"project": "test-project"}}
	cases := map[string]struct {
		reason, resource, externalName, wantID string
		params                                 map[string]any
	}{
		"Zone":      {reason: "TemplatedStringAsIdentifier over name", resource: tfgoogle.ManagedZoneResource, externalName: "zone-a", wantID: "projects/test-project/managedZones/zone-a"},
		"RecordSet": {reason: "IdentifierFromProvider", resource: tfgoogle.RecordSetResource, externalName: "projects/test-project/managedZones/zone-a/rrsets/www.example.com./A", wantID: "projects/test-project/managedZones/zone-a/rrsets/www.example.com./A", params: map[string]any{"managed_zone": "zone-a"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			id, err := pc.Resources[tc.resource].ExternalName.GetIDFn(context.Background(), tc.externalName, tc.params, setup)
			if err != nil {
				t.Fatalf("%s\nGetIDFn: %v", tc.reason, err)
			}
			if id != tc.wantID {
				t.Errorf("%s\nGetIDFn = %q, want %q", tc.reason, id, tc.wantID)
			}
		})
	}
}
