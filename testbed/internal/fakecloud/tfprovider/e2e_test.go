package tfprovider_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

const baseConfig = `
resource "fakecloud_record_set" "www" {
  zone    = "example-com"
  name    = "www"
  type    = "A"
  rrdatas = ["10.0.0.1"]
  tags    = { "crossplane-name" = "www" }
}

resource "fakecloud_network" "vpc" {
  name       = "vpc"
  cidr_block = "10.0.0.0/16"
  tags       = { "crossplane-name" = "vpc" }
}
`

// bareConfig leaves every optional attribute unset.
const bareConfig = `
resource "fakecloud_record_set" "bare" {
  zone    = "example-com"
  name    = "bare"
  type    = "TXT"
  rrdatas = ["hello"]
}

resource "fakecloud_network" "bare" {
  name = "bare"
}
`

const importConfig = `
resource "fakecloud_network" "legacy" {
  name       = "legacy"
  cidr_block = "10.1.0.0/16"
  tags       = { "owner" = "ops" }
}
`

const duplicateConfig = `
resource "fakecloud_record_set" "dup" {
  zone    = "example-com"
  name    = "www"
  type    = "A"
  rrdatas = ["10.0.0.2"]
}
`

// TestOpenTofuEndToEnd drives the real CLI through terraform-exec against
// the real fakecloud binary, with the provider installed from a filesystem
// mirror: apply, import, a duplicate that fails with "already exists",
// drift, and destroy.
func TestOpenTofuEndToEnd(t *testing.T) {
	tfPath := testenv.TerraformCLI(t)
	fc := fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{})
	ws := tftest.NewWorkspace(t, tfPath, tftest.BuildMirror(t), nil)
	ctx := context.Background()
	provider := tftest.ProviderBlock(fc.URL)

	// Apply one record set and one network.
	ws.WriteConfig(t, provider+baseConfig)
	if err := ws.TF.Init(ctx); err != nil {
		t.Fatalf("init: %v", err)
	}
	if err := ws.TF.Apply(ctx); err != nil {
		t.Fatalf("apply: %v", err)
	}
	st, err := fc.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Objects.RecordSets) != 1 || len(st.Objects.Networks) != 1 {
		t.Fatalf("after apply the cloud must hold one record set and one network; got %+v", st.Objects)
	}
	rs, vpc := st.Objects.RecordSets[0], st.Objects.Networks[0]
	changes, err := ws.TF.Plan(ctx)
	if err != nil {
		t.Fatalf("plan after apply: %v", err)
	}
	if changes {
		t.Error("Right after apply, plan must show no changes")
	}
	got := resourceValues(t, ws)
	want := map[string]map[string]any{
		"fakecloud_record_set.www": {
			"id": rs.ID, "zone": "example-com", "name": "www", "type": "A", "ttl": json.Number("300"),
			"rrdatas": []any{"10.0.0.1"}, "tags": map[string]any{"crossplane-name": "www"},
		},
		"fakecloud_network.vpc": {
			"id": vpc.ID, "name": "vpc", "cidr_block": "10.0.0.0/16", "tags": map[string]any{"crossplane-name": "vpc"},
			"arn": fakecloud.ARN(fakecloud.ARNTypeNetwork, vpc.ID),
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("The state must hold the server-assigned IDs and the applied attributes; -want, +got:\n%s", diff)
	}

	// Unset optional attributes read back as empty values without a diff.
	ws.WriteConfig(t, provider+baseConfig+bareConfig)
	if err := ws.TF.Apply(ctx); err != nil {
		t.Fatalf("apply bare: %v", err)
	}
	changes, err = ws.TF.Plan(ctx)
	if err != nil {
		t.Fatalf("plan after bare apply: %v", err)
	}
	if changes {
		t.Error("Resources without optional attributes must not plan a change after apply")
	}
	ws.WriteConfig(t, provider+baseConfig)
	if err := ws.TF.Apply(ctx); err != nil {
		t.Fatalf("apply removing bare: %v", err)
	}

	// Import a network created outside Terraform, by ID.
	legacy, err := fc.Client.CreateNetwork(ctx, fakecloud.Network{Name: "legacy", CIDRBlock: "10.1.0.0/16", Tags: map[string]string{"owner": "ops"}})
	if err != nil {
		t.Fatal(err)
	}
	ws.WriteConfig(t, provider+baseConfig+importConfig)
	if err := ws.TF.Import(ctx, "fakecloud_network.legacy", legacy.ID); err != nil {
		t.Fatalf("import: %v", err)
	}
	changes, err = ws.TF.Plan(ctx)
	if err != nil {
		t.Fatalf("plan after import: %v", err)
	}
	if changes {
		t.Error("After importing an object that matches its configuration, plan must show no changes")
	}
	if id := resourceValues(t, ws)["fakecloud_network.legacy"]["id"]; id != legacy.ID {
		t.Errorf("imported ID: got %v, want %s", id, legacy.ID)
	}

	// A second record set with the same zone and name fails like a real
	// provider's 409.
	ws.WriteConfig(t, provider+baseConfig+importConfig+duplicateConfig)
	err = ws.TF.Apply(ctx)
	if err == nil {
		t.Fatal("apply of a duplicate record set must fail")
	}
	for _, want := range []string{"Error creating RecordSet", `recordset "www" already exists in zone "example-com"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("apply error must contain %q; got:\n%v", want, err)
		}
	}
	st, err = fc.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantKinds := map[string]fakecloud.KindStats{
		fakecloud.KindRecordSets: {Creates: 2, Conflicts: 1, Live: 1, Deletes: 1},
		fakecloud.KindNetworks:   {Creates: 3, Live: 2, Deletes: 1},
		fakecloud.KindAddresses:  {},
		fakecloud.KindBuckets:    {},
	}
	if diff := cmp.Diff(wantKinds, st.Kinds); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}

	// Drift: an object deleted behind Terraform's back is planned again,
	// because Read clears the ID.
	ws.WriteConfig(t, provider+baseConfig+importConfig)
	if err := fc.Client.DeleteNetwork(ctx, vpc.ID); err != nil {
		t.Fatal(err)
	}
	changes, err = ws.TF.Plan(ctx)
	if err != nil {
		t.Fatalf("plan after out-of-band delete: %v", err)
	}
	if !changes {
		t.Error("A network deleted out of band must be planned for creation")
	}

	if err := ws.TF.Destroy(ctx); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	st, err = fc.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.Objects.RecordSets) + len(st.Objects.Networks); n != 0 {
		t.Errorf("after destroy the cloud must be empty; %d objects left: %+v", n, st.Objects)
	}
}

// resourceValues walks the state from show (tfexec has no state list) and
// returns each managed resource's attributes by address.
func resourceValues(t *testing.T, ws *tftest.Workspace) map[string]map[string]any {
	t.Helper()
	state, err := ws.TF.Show(context.Background())
	if err != nil {
		t.Fatalf("show: %v", err)
	}
	out := map[string]map[string]any{}
	if state.Values == nil || state.Values.RootModule == nil {
		return out
	}
	for _, r := range state.Values.RootModule.Resources {
		if r.Mode == tfjson.ManagedResourceMode {
			out[r.Address] = r.AttributeValues
		}
	}
	return out
}
