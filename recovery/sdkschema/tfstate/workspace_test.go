package tfstate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenID is the network ID in testdata/workspace-network.tfstate, the
// state OpenTofu 1.12 left in upjet's workspace after the async apply of
// a fakecloud_network (the test bed's TestCLIConnectorSettlesFromWorkspace
// checks that the file keeps the shape of what OpenTofu writes).
const goldenID = "net-5943a0562197bcdd"

func readWorkspaceGolden(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "workspace-network.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeWorkspace(t *testing.T) {
	golden := readWorkspaceGolden(t)
	type want struct {
		attrs   map[string]any
		private string
		err     bool
	}
	cases := map[string]struct {
		reason string
		state  []byte
		want   want
	}{
		"Applied": {
			reason: "The state an apply left holds the managed instance's attributes, the cloud's ID among them, and its private data, base64-decoded.",
			state:  golden,
			want: want{private: "null", attrs: map[string]any{
				"id": goldenID, "name": "net-ok", "cidr_block": "10.1.0.0/16", "arn": "arn:aws:fakecloud:local:000000000000:network/" + goldenID,
				"tags": map[string]any{
					"crossplane-kind":           "network.fakecloud.intentjournal.io",
					"crossplane-name":           "net-ok",
					"crossplane-providerconfig": "default",
				},
			}},
		},
		"NoResources": {
			reason: "A state whose resource a refresh removed (upjet's seed with an empty id) has no attributes.",
			state:  []byte(`{"version":4,"terraform_version":"1.12.6","serial":2,"lineage":"x","outputs":{},"resources":[],"check_results":null}`),
		},
		"NoInstances": {
			reason: "A resource with no instance has no attributes.",
			state:  []byte(`{"version":4,"resources":[{"mode":"managed","type":"fakecloud_network","name":"n","instances":[]}]}`),
		},
		"NullAttributes": {
			reason: "Null attributes are no attributes.",
			state:  []byte(`{"version":4,"resources":[{"instances":[{"attributes":null}]}]}`),
		},
		"NoPrivate": {
			reason: "An instance without private data has none.",
			state:  []byte(`{"version":4,"resources":[{"instances":[{"attributes":{"id":"x"}}]}]}`),
			want:   want{attrs: map[string]any{"id": "x"}},
		},
		"PrivateNotBase64": {
			reason: "Private data that is not base64 is an error: upjet could not read the state either.",
			state:  []byte(`{"version":4,"resources":[{"instances":[{"attributes":{"id":"x"},"private":"%%%"}]}]}`),
			want:   want{err: true},
		},
		"Empty": {
			reason: "An empty file is no state, as Terraform reads it.",
			state:  []byte(" \n"),
		},
		"Truncated": {
			reason: "A state read while a refresh rewrites it is an error, not a partial read.",
			state:  golden[:len(golden)/2],
			want:   want{err: true},
		},
		"NotJSON": {
			reason: "Bytes that are not JSON are an error.",
			state:  []byte("\x00\x01terraform"),
			want:   want{err: true},
		},
		"Version3": {
			reason: "A state in another format than 4 is an error.",
			state:  []byte(`{"version":3,"resources":[]}`),
			want:   want{err: true},
		},
		"NoVersion": {
			reason: "JSON without a format version is not a state.",
			state:  []byte(`{"resources":[]}`),
			want:   want{err: true},
		},
		"AttributesNotObject": {
			reason: "Attributes that are not an object are an error.",
			state:  []byte(`{"version":4,"resources":[{"instances":[{"attributes":["id"]}]}]}`),
			want:   want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeWorkspace(tc.state)
			if diff := cmp.Diff(tc.want, want{attrs: got.Attributes, private: got.Private, err: err != nil}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nDecodeWorkspace(): -want, +got (error %v):\n%s", tc.reason, err, diff)
			}
		})
	}
}

// TestReadWorkspace: the state is read from <root>/<uid>, once; no file
// or no UID is no state.
func TestReadWorkspace(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "uid-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "uid-1", WorkspaceStateFile), readWorkspaceGolden(t), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := ReadWorkspace(root, "uid-1")
	if err != nil || w.Attributes["id"] != goldenID {
		t.Errorf("ReadWorkspace(uid-1) = %v, %v; want the golden state, id %s", w.Attributes["id"], err, goldenID)
	}
	for _, uid := range []string{"", "uid-2"} {
		if w, err := ReadWorkspace(root, uid); err != nil || w.Attributes != nil {
			t.Errorf("ReadWorkspace(%q) = %v, %v; want no state and no error", uid, w, err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "uid-1", WorkspaceStateFile), []byte(`{"version":3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadWorkspace(root, "uid-1"); err == nil {
		t.Error("ReadWorkspace of a version 3 state: no error")
	}
}
