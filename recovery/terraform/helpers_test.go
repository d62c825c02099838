package terraform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/internal/testenv"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// networkGVK is the fake cloud's Network kind.
var networkGVK = schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"}

// networkType is the Terraform type of the fake cloud's Network.
var networkType = ResourceType{Type: "fakecloud_network", Required: []string{"name"}}

// rig is a fake cloud process, the provider in a filesystem mirror and the CLI.
type rig struct {
	fc     *fakecloudtest.Process
	mirror string
	cli    string
}

// newRig starts the real fake cloud and builds the real provider plugin.
func newRig(t testing.TB) *rig {
	t.Helper()
	return &rig{
		cli:    testenv.TerraformCLI(t),
		fc:     fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{}),
		mirror: tftest.BuildMirror(t),
	}
}

// importer returns an Importer for Networks in a new workspace.
func (r *rig) importer(t testing.TB, opts ...Option) *Importer {
	t.Helper()
	opts = append([]Option{WithFilesystemMirror(r.mirror), WithProviderConfig(tftest.ProviderBlock(r.fc.URL))}, opts...)
	im, err := New(t.TempDir(), r.cli, networkType, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return im
}

// candidate returns a Network candidate whose intended external name is id.
func candidate(i int, id string) *recovery.Candidate {
	name := fmt.Sprintf("net-%04d", i)
	uid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(networkGVK)
	obj.SetName(name)
	obj.SetUID(types.UID("uid-" + uid))
	_ = unstructured.SetNestedField(obj.Object, name, "spec", "forProvider", "name")
	_ = unstructured.SetNestedField(obj.Object, "default", "spec", "providerConfigRef", "name")
	return &recovery.Candidate{
		Intent: journal.Intent{
			ID:           journal.NewID(),
			Resource:     journal.ResourceRef{APIVersion: networkGVK.GroupVersion().String(), Kind: networkGVK.Kind, Name: name, UID: "uid-" + uid},
			ExternalName: id,
			State:        journal.StateDispatched,
		},
		GVK:    networkGVK,
		Object: obj,
	}
}

// ourTags are the tags the create of c would have set: crossplane's and
// intentjournal's UID tag (the adapter's Tagger writes both).
func ourTags(c *recovery.Candidate) map[string]string {
	t := c.ExpectedTags()
	t[recovery.TagUID] = c.Intent.Resource.UID
	return t
}

// createNetwork creates a network in the fake cloud and returns its ID.
func createNetwork(t testing.TB, fc *fakecloud.Client, name string, tags map[string]string) string {
	t.Helper()
	n, err := fc.CreateNetwork(context.Background(), fakecloud.Network{Name: name, CIDRBlock: "10.0.0.0/16", Tags: tags})
	if err != nil {
		t.Fatalf("create network %s: %v", name, err)
	}
	return n.ID
}

// missingID is an ID the fake cloud never assigned.
func missingID(i int) string { return fmt.Sprintf("net-ffff%012x", i) }

// capture writes out to testdata/name under -update.
func capture(t testing.TB, name string, out []byte) {
	t.Helper()
	if !golden.Update() {
		return
	}
	if err := os.WriteFile(filepath.Join("testdata", name), out, 0o644); err != nil {
		t.Fatalf("write testdata/%s: %v", name, err)
	}
}

// statuses counts results by status.
func statuses(rs []Result) map[Status]int {
	out := map[Status]int{}
	for _, r := range rs {
		out[r.Status]++
	}
	return out
}

// stateIDs returns the IDs in the workspace's state by address.
func stateIDs(t testing.TB, im *Importer) map[string]string {
	t.Helper()
	st, err := im.tf.Show(context.Background())
	if err != nil {
		t.Fatalf("show: %v", err)
	}
	out := map[string]string{}
	if st.Values == nil || st.Values.RootModule == nil {
		return out
	}
	for _, r := range st.Values.RootModule.Resources {
		id, _ := r.AttributeValues["id"].(string)
		out[r.Address] = id
	}
	return out
}

// pluginsIn returns the provider plugin processes running in dir.
func pluginsIn(dir string) []string {
	var out []string
	for _, pid := range processesIn(dir) {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, fmt.Sprintf("%d %s %s", pid, exe, strings.ReplaceAll(string(cmd), "\x00", " ")))
	}
	return out
}
