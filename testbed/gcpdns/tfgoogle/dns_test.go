package tfgoogle

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-cty/cty"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	dnsapi "google.golang.org/api/dns/v1"
)

// apply creates resource name with params the way upjet's plugin SDK
// client does (pkg/controller/external_tfpluginsdk.go): Connect
// reconstructs a state from the parameters, with them as its raw config;
// Create diffs the parameters against it, sets the diff's raw plan and
// raw config, and applies it with the configured provider's meta.
func apply(ctx context.Context, p *schema.Provider, name string, params map[string]any) (*tfsdk.InstanceState, error) {
	r := p.ResourcesMap[name]
	block := r.CoreConfigSchema()
	rawConfig, err := schema.JSONMapToStateValue(params, block)
	if err != nil {
		return nil, err
	}
	stateVal, err := schema.JSONMapToStateValue(maps.Clone(params), block)
	if err != nil {
		return nil, err
	}
	state, err := r.ShimInstanceStateFromValue(stateVal)
	if err != nil {
		return nil, err
	}
	state.RawPlan, state.RawConfig = stateVal, rawConfig
	diff, err := schema.InternalMap(r.Schema).Diff(ctx, state, tfsdk.NewResourceConfigRaw(params), r.CustomizeDiff, p.Meta(), false)
	if err != nil {
		return nil, err
	}
	diff.Identity = nil
	if diff.RawPlan, err = diff.ApplyToValue(cty.EmptyObjectVal, block); err != nil {
		return nil, err
	}
	diff.RawConfig = rawConfig
	s, diags := r.Apply(ctx, state, diff, p.Meta())
	if diags.HasError() {
		return s, fmt.Errorf("%v", diags)
	}
	return s, nil
}

// configured returns a Provider configured against stub.
func configured(t *testing.T, stub *stubDNS) *schema.Provider {
	t.Helper()
	cfg := baseConfig()
	cfg[KeyDNSEndpoint] = stub.endpoint()
	p := Provider()
	if d := p.Configure(context.Background(), tfsdk.NewResourceConfigRaw(cfg)); d.HasError() {
		t.Fatalf("Configure: %v", d)
	}
	return p
}

// TestCreateInProcess: the real resources create a zone and a record
// set through the stub, in this process, and their Terraform IDs are the
// ones provider-upjet-gcp's external names expect.
func TestCreateInProcess(t *testing.T) {
	offline(t)
	ctx := context.Background()
	stub := newStubDNS(t, 100)
	p := configured(t, stub)

	zone, err := apply(ctx, p, ManagedZoneResource, map[string]any{"name": "zone-a", "dns_name": "example.com."})
	if err != nil {
		t.Fatalf("create %s: %v", ManagedZoneResource, err)
	}
	if got, want := zone.ID, "projects/test-project/managedZones/zone-a"; got != want {
		t.Errorf("zone ID = %q, want %q (the external name template's)", got, want)
	}
	rs, err := apply(ctx, p, RecordSetResource, map[string]any{
		"managed_zone": "zone-a", "name": "www.example.com.", "type": "A", "ttl": 300, "rrdatas": []any{"192.0.2.1"},
	})
	if err != nil {
		t.Fatalf("create %s: %v", RecordSetResource, err)
	}
	if got, want := rs.ID, "projects/test-project/managedZones/zone-a/rrsets/www.example.com./A"; got != want {
		t.Errorf("record set ID = %q, want %q", got, want)
	}
	got := stub.recordSets("zone-a")
	want := []*dnsapi.ResourceRecordSet{{Name: "www.example.com.", Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.1"}}}
	if diff := cmp.Diff(want, got, cmpRRSet); diff != "" {
		t.Errorf("record sets in the zone: -want +got:\n%s", diff)
	}
	// Create lists the zone once, unfiltered; Read lists it filtered.
	for _, c := range []string{
		"POST /dns/v1/projects/test-project/managedZones",
		"GET /dns/v1/projects/test-project/managedZones/zone-a/rrsets",
		"POST /dns/v1/projects/test-project/managedZones/zone-a/changes",
		"GET /dns/v1/projects/test-project/managedZones/zone-a/changes/1",
	} {
		if !slices.Contains(stub.calls, c) {
			t.Errorf("the stub saw no %q; it saw %v", c, stub.calls)
		}
	}
}

// TestCreateOverwritesFirstPage is the record set create's hazard, on
// the real code: a record set of the same name and type that someone else holds
// on the first page of the zone's listing is deleted and replaced in the
// create's own change; on a later page, the change meets 409.
func TestCreateOverwritesFirstPage(t *testing.T) {
	theirs := &dnsapi.ResourceRecordSet{Name: "www.example.com.", Type: "A", Ttl: 60, Rrdatas: []string{"198.51.100.7"}}
	filler := &dnsapi.ResourceRecordSet{Name: "aaa.example.com.", Type: "A", Ttl: 60, Rrdatas: []string{"198.51.100.1"}}
	ours := map[string]any{"managed_zone": "zone-a", "name": "www.example.com.", "type": "A", "ttl": 300, "rrdatas": []any{"192.0.2.1"}}
	cases := map[string]struct {
		reason  string
		seed    []*dnsapi.ResourceRecordSet
		want    []*dnsapi.ResourceRecordSet
		wantErr string
	}{
		"FirstPage": {
			reason: "theirs is on page 1: the create deletes it and adds ours, silently",
			seed:   []*dnsapi.ResourceRecordSet{theirs},
			want:   []*dnsapi.ResourceRecordSet{{Name: "www.example.com.", Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.1"}}},
		},
		"SecondPage": {
			reason:  "theirs is on page 2 (page size 1): the create's change meets 409 and theirs stays",
			seed:    []*dnsapi.ResourceRecordSet{filler, theirs},
			want:    []*dnsapi.ResourceRecordSet{filler, theirs},
			wantErr: "alreadyExists",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			offline(t)
			stub := newStubDNS(t, 1)
			p := configured(t, stub)
			if _, err := apply(context.Background(), p, ManagedZoneResource, map[string]any{"name": "zone-a", "dns_name": "example.com."}); err != nil {
				t.Fatalf("create zone: %v", err)
			}
			for _, rr := range tc.seed {
				stub.seed("zone-a", rr)
			}
			_, err := apply(context.Background(), p, RecordSetResource, ours)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("%s\ncreate: %v", tc.reason, err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("%s\ncreate error = %v, want %q", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, stub.recordSets("zone-a"), cmpRRSet); diff != "" {
				t.Errorf("%s\nrecord sets in the zone: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// cmpRRSet compares what a record set holds.
var cmpRRSet = cmp.Comparer(func(a, b *dnsapi.ResourceRecordSet) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Ttl == b.Ttl && slices.Equal(a.Rrdatas, b.Rrdatas)
})
