package upjetv2

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crossplane/upjet/v2/pkg/config"
	ujjson "github.com/crossplane/upjet/v2/pkg/resource/json"
	"github.com/google/go-cmp/cmp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery/sdkschema/tfstate"
)

// workspaceGolden is the state OpenTofu 1.12 left in upjet's workspace
// after the async apply of a fakecloud_network (the test bed's
// TestCLIConnectorSettlesFromWorkspace, which also checks that this file
// keeps the shape of what OpenTofu writes).
const workspaceGolden = "workspace-network.tfstate"

// goldenID is the network ID in workspaceGolden.
const goldenID = "net-5943a0562197bcdd"

func readWorkspaceGolden(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "recovery", "sdkschema", "tfstate", "testdata", workspaceGolden))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withID returns the golden state with its id attribute's JSON value
// replaced by v.
func withID(t testing.TB, v string) []byte {
	t.Helper()
	b := readWorkspaceGolden(t)
	old := []byte(`"id": "` + goldenID + `"`)
	if !bytes.Contains(b, old) {
		t.Fatalf("%s has no %s", workspaceGolden, old)
	}
	return bytes.Replace(b, old, []byte(`"id": `+v), 1)
}

func TestWorkspaceCreated(t *testing.T) {
	const uid = types.UID("8ebc4a0f-3f4d-4726-aa26-0a5fdd60683c")
	templated := config.TemplatedStringAsIdentifier("name", "projects/p1/networks/{{ .external_name }}")
	failing := config.IdentifierFromProvider
	failing.GetExternalNameFn = func(map[string]any) (string, error) { return "", errors.New("boom") }
	meta := map[string]string{"upjet.crossplane.io/provider-meta": "null"}
	type want struct {
		state adapter.CreatedState
		err   bool
	}
	cases := map[string]struct {
		reason string
		r      *config.Resource
		state  []byte // nil: no state file
		want   want
	}{
		"IdentifierFromProvider": {
			reason: "The external name of an IdentifierFromProvider kind is the ID the apply wrote; upjet's provider-meta annotation is the instance's private data, as its Observe sets it.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
			state:  readWorkspaceGolden(t),
			want:   want{state: adapter.CreatedState{TerraformID: goldenID, Annotations: meta}},
		},
		"Templated": {
			reason: "A templated kind's external name is what its GetExternalNameFn takes from the ID, as upjet's Observe sets it.",
			r:      &config.Resource{ExternalName: templated},
			state:  withID(t, `"projects/p1/networks/net-ok"`),
			want:   want{state: adapter.CreatedState{TerraformID: "net-ok", Annotations: meta}},
		},
		"NoConfig": {
			reason: "Without a configuration the external name is the id attribute.",
			state:  readWorkspaceGolden(t),
			want:   want{state: adapter.CreatedState{TerraformID: goldenID, Annotations: meta}},
		},
		"NoPrivate": {
			reason: "An instance without private data adds no annotation: upjet's Observe, which compares the annotation with \"\", would not write one.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
			state:  []byte(`{"version":4,"resources":[{"instances":[{"attributes":{"id":"x"}}]}]}`),
			want:   want{state: adapter.CreatedState{TerraformID: "x"}},
		},
		"NoStateFile": {
			reason: "No workspace state (another root, a removed workspace) leaves the intent to Observe, without an error.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
		},
		"SeededEmptyID": {
			reason: "upjet's seed before a create has an empty id: no name yet and no annotation, and no error, though IDAsExternalName would fail.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
			state:  withID(t, `""`),
		},
		"NullID": {
			reason: "A null id is no name yet.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
			state:  withID(t, `null`),
		},
		"NoResource": {
			reason: "A state with no resource has no name.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
			state:  []byte(`{"version":4,"resources":[]}`),
		},
		"Corrupt": {
			reason: "A state that does not decode is an error for the callback to log.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
			state:  readWorkspaceGolden(t)[:100],
			want:   want{err: true},
		},
		"IDNotString": {
			reason: "An id that is not a string is an error.",
			r:      &config.Resource{ExternalName: config.IdentifierFromProvider},
			state:  withID(t, `7`),
			want:   want{err: true},
		},
		"GetExternalNameFnFails": {
			reason: "An error of the kind's GetExternalNameFn is returned.",
			r:      &config.Resource{ExternalName: failing},
			state:  readWorkspaceGolden(t),
			want:   want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if tc.state != nil {
				if err := os.Mkdir(filepath.Join(root, string(uid)), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, string(uid), "terraform.tfstate"), tc.state, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			mg := &unstructured.Unstructured{}
			mg.SetUID(uid)
			got, err := workspaceCreated(tc.r, root)(mg)
			if diff := cmp.Diff(tc.want, want{state: got, err: err != nil}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nworkspaceCreated(): -want, +got (error %v):\n%s", tc.reason, err, diff)
			}
			if err != nil && !strings.Contains(err.Error(), filepath.Join(root, string(uid), "terraform.tfstate")) {
				t.Errorf("error %q does not name the state file", err)
			}
		})
	}
}

