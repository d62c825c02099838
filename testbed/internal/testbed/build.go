package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// FakeCloudPackage is the import path of the fake cloud's command; each
// line's test bed names its own provider's.
const FakeCloudPackage = "github.com/intentjournal/intentjournal/testbed/cmd/fakecloud"

// needProvider is what a test that runs provider-fakecloud needs, as
// testenv.SkipShort names it.
const needProvider = "provider-fakecloud (a 10-15 s build) and " + testenv.NeedEnvtest

// Binaries holds the paths of the binaries the testbed runs.
type Binaries struct {
	FakeCloud string
	Provider  string
}

// BuildBinaries builds the fake cloud and the provider at providerPackage
// (a line's provider-fakecloud) concurrently into
// t.TempDir(). Build once per top-level test and share the result with its
// subtests: linking the provider takes 10-15 s on 2 cores. The provider only
// runs against a control plane, so under -short BuildBinaries skips t before
// building (see testenv.SkipShort), and otherwise fails t, naming `make
// tools`, before building when kube-apiserver or etcd is missing.
func BuildBinaries(t testing.TB, providerPackage string) Binaries {
	t.Helper()
	return BuildBinariesIn(t, "", providerPackage)
}

// BuildBinariesIn is BuildBinaries with the provider built in the Go module
// at moduleDir (go -C moduleDir build): a test of one module, such as the
// root module's demo, runs a line's provider-fakecloud, whose module it
// cannot import. providerPackage is then relative to moduleDir, e.g.
// ./internal/cmd/provider-fakecloud. An empty moduleDir is the module of
// the running test.
func BuildBinariesIn(t testing.TB, moduleDir, providerPackage string) Binaries {
	t.Helper()
	testenv.SkipShort(t, needProvider)
	testenv.KubebuilderAssets(t)
	var b Binaries
	var wg sync.WaitGroup
	var errs [2]string
	for i, pkg := range []string{FakeCloudPackage, providerPackage} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mod := ""
			if i == 1 {
				mod = moduleDir
			}
			path, msg := build(t.TempDir(), mod, pkg)
			if i == 0 {
				b.FakeCloud = path
			} else {
				b.Provider = path
			}
			errs[i] = msg
		}()
	}
	wg.Wait()
	for _, msg := range errs {
		if msg != "" {
			t.Fatal(msg)
		}
	}
	return b
}

// Build compiles the main package pkg with the go command that runs the
// tests and returns the path of the binary, which lives in t.TempDir(). It
// does not skip under -short: the fake cloud builds in a few seconds and
// needs no tools, so its process tests stay in the fast loop.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	path, msg := build(t.TempDir(), "", pkg)
	if msg != "" {
		t.Fatal(msg)
	}
	return path
}

// build compiles pkg, of the module at moduleDir when set, into dir and
// returns the binary's path, or a failure message.
func build(dir, moduleDir, pkg string) (path, msg string) {
	// go test puts the go command that runs it first in PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", "testbed: cannot find the go command: " + err.Error()
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", out, pkg}
	cmd := exec.Command(goBin, args...)
	if moduleDir != "" {
		cmd.Args = append([]string{goBin, "-C", moduleDir}, args...)
		work, err := Workspace(moduleDir)
		if err != nil {
			return "", "testbed: cannot build " + pkg + ": " + err.Error()
		}
		cmd.Env = append(os.Environ(), "GOWORK="+work)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", "testbed: cannot build " + pkg + " (module " + orDot(moduleDir) + "): " + err.Error() + "\n" + string(b)
	}
	return out, ""
}

// orDot returns dir, or "." when it is empty.
func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// Workspace returns the absolute path of the go.work file that builds the
// module at moduleDir: the repository holds one per crossplane line (go.work
// for v2, v1.work for v1), since the two lines pin different
// controller-runtime versions, and gcp.work for the Cloud DNS provider. It
// looks in the first directory above moduleDir that holds a go.work for a
// *.work file whose use directives name moduleDir, go.work first: a module
// in more than one (adapter/upjetv2 is in go.work and gcp.work) builds in
// go.work.
func Workspace(moduleDir string) (string, error) {
	mod, err := filepath.Abs(moduleDir)
	if err != nil {
		return "", fmt.Errorf("workspace of %s: %w", moduleDir, err)
	}
	for root := mod; ; {
		if _, err := os.Stat(filepath.Join(root, "go.work")); err == nil {
			works, err := filepath.Glob(filepath.Join(root, "*.work"))
			if err != nil {
				return "", fmt.Errorf("workspace of %s: %w", moduleDir, err)
			}
			main := filepath.Join(root, "go.work")
			slices.SortStableFunc(works, func(a, b string) int {
				switch {
				case a == main && b != main:
					return -1
				case b == main && a != main:
					return 1
				}
				return strings.Compare(a, b)
			})
			for _, w := range works {
				data, err := os.ReadFile(w)
				if err != nil {
					return "", fmt.Errorf("workspace of %s: %w", moduleDir, err)
				}
				wf, err := modfile.ParseWork(w, data, nil)
				if err != nil {
					return "", fmt.Errorf("workspace of %s: %w", moduleDir, err)
				}
				for _, u := range wf.Use {
					if filepath.Join(root, u.Path) == mod {
						return w, nil
					}
				}
			}
			return "", fmt.Errorf("no *.work file in %s uses %s", root, moduleDir)
		}
		up := filepath.Dir(root)
		if up == root {
			return "", fmt.Errorf("no go.work above %s", moduleDir)
		}
		root = up
	}
}
