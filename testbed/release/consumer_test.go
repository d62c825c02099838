package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// version is what the test releases the checkout as: above any real release,
// and new in every run, so that no copy an earlier run left in the module
// cache can stand in for this checkout. Each run removes its own copies.
var version = "v0.99.0-consumertest." + strconv.FormatInt(time.Now().UnixNano(), 10)

// prefix is the root module's path; the others are below it.
const prefix = "github.com/intentjournal/intentjournal"

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../.."

// released is the checkout after hack/release.sh and a file-based module
// proxy serving its shipped modules.
type released struct {
	src, proxy string
}

// shipped are the modules a provider requires: the root module, the
// plugin SDK schema reader, both adapters and the cloud inventories.
var shipped = []string{".", "recovery/sdkschema", "adapter/upjetv1", "adapter/upjetv2", "inventory/aws", "inventory/azure", "inventory/gcp"}

// release copies the checkout, runs hack/release.sh on the copy and serves
// the shipped modules from a file proxy.
func release(t *testing.T) released {
	t.Helper()
	r := released{src: filepath.Join(t.TempDir(), "src"), proxy: filepath.Join(t.TempDir(), "proxy")}
	copyCheckout(t, r.src)
	run(t, r.src, nil, "bash", "hack/release.sh", version, "--no-git")
	for _, dir := range shipped {
		path := r.serve(t, dir)
		t.Cleanup(func() { forget(t, path) })
	}
	return r
}

// checkoutReplace is the one replace directive a shipped module may hold:
// an inventory's, of the root module by this checkout, for its own tests
// outside the workspaces. The go command applies replace directives of the
// main module only, so a provider's build resolves the requirement instead
// (TestInventoryConsumers builds one).
var checkoutReplace = regexp.MustCompile(`(?m)^replace ` + regexp.QuoteMeta(prefix) + ` => \.\./\.\.$`)