// TestWorkspaceCreatedDefaultRoot: root "" is os.TempDir() at the time of the
// read, where upjet's default store puts its workspaces.
func TestWorkspaceCreatedDefaultRoot(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mg := &unstructured.Unstructured{}
	mg.SetUID("uid-1")
	read := func(mg *unstructured.Unstructured) (string, error) {
		st, err := workspaceCreated(&config.Resource{ExternalName: config.IdentifierFromProvider}, "")(mg)
		return st.TerraformID, err
	}
	if got, err := read(mg); got != "" || err != nil {
		t.Fatalf("before the apply: workspaceCreated() = %q, %v; want no name and no error", got, err)
	}
	if err := os.Mkdir(filepath.Join(tmp, "uid-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "uid-1", "terraform.tfstate"), readWorkspaceGolden(t), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := read(mg); got != goldenID || err != nil {
		t.Errorf("workspaceCreated() = %q, %v; want %q from $TMPDIR/uid-1", got, err, goldenID)
	}
	mg.SetUID("")
	if got, err := read(mg); got != "" || err != nil {
		t.Errorf("an object without a UID: workspaceCreated() = %q, %v; want no name and no error", got, err)
	}
}

// TestWorkspaceKindNilAdapter: a nil Adapter wraps nothing.
func TestWorkspaceKindNilAdapter(t *testing.T) {
	var a *Adapter
	if k := a.workspaceKind(schema.GroupVersionKind{Kind: "Network"}, &config.Resource{}, ""); k != nil {
		t.Errorf("(*Adapter)(nil).workspaceKind() = %v, want nil", k)
	}
}

// FuzzWorkspaceState checks that no bytes make the decoder panic, and that
// the attributes it reads from valid UTF-8 are those upjet's own decoding
// gives Observe (StateV4.GetAttributes through its JSON parser) whenever
// both succeed.
func FuzzWorkspaceState(f *testing.F) {
	golden := readWorkspaceGolden(f)
	f.Add(golden)
	f.Add(golden[:len(golden)/2])
	f.Add(withID(f, `""`))
	f.Add(withID(f, `null`))
	f.Add(withID(f, `7`))
	f.Add([]byte(`{"version":4,"resources":[]}`))
	f.Add([]byte(`{"version":4,"resources":[{"instances":[{"attributes":null}]}]}`))
	f.Add([]byte(`{"version":3}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := tfstate.DecodeWorkspace(b)
		if err != nil {
			return
		}
		// A non-empty string id is the name of an IdentifierFromProvider kind.
		if id, ok := got.Attributes["id"].(string); ok && id != "" {
			name, err := externalNameFromState(&config.Resource{ExternalName: config.IdentifierFromProvider}, got.Attributes)
			if name != id || err != nil {
				t.Fatalf("externalNameFromState() = %q, %v; want the id %q", name, err, id)
			}
		}
		// encoding/json replaces invalid UTF-8 in strings, jsoniter keeps
		// it: compare valid text only.
		s := &ujjson.StateV4{}
		if !utf8.Valid(b) || ujjson.JSParser.Unmarshal(b, s) != nil {
			return
		}
		var want map[string]any
		if raw := s.GetAttributes(); raw != nil {
			if ujjson.JSParser.Unmarshal(raw, &want) != nil {
				return
			}
		}
		if diff := cmp.Diff(want, got.Attributes); diff != "" {
			t.Fatalf("DecodeWorkspace() attributes differ from upjet's decoding (-upjet +got):\n%s", diff)
		}
		if p := string(s.GetPrivateRaw()); p != got.Private {
			t.Fatalf("DecodeWorkspace() private data %q, upjet's %q", got.Private, p)
		}
	})
}

// TestWorkspaceRootConfigured: WorkspaceRoot records where a Terraform CLI
// kind's workspaces are, which KindFor reads.
func TestWorkspaceRootConfigured(t *testing.T) {
	r := &config.Resource{Name: "fake_cli_network"}
	Configure(r, WorkspaceRoot("/var/run/workspaces"))
	if got := adapter.FactsOf(r).WorkspaceRoot; got != "/var/run/workspaces" {
		t.Errorf("FactsOf(r).WorkspaceRoot = %q, want /var/run/workspaces", got)
	}
}
