package upjetv2_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ujjson "github.com/crossplane/upjet/v2/pkg/resource/json"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

// cliGolden is the real workspace state (one this test wrote) that
// adapter/upjetv2's decoder tests and fuzz target start from
// (TestDecodeWorkspaceState, FuzzWorkspaceState).
// TestCLIConnectorSettlesFromWorkspace keeps its shape that of the state
// OpenTofu writes.
const cliGolden = "../../../recovery/sdkschema/tfstate/testdata/workspace-network.tfstate"

// cliApplyTimeout bounds the wait for an async apply to end: terraform
// init, a refresh and the apply, each starting the provider plugin.
const cliApplyTimeout = 40 * time.Second

// cloudID stands for the ID the fake cloud gave the network.
const cloudID = "<cloud-id>"

// cliFacts is what the probe and the test saw of one create.
type cliFacts struct {
	// Just before upjet's Create started `terraform apply`.
	DispatchState   journal.State // the intent in the journal
	DispatchAttempt int
	Annotated       bool   // the intent annotation is on the object
	DispatchStateID string // the id in the workspace state
	DispatchCloud   int    // networks of this name in the cloud
	CreateFailed    bool   // upjet's Create returned an error
	// When the apply ended, after intentjournal's Created.
	ApplyFailed  bool
	State        journal.State
	ErrorClass   journal.ErrorClass
	FaultMessage bool   // the outcome's message is the cloud's error
	SettledName  string // the outcome's external name
	ObjectName   string // crossplane.io/external-name in the API
	ProviderMeta string // upjet.crossplane.io/provider-meta in the API
	Cloud        int    // networks of this name in the cloud
	// Afterwards, in $TMPDIR/<uid>.
	Workspace   []string // upjet's files there
	WorkspaceID string   // the id in its terraform.tfstate
	// The fake cloud answered a create with an injected error.
	InjectedErrors bool
}

