package terraform_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/terraform"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// networkGVK is the fake cloud's Network kind.
var networkGVK = schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"}

// networkType is the Terraform type of the fake cloud's Network.
var networkType = terraform.ResourceType{Type: "fakecloud_network", Required: []string{"name"}}

// Files of the workspace that the package documents (recovery/terraform's
// doc.go) but does not name in its API.
const (
	// lockInfoFile is the local backend's lock info file, beside the
	// state (lockInfoFile in recovery/terraform/lock.go).
	lockInfoFile = ".terraform.tfstate.lock.info"
)

// generatedFile returns the configuration file the Importer generates for
// rt in its workspace: intentjournal_<type>.tf (genFile, set by
// recovery/terraform's New; "write config" in its doc.go).
func generatedFile(im *terraform.Importer, rt terraform.ResourceType) string {
	return filepath.Join(im.Dir(), "intentjournal_"+rt.Type+".tf")
}

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
func (r *rig) importer(t testing.TB, opts ...terraform.Option) *terraform.Importer {
	t.Helper()
	opts = append([]terraform.Option{terraform.WithFilesystemMirror(r.mirror), terraform.WithProviderConfig(tftest.ProviderBlock(r.fc.URL))}, opts...)
	im, err := terraform.New(t.TempDir(), r.cli, networkType, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return im
}

// tf returns a terraform-exec handle on im's workspace that runs the CLI
// as the Importer does (its CLI configuration, the same environment), for
// the commands a test runs itself.
func (r *rig) tf(t testing.TB, im *terraform.Importer) *tfexec.Terraform {
	t.Helper()
	tf, err := tfexec.NewTerraform(im.Dir(), r.cli)
	if err != nil {
		t.Fatalf("tfexec.NewTerraform: %v", err)
	}
	if err := tf.SetEnv(terraform.Env(im.CLIConfigFile(), nil)); err != nil {
		t.Fatalf("tfexec SetEnv: %v", err)
	}
	return tf
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

// captureDir holds the captured CLI output that recovery/terraform's own
// parser tests read (TestParseDiagnosticsGolden, FuzzParseDiagnostics):
// TestCaptureCLIOutput checks the captures against the live CLI and
// rewrites them there under -update. The path is relative to this
// package's directory, in the same repository as the root module.
var captureDir = filepath.Join("..", "..", "..", "recovery", "terraform", "testdata")

// capture writes out to captureDir/name under -update.
func capture(t testing.TB, name string, out []byte) {
	t.Helper()
	if !golden.Update() {
		return
	}
	if err := os.WriteFile(filepath.Join(captureDir, name), out, 0o644); err != nil {
		t.Fatalf("write %s: %v", filepath.Join(captureDir, name), err)
	}
}

// statuses counts results by status.
func statuses(rs []terraform.Result) map[terraform.Status]int {
	out := map[terraform.Status]int{}
	for _, r := range rs {
		out[r.Status]++
	}
	return out
}

// stateIDs returns the IDs in the workspace's state by address, as
// `show -json` reports them.
func (r *rig) stateIDs(t testing.TB, im *terraform.Importer) map[string]string {
	t.Helper()
	st, err := r.tf(t, im).Show(context.Background())
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

// waitForLock waits until a live process holds the state lock of im's
// workspace and returns the lock's info. The local backend takes the lock
// by writing lockInfoFile and holding a POSIX record lock on the state
// file: the two things recovery/terraform's checkLock reads.
func waitForLock(t *testing.T, im *terraform.Importer) terraform.LockInfo {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var info terraform.LockInfo
		raw, err := os.ReadFile(filepath.Join(im.Dir(), lockInfoFile))
		if err == nil && json.Unmarshal(raw, &info) == nil && lockHolder(t, im.StateFile()) != 0 {
			return info
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the CLI did not take the state lock within 30s")
	return terraform.LockInfo{}
}

// lockHolder returns the PID of the process holding a POSIX write lock on
// path, or 0 when none does or path does not exist yet.
func lockHolder(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		t.Fatalf("F_GETLK on %s: %v", path, err)
	}
	if lk.Type == syscall.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}

// processesIn returns the processes, other than this one, whose working
// directory is dir: the CLI and the provider plugins it started, which
// inherit the CLI's working directory. dir is private to one Importer, so
// nothing else runs there.
func processesIn(t *testing.T, dir string) []int {
	t.Helper()
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		// A process that exits meanwhile has no cwd link any more.
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == want {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pluginsIn returns the provider plugin processes running in dir.
func pluginsIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, pid := range processesIn(t, dir) {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, fmt.Sprintf("%d %s %s", pid, exe, strings.ReplaceAll(string(cmd), "\x00", " ")))
	}
	return out
}