// serve adds the module in dir of the released copy to the proxy at
// version: its .mod, .info and .zip, and the version list.
func (r released) serve(t *testing.T, dir string) (path string) {
	t.Helper()
	modDir := filepath.Join(r.src, dir)
	gomod, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	path = modulePath(gomod)
	if path == "" {
		t.Fatalf("%s/go.mod declares no module", dir)
	}
	if rest := checkoutReplace.ReplaceAll(gomod, nil); bytes.Contains(rest, []byte("\nreplace")) || bytes.Contains(rest, []byte("=> ")) {
		t.Errorf("%s/go.mod holds a replace directive, which a provider's build would ignore:\n%s", dir, gomod)
	}
	if !bytes.Contains(gomod, []byte(prefix+" "+version)) && path != prefix {
		t.Errorf("%s/go.mod does not require the root module at the release version %s:\n%s", dir, version, gomod)
	}
	esc, err := module.EscapePath(path)
	if err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(r.proxy, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	write(t, filepath.Join(at, "list"), []byte(version+"\n"))
	write(t, filepath.Join(at, version+".info"), info)
	write(t, filepath.Join(at, version+".mod"), gomod)
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := modzip.CreateFromDir(f, module.Version{Path: path, Version: version}, modDir); err != nil {
		t.Fatalf("zip of %s: %v", path, err)
	}
	return path
}

// forget removes the module cache's copies of path at version: the
// extracted module and what the go command downloaded. The consumers run
// with -modcacherw, so they are writable.
func forget(t *testing.T, path string) {
	esc, err := module.EscapePath(path)
	if err != nil {
		t.Error(err)
		return
	}
	escV, err := module.EscapeVersion(version)
	if err != nil {
		t.Error(err)
		return
	}
	cache := strings.TrimSpace(goEnv("GOMODCACHE"))
	if cache == "" {
		return
	}
	doomed := []string{filepath.Join(cache, filepath.FromSlash(esc)+"@"+escV)}
	dl, _ := filepath.Glob(filepath.Join(cache, "cache", "download", filepath.FromSlash(esc), "@v", escV+".*"))
	for _, p := range append(doomed, dl...) {
		if err := os.RemoveAll(p); err != nil {
			t.Errorf("cannot remove %s from the module cache: %v", p, err)
		}
	}
}

// env is the environment of a consumer's go commands: no workspace; our
// modules from the file proxy, every other from the usual proxy (through
// this machine's module cache, whose builds the consumers then reuse); no
// checksum database for ours (they were never published).
func (r released) env() []string {
	upstream := strings.TrimSpace(goEnv("GOPROXY"))
	if upstream == "" || upstream == "off" {
		upstream = "https://proxy.golang.org,direct"
	}
	return []string{
		"GOWORK=off",
		"GOFLAGS=-mod=mod -modcacherw",
		"GOPROXY=file://" + filepath.ToSlash(r.proxy) + "," + upstream,
		"GONOSUMDB=" + prefix,
		"GOPRIVATE=",
		"GONOPROXY=",
	}
}

// consumer writes a module outside the tree that requires path at version
// and whose main package is main, runs go mod tidy and go build, and
// returns its directory.
func (r released) consumer(t *testing.T, name, path, main string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	write(t, filepath.Join(dir, "go.mod"), fmt.Appendf(nil, "module example.com/%s\n\ngo 1.26.8\n\nrequire %s %s\n", name, path, version))
	write(t, filepath.Join(dir, "main.go"), []byte(main))
	run(t, dir, r.env(), "go", "mod", "tidy")
	run(t, dir, r.env(), "go", "build", "-o", filepath.Join(dir, name), ".")
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(gomod, []byte(prefix+" "+version)) {
		t.Errorf("%s's go.mod does not require the root module at %s:\n%s", name, version, gomod)
	}
	return dir
}

// TestProviderImportsAdapters builds, for each crossplane line, a module
// that imports the adapter as a provider's main package does (a journal,
// the adapter, its hold on the manager), from the file proxy at the release
// version.
func TestProviderImportsAdapters(t *testing.T) {
	testenv.SkipShort(t, "the go command, building a consumer module against a released copy of the checkout (about a minute)")
	r := release(t)
	for _, line := range []string{"upjetv2", "upjetv1"} {
		t.Run(line, func(t *testing.T) {
			r.consumer(t, "provider-"+line, prefix+"/adapter/"+line, fmt.Sprintf(providerMain, line))
		})
	}
}

// TestInventoryConsumers builds, for each cloud, a module that imports its
// inventory (the tag lister a provider passes to upjetv2.WithLister)
// from the file proxy at the release version: the inventory's requirement
// on the root module, not its replace, is what the build resolves.
func TestInventoryConsumers(t *testing.T) {
	testenv.SkipShort(t, "the go command, building consumer modules against a released copy of the checkout")
	r := release(t)
	for _, cloud := range []string{"aws", "azure", "gcp"} {
		t.Run(cloud, func(t *testing.T) {
			r.consumer(t, "inventory-"+cloud, prefix+"/inventory/"+cloud, fmt.Sprintf(inventoryMain, cloud))
		})
	}
}

// inventoryMain uses an inventory's constructor and the journal.
const inventoryMain = `package main

import (
	"fmt"

	"github.com/intentjournal/intentjournal/inventory/%[1]s"
	"github.com/intentjournal/intentjournal/journal"
)

var newLister = %[1]s.New

func main() {
	fmt.Println(newLister != nil, journal.SchemaVersion)
}
`

// providerMain is a provider's main package, reduced to what touches the
// library: the journal, and the adapter's Setup and Config.
const providerMain = `package main

import (
	"fmt"
	"os"

	"github.com/intentjournal/intentjournal/adapter/%[1]s"
	"github.com/intentjournal/intentjournal/journal"
)

// setup is what the provider's main calls with its manager.
var setup = %[1]s.Setup

func main() {
	j, err := journal.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer j.Close()
	fmt.Println(setup != nil, %[1]s.Config{JournalPath: os.Args[1]}.JournalPath)
}
`

// forbidden are module path prefixes that must never reach the module graph
// of a module that imports only the journal: the test bed, hack/'s
// plotting, the Terraform plugin SDKs, crossplane.
var forbidden = []string{
	prefix + "/testbed",
	prefix + "/hack",
	prefix + "/adapter",
	"gonum.org/v1/plot",
	"codeberg.org/go-latex",
	"codeberg.org/go-pdf",
	"github.com/hashicorp/terraform-plugin-",
	"github.com/crossplane/",
}

// TestJournalOnlyConsumer lists the modules of a module that imports only
// journal/ and checks that none of them is test bed, plotting, Terraform
// plugin or crossplane. The list is logged (go test -v) for the record.
func TestJournalOnlyConsumer(t *testing.T) {
	testenv.SkipShort(t, "the go command, building a consumer module against a released copy of the checkout")
	r := release(t)
	dir := r.consumer(t, "journal-only", prefix, journalMain)
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), r.env()...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	mods := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Logf("go list -m all of a journal-only consumer: %d modules\n%s", len(mods), out)
	for _, m := range mods {
		if slices.ContainsFunc(forbidden, func(f string) bool { return strings.HasPrefix(m, f) }) {
			t.Errorf("a journal-only consumer's module graph holds %s", m)
		}
	}
}

// journalMain uses the journal only.
const journalMain = `package main

import (
	"fmt"
	"os"

	"github.com/intentjournal/intentjournal/journal"
)

func main() {
	j, err := journal.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer j.Close()
	fmt.Println("ok")
}
`

// modulePath returns the path a go.mod declares.
func modulePath(gomod []byte) string {
	for line := range strings.SplitSeq(string(gomod), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`)
		}
	}
	return ""
}

// copyCheckout copies the repository's files, as git sees them (tracked and
// untracked but not ignored), into dst; without git, every file but .git.
func copyCheckout(t *testing.T, dst string) {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	cmd := exec.Command("git", "ls-files", "-co", "--exclude-standard", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		for f := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
			files = append(files, f)
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(root, p)
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs name with args in dir, with env added to this process's.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
}

// write writes data to path, creating its directory.
func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goEnv returns go env name.
func goEnv(name string) string {
	out, _ := exec.Command("go", "env", name).Output()
	return string(out)
}