// TestCLIConnectorSettlesFromWorkspace runs creates through upjet's
// Terraform CLI connector (async `terraform apply` in $TMPDIR/<uid>),
// wrapped by KindFor, on real parts (see cliBed). For each
// create it checks that the intent is in the journal before the apply is
// dispatched, and that the create callback settles it from the state the
// apply left in the workspace: succeeded-then-settled with the ID the
// fake cloud assigned, patched onto the object, before upjet's own
// callback runs; or, when the cloud fails the create, failed, as on the
// plugin SDK path.
func TestCLIConnectorSettlesFromWorkspace(t *testing.T) {
	b := newCLIBed(t)
	cases := []struct {
		name   string
		reason string
		faults fakecloud.Faults
		want   cliFacts
	}{
		{
			name:   "net-ok",
			reason: "The callback reads the ID from $TMPDIR/<uid>/terraform.tfstate and settles with it before upjet's callback runs.",
			want: cliFacts{
				DispatchState: journal.StatePending, DispatchAttempt: 1, Annotated: true,
				State: journal.StateSettled, SettledName: cloudID, ObjectName: cloudID, Cloud: 1,
				// The instance's private data, which upjet's Observe would
				// otherwise write in an update of its own.
				ProviderMeta: "null",
				Workspace:    []string{".terraform.lock.hcl", "main.tf.json", "terraform.tfstate"},
				WorkspaceID:  cloudID,
			},
		},
		{
			name:   "net-fail",
			reason: "A create the cloud fails settles failed with the class of the Terraform diagnostic, which names no known pattern.",
			faults: fakecloud.Faults{ErrorRate: fakecloud.Rates{Create: 1}},
			want: cliFacts{
				DispatchState: journal.StatePending, DispatchAttempt: 1, Annotated: true,
				ApplyFailed: true, State: journal.StateFailed, ErrorClass: journal.ErrorClassUnknown, FaultMessage: true,
				Workspace:      []string{".terraform.lock.hcl", "main.tf.json", "terraform.tfstate"},
				InjectedErrors: true,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := b.server.SetFaults(tc.faults); err != nil {
				t.Fatal(err)
			}
			nw := testbed.NewCLINetwork(tc.name, "10.1.0.0/16")
			testbed.Create(t, b.cluster, nw)
			d, e := b.probe.waitEnd(t, tc.name, cliApplyTimeout)
			if d.intentErr != nil || e.intentErr != nil || e.cloudErr != nil {
				t.Fatalf("read the journal at dispatch: %v; at the end: %v; read the cloud: %v", d.intentErr, e.intentErr, e.cloudErr)
			}
			if d.intent.Resource.UID != string(d.uid) || d.uid == "" {
				t.Fatalf("the intent at dispatch is for %s, want the object's UID %q", d.intent.Resource, d.uid)
			}
			id := "" // the fake cloud's ID of the network
			if len(e.cloud) == 1 {
				id = e.cloud[0].ID
			}
			dir := filepath.Join(b.root, string(d.uid))
			stats, err := b.cloud.Stats(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			stateBytes, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
			got := cliFacts{
				DispatchState: d.intent.State, DispatchAttempt: d.intent.Attempt, Annotated: d.annotated,
				DispatchStateID: d.stateID, DispatchCloud: d.cloudNames, CreateFailed: d.createErr != nil,
				ApplyFailed: e.applyErr != nil, State: e.intent.State, ErrorClass: e.intent.Outcome.ErrorClass,
				FaultMessage: strings.Contains(e.intent.Outcome.Message, "injected fault: internal error"),
				SettledName:  asCloudID(e.intent.Outcome.ExternalName, id),
				ObjectName:   asCloudID(e.externalName, id),
				ProviderMeta: e.providerMeta,
				Cloud:        len(e.cloud),
				Workspace:    workspaceFiles(dir),
				WorkspaceID:  asCloudID(workspaceStateID(filepath.Join(dir, "terraform.tfstate")), id),

				InjectedErrors: stats.Kinds[fakecloud.KindNetworks].InjectedErrors > 0,
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s\napply error: %v\nintent at the end: %s, outcome %+v\nworkspace state:\n%s", tc.reason, diff, e.applyErr, e.intent.State, e.intent.Outcome, stateBytes)
			}
			if tc.want.ApplyFailed || t.Failed() {
				return
			}
			if e.intent.Outcome.ExternalName == "" || e.intent.Outcome.ExternalName != id {
				t.Errorf("settled with external name %q, want the cloud's ID %q", e.intent.Outcome.ExternalName, id)
			}
			checkGoldenShape(t, stateBytes)
			// What upjet's Observe compares the annotation with
			// (resource.SetCriticalAnnotations): equal, it writes nothing.
			st := &ujjson.StateV4{}
			if err := ujjson.JSParser.Unmarshal(stateBytes, st); err != nil {
				t.Fatalf("upjet cannot decode the workspace state: %v", err)
			}
			if p := string(st.GetPrivateRaw()); e.providerMeta != p {
				t.Errorf("the callback's patch left provider-meta %q, upjet's Observe sets %q: it would update the object again", e.providerMeta, p)
			}
		})
	}
}

// asCloudID returns cloudID for the fake cloud's ID id, s otherwise.
func asCloudID(s, id string) string {
	if id != "" && s == id {
		return cloudID
	}
	return s
}

// workspaceFiles returns which of upjet's workspace files are in dir.
func workspaceFiles(dir string) []string {
	var out []string
	for _, f := range []string{".terraform.lock.hcl", "main.tf.json", "terraform.tfstate"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// checkGoldenShape fails t unless the real workspace state has the shape
// of the golden state the decoder's tests use: the same keys down to the
// instance's attributes. To refresh the golden, copy into it the real
// state this test prints, and update goldenID in adapter/upjetv2's
// workspace_test.go.
func checkGoldenShape(t *testing.T, real []byte) {
	t.Helper()
	golden, err := os.ReadFile(cliGolden)
	if err != nil {
		t.Fatalf("read the golden workspace state: %v", err)
	}
	want, err := stateShape(golden)
	if err != nil {
		t.Fatalf("decode %s: %v", cliGolden, err)
	}
	got, err := stateShape(real)
	if err != nil {
		t.Fatalf("decode the workspace state: %v\n%s", err, real)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the workspace state OpenTofu wrote has another shape than %s (-golden +real):\n%s\nreal state:\n%s", cliGolden, diff, real)
	}
}
