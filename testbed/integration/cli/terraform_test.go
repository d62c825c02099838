package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestRecoverTerraform runs recover with the terraform finder through the
// real OpenTofu CLI and the fake cloud's Terraform provider. The provider
// crashed after two creates had returned their IDs (the intents are
// succeeded) but before crossplane.io/external-name was persisted; one of
// the two networks was deleted since. A dry run must change nothing, not
// even the workspace's state; the real run adopts the network that exists,
// imports it into the workspace, and clears the other.
func TestRecoverTerraform(t *testing.T) {
	ctx := context.Background()
	tf := testenv.TerraformCLI(t)
	mirror := tftest.BuildMirror(t)
	cluster := fakecloudtest.StartCluster(t)
	cloud := fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{})

	rc := filepath.Join(t.TempDir(), "tf.rc")
	if err := os.WriteFile(rc, []byte(tftest.CLIConfig(mirror)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The workspace is the operator's: its provider configuration and CLI
	// configuration are theirs, and the CLI inherits the environment.
	t.Setenv("TF_CLI_CONFIG_FILE", rc)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.tf"), []byte(tftest.ProviderBlock(cloud.URL)), 0o644); err != nil {
		t.Fatal(err)
	}

	objs := map[string]client.Object{
		"net-tf-adopt": fakecloudtest.Network("net-tf-adopt", "10.1.0.0/16"),
		"net-tf-gone":  fakecloudtest.Network("net-tf-gone", "10.2.0.0/16"),
	}
	ids := map[string]string{}
	for name, obj := range objs {
		cluster.Create(t, obj)
		n, err := cloud.Client.CreateNetwork(ctx, fakecloud.Network{Name: name, CIDRBlock: "10.0.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", name)})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = n.ID
	}
	if err := cloud.Client.DeleteNetwork(ctx, ids["net-tf-gone"]); err != nil {
		t.Fatal(err)
	}

	jpath := filepath.Join(t.TempDir(), "journal.db")
	j, err := journal.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	for name, obj := range objs {
		in, err := j.Begin(ctx, journal.Intent{
			Resource:   journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "Network", Name: name, UID: string(obj.GetUID())},
			LookupKeys: fakecloudtest.CrossplaneTags("Network", name),
			Owner:      journal.Owner{Replica: "provider-fakecloud-0", Epoch: "0000017f00000000-0a0b0c0d"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Settle(ctx, in.Resource.UID, in.ID, journal.Settlement{State: journal.StateSucceeded, ExternalName: ids[name]}); err != nil {
			t.Fatal(err)
		}
		obj.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
		if err := cluster.Client.Update(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	args := func(extra ...string) []string {
		return append([]string{"recover", "--kubeconfig", cluster.Kubeconfig, "--journal", jpath,
			"--kind", "Network.v1alpha1.fakecloud.intentjournal.io",
			"--finder", "Network=terraform:fakecloud_network:name",
			"--workspace", ws, "--terraform", tf, "-o", "json", "--log-level", "warn"}, extra...)
	}
	statePath := filepath.Join(ws, "terraform.tfstate")

	t.Run("DryRunChangesNothing", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := cli.Main(ctx, args("--dry-run"), &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("recover --dry-run: exit %d, want %d\nstderr:\n%s", code, cli.ExitOK, stderr.String())
		}
		if got := outcomes(t, stdout.Bytes()); !cmp.Equal(got, map[string]report.Outcome{
			"net-tf-adopt": report.OutcomeAdopted, "net-tf-gone": report.OutcomeCleared,
		}) {
			t.Errorf("dry-run outcomes: %v", got)
		}
		if n := len(stateResources(t, statePath)); n != 0 {
			t.Errorf("recover --dry-run imported %d resources into the workspace's state, want 0", n)
		}
		for name, obj := range objs {
			if err := cluster.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				t.Fatal(err)
			}
			if en := obj.GetAnnotations()[recovery.AnnotationExternalName]; en != "" {
				t.Errorf("%s: recover --dry-run set external-name %q", name, en)
			}
		}
	})

	t.Run("Recover", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := cli.Main(ctx, args(), &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("recover: exit %d, want %d\nstderr:\n%s", code, cli.ExitOK, stderr.String())
		}
		if err := report.ValidateJSON(stdout.Bytes()); err != nil {
			t.Errorf("the report does not validate: %v", err)
		}
		want := map[string]report.Outcome{"net-tf-adopt": report.OutcomeAdopted, "net-tf-gone": report.OutcomeCleared}
		if diff := cmp.Diff(want, outcomes(t, stdout.Bytes())); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{ids["net-tf-adopt"]}, stateResources(t, statePath)); diff != "" {
			t.Errorf("IDs of the fakecloud_network resources in the workspace's state (-want +got):\n%s", diff)
		}
		adopt := objs["net-tf-adopt"]
		if err := cluster.Client.Get(ctx, client.ObjectKeyFromObject(adopt), adopt); err != nil {
			t.Fatal(err)
		}
		if en := adopt.GetAnnotations()[recovery.AnnotationExternalName]; en != ids["net-tf-adopt"] {
			t.Errorf("net-tf-adopt: external-name %q, want %q", en, ids["net-tf-adopt"])
		}
	})
}

// outcomes returns each entry's outcome by resource name.
func outcomes(t *testing.T, reportBytes []byte) map[string]report.Outcome {
	t.Helper()
	rep, err := report.Decode(reportBytes)
	if err != nil {
		t.Fatalf("decode the report: %v\n%s", err, reportBytes)
	}
	out := map[string]report.Outcome{}
	for _, e := range rep.Entries {
		out[e.Resource.Name] = e.Outcome
	}
	return out
}

// stateResources returns the IDs of the fakecloud_network instances in the
// state file at path (none when it does not exist).
func stateResources(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				Attributes struct {
					ID string `json:"id"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	var ids []string
	for _, r := range st.Resources {
		if r.Type != "fakecloud_network" {
			continue
		}
		for _, in := range r.Instances {
			ids = append(ids, in.Attributes.ID)
		}
	}
	return ids
}
