package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-exec/tfexec"
)

// recorder is a testing.TB whose Fatalf and Skipf record the message and end
// the calling goroutine, as the real ones do. Everything else goes to the
// real test.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	fatals []string
	skips  []string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

func (r *recorder) Skipf(format string, args ...any) {
	r.mu.Lock()
	r.skips = append(r.skips, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Skip(args ...any) { r.Skipf("%s", fmt.Sprint(args...)) }

// fatalOf runs fn against a recorder in its own goroutine, so that Fatalf can
// end it, and returns what fn returned and the Fatalf message, if any.
func fatalOf(t *testing.T, fn func(testing.TB) string) (got, fatal string) {
	t.Helper()
	got, fatal, skip := endOf(t, fn)
	if skip != "" {
		t.Fatalf("unexpected Skipf: %s", skip)
	}
	return got, fatal
}

// endOf is fatalOf that also returns the Skipf message, if any.
func endOf(t *testing.T, fn func(testing.TB) string) (got, fatal, skip string) {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = fn(r)
	}()
	<-done
	if len(r.fatals) > 0 {
		fatal = r.fatals[0]
	}
	if len(r.skips) > 0 {
		skip = r.skips[0]
	}
	return got, fatal, skip
}

// setShort makes SkipShort see -short as v until t ends, so that the lookup
// behind the skip is tested in both loops.
func setShort(t *testing.T, v bool) {
	t.Helper()
	prev := short
	short = func() bool { return v }
	t.Cleanup(func() { short = prev })
}

// writeExecutable writes a file with the given mode under dir.
func writeExecutable(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// fakeCLI writes a shell script that prints out as `version` output and exits
// with code.
func fakeCLI(t *testing.T, dir, out string, code int) string {
	t.Helper()
	path := filepath.Join(dir, "terraform")
	writeExecutable(t, path, fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' %q\nexit %d\n", out, code), 0o755)
	return path
}

func TestKubebuilderAssets(t *testing.T) {
	type want struct {
		dir   string   // returned directory; "" when Fatalf is expected
		fatal []string // substrings of the Fatalf message
	}
	cases := map[string]struct {
		reason string
		setup  func(t *testing.T, cache, other string) (assetsEnv string)
		want   func(cache, other string) want
	}{
		"CacheComplete": {
			reason: "With KUBEBUILDER_ASSETS unset, the make-tools cache directory is used.",
			setup: func(t *testing.T, cache, _ string) string {
				dir := filepath.Join(cache, "intentjournal", "tools", "envtest-"+kubeVersion)
				writeExecutable(t, filepath.Join(dir, "kube-apiserver"), "", 0o755)
				writeExecutable(t, filepath.Join(dir, "etcd"), "", 0o755)
				return ""
			},
			want: func(cache, _ string) want {
				return want{dir: filepath.Join(cache, "intentjournal", "tools", "envtest-"+kubeVersion)}
			},
		},
		"CacheEmpty": {
			reason: "A fresh checkout without `make tools` must fail, naming the fix.",
			setup:  func(*testing.T, string, string) string { return "" },
			want: func(cache, _ string) want {
				return want{fatal: []string{"make tools", "KUBEBUILDER_ASSETS is unset", filepath.Join(cache, "intentjournal", "tools", "envtest-"+kubeVersion, "kube-apiserver") + " does not exist"}}
			},
		},
		"CacheNotExecutable": {
			reason: "A binary without an execute bit is as good as missing.",
			setup: func(t *testing.T, cache, _ string) string {
				dir := filepath.Join(cache, "intentjournal", "tools", "envtest-"+kubeVersion)
				writeExecutable(t, filepath.Join(dir, "kube-apiserver"), "", 0o755)
				writeExecutable(t, filepath.Join(dir, "etcd"), "", 0o644)
				return ""
			},
			want: func(string, string) want { return want{fatal: []string{"make tools", "etcd is not executable"}} },
		},
		"EnvComplete": {
			reason: "KUBEBUILDER_ASSETS wins over the cache.",
			setup: func(t *testing.T, _, other string) string {
				writeExecutable(t, filepath.Join(other, "kube-apiserver"), "", 0o755)
				writeExecutable(t, filepath.Join(other, "etcd"), "", 0o755)
				return other
			},
			want: func(_, other string) want { return want{dir: other} },
		},
		"EnvLacksEtcd": {
			reason: "A KUBEBUILDER_ASSETS without etcd fails rather than silently using another pair.",
			setup: func(t *testing.T, cache, other string) string {
				writeExecutable(t, filepath.Join(other, "kube-apiserver"), "", 0o755)
				dir := filepath.Join(cache, "intentjournal", "tools", "envtest-"+kubeVersion)
				writeExecutable(t, filepath.Join(dir, "kube-apiserver"), "", 0o755)
				writeExecutable(t, filepath.Join(dir, "etcd"), "", 0o755)
				return other
			},
			want: func(_, other string) want {
				return want{fatal: []string{"make tools", "KUBEBUILDER_ASSETS=" + other, filepath.Join(other, "etcd") + " does not exist"}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cache, other := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv(EnvKubebuilderAssets, tc.setup(t, cache, other))
			w := tc.want(cache, other)

			setShort(t, false)
			got, fatal := fatalOf(t, KubebuilderAssets)
			if diff := cmp.Diff(w.dir, got); diff != "" {
				t.Errorf("%s\nKubebuilderAssets(): -want dir, +got dir:\n%s", tc.reason, diff)
			}
			checkFatal(t, tc.reason, "KubebuilderAssets()", fatal, w.fatal)
		})
	}
}

func TestTerraformCLI(t *testing.T) {
	type want struct {
		path  string
		fatal []string
	}
	cases := map[string]struct {
		reason string
		setup  func(t *testing.T, cache, other string) (tfEnv string)
		want   func(cache, other string) want
	}{
		"CacheTofu": {
			reason: "With INTENTJOURNAL_TF_PATH unset, the cached tofu is used.",
			setup: func(t *testing.T, cache, _ string) string {
				writeExecutable(t, filepath.Join(cache, "intentjournal", "tools", "tofu-"+tofuVersion, "tofu"),
					"#!/bin/sh\necho 'OpenTofu v"+tofuVersion+"'\necho 'on linux_amd64'\n", 0o755)
				return ""
			},
			want: func(cache, _ string) want {
				return want{path: filepath.Join(cache, "intentjournal", "tools", "tofu-"+tofuVersion, "tofu")}
			},
		},
		"CacheEmpty": {
			reason: "A fresh checkout without `make tools` must fail, naming the fix.",
			setup:  func(*testing.T, string, string) string { return "" },
			want: func(cache, _ string) want {
				return want{fatal: []string{"make tools", "INTENTJOURNAL_TF_PATH is unset", filepath.Join(cache, "intentjournal", "tools", "tofu-"+tofuVersion, "tofu") + " does not exist"}}
			},
		},
		"EnvMissing": {
			reason: "An INTENTJOURNAL_TF_PATH that names nothing fails rather than silently using the cache.",
			setup:  func(_ *testing.T, _, other string) string { return filepath.Join(other, "terraform") },
			want: func(_, other string) want {
				return want{fatal: []string{"make tools", "INTENTJOURNAL_TF_PATH is set", filepath.Join(other, "terraform") + " does not exist"}}
			},
		},
		"EnvTerraform15": {
			reason: "Terraform 1.5.7, the last MPL release, is new enough.",
			setup:  func(t *testing.T, _, other string) string { return fakeCLI(t, other, "Terraform v1.5.7", 0) },
			want:   func(_, other string) want { return want{path: filepath.Join(other, "terraform")} },
		},
		"EnvTooOld": {
			reason: "Terraform before 1.5 lacks import blocks and must be refused.",
			setup:  func(t *testing.T, _, other string) string { return fakeCLI(t, other, "Terraform v1.4.7", 0) },
			want: func(_, other string) want {
				return want{fatal: []string{"make tools", "version 1.4.7, older than 1.5.0"}}
			},
		},
		"EnvFails": {
			reason: "A binary whose `version` fails is unusable.",
			setup:  func(t *testing.T, _, other string) string { return fakeCLI(t, other, "segfault", 2) },
			want: func(_, other string) want {
				return want{fatal: []string{"make tools", "cannot run", "exit status 2"}}
			},
		},
		"EnvNotACLI": {
			reason: "A binary that is not tofu or terraform is refused.",
			setup:  func(t *testing.T, _, other string) string { return fakeCLI(t, other, "Python 3.13.1", 0) },
			want: func(_, other string) want {
				return want{fatal: []string{"make tools", `cannot parse version from "Python 3.13.1"`}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cache, other := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv(EnvTerraformPath, tc.setup(t, cache, other))
			w := tc.want(cache, other)

			setShort(t, false)
			got, fatal := fatalOf(t, TerraformCLI)
			if diff := cmp.Diff(w.path, got); diff != "" {
				t.Errorf("%s\nTerraformCLI(): -want path, +got path:\n%s", tc.reason, diff)
			}
			checkFatal(t, tc.reason, "TerraformCLI()", fatal, w.fatal)
		})
	}
}

// TestSkipShort checks that the helpers that start a real part skip under
// -short, before looking for a tool, and fail naming `make tools` without it.
func TestSkipShort(t *testing.T) {
	type want struct {
		fatal []string // substrings of the Fatalf message
		skip  []string // substrings of the Skipf message
	}
	helpers := map[string]func(testing.TB) string{
		"KubebuilderAssets": KubebuilderAssets,
		"TerraformCLI":      TerraformCLI,
		"StartEnvtest": func(t testing.TB) string {
			if cfg := StartEnvtest(t, "testdata/crds"); cfg != nil {
				return cfg.Host
			}
			return ""
		},
	}
	cases := map[string]struct {
		reason string
		short  bool
		want   want
	}{
		"Short": {
			reason: "Under -short (make test-unit) a test that starts a real part is skipped, saying what it needs.",
			short:  true,
			want:   want{skip: []string{"integration test: needs", "make tools", "-short", "make test-unit"}},
		},
		"Full": {
			reason: "Without -short (make test) a missing tool fails the test, naming the fix; it never skips.",
			short:  false,
			want:   want{fatal: []string{"make tools"}},
		},
	}
	for name, tc := range cases {
		for helper, fn := range helpers {
			t.Run(name+"/"+helper, func(t *testing.T) {
				t.Setenv("XDG_CACHE_HOME", t.TempDir())
				t.Setenv(EnvKubebuilderAssets, "")
				t.Setenv(EnvTerraformPath, "")
				setShort(t, tc.short)

				got, fatal, skip := endOf(t, fn)
				if got != "" {
					t.Errorf("%s\n%s() = %q with no tools, want nothing", tc.reason, helper, got)
				}
				checkFatal(t, tc.reason, helper+"()", fatal, tc.want.fatal)
				checkMessage(t, tc.reason, helper+"()", "Skipf", skip, tc.want.skip)
			})
		}
	}
}

// checkFatal reports whether the Fatalf message holds every wanted substring,
// or that there was none when none was wanted.
func checkFatal(t *testing.T, reason, call, fatal string, want []string) {
	t.Helper()
	checkMessage(t, reason, call, "Fatalf", fatal, want)
}

// checkMessage reports whether the message of kind (Fatalf, Skipf) holds
// every wanted substring, or that there was none when none was wanted.
func checkMessage(t *testing.T, reason, call, kind, msg string, want []string) {
	t.Helper()
	if len(want) == 0 {
		if msg != "" {
			t.Errorf("%s\n%s: unexpected %s: %s", reason, call, kind, msg)
		}
		return
	}
	if msg == "" {
		t.Errorf("%s\n%s: no %s, want one containing %q", reason, call, kind, want)
		return
	}
	for _, s := range want {
		if !strings.Contains(msg, s) {
			t.Errorf("%s\n%s: %s message %q does not contain %q", reason, call, kind, msg, s)
		}
	}
}

func TestCacheDir(t *testing.T) {
	cases := map[string]struct {
		reason  string
		env     map[string]string
		want    string
		wantErr bool
	}{
		"XDG": {
			reason: "XDG_CACHE_HOME wins, as in hack/tools.sh.",
			env:    map[string]string{"XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"},
			want:   "/xdg/intentjournal/tools",
		},
		"Home": {
			reason: "Without XDG_CACHE_HOME the cache is under $HOME/.cache, even on macOS.",
			env:    map[string]string{"HOME": "/home/u"},
			want:   "/home/u/.cache/intentjournal/tools",
		},
		"Neither": {
			reason:  "With neither variable there is no cache to look in.",
			env:     map[string]string{},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := cacheDir(func(k string) string { return tc.env[k] })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ncacheDir(): -want, +got:\n%s", tc.reason, diff)
			}
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Errorf("%s\ncacheDir(): err = %v, want error: %t", tc.reason, err, tc.wantErr)
			}
		})
	}
}

func TestParseCLIVersion(t *testing.T) {
	cases := map[string]struct {
		reason  string
		out     string
		want    cliVersion
		wantErr bool
	}{
		"OpenTofu": {
			reason: "tofu prints its version first, then the platform.",
			out:    "OpenTofu v1.12.6\non linux_amd64\n",
			want:   cliVersion{1, 12, 6},
		},
		"Terraform": {
			reason: "terraform prints the same shape.",
			out:    "Terraform v1.5.7\non linux_amd64\n",
			want:   cliVersion{1, 5, 7},
		},
		"PreRelease": {
			reason: "A pre-release suffix is ignored.",
			out:    "OpenTofu v1.13.0-beta1\n",
			want:   cliVersion{1, 13, 0},
		},
		"Other": {
			reason:  "Output of another program is an error.",
			out:     "etcd Version: 3.6.16\n",
			wantErr: true,
		},
		"Empty": {
			reason:  "Empty output is an error.",
			wantErr: true,
		},
		"Overflow": {
			reason:  "A number that does not fit an int is an error, not a panic.",
			out:     "Terraform v1.99999999999999999999.0\n",
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseCLIVersion([]byte(tc.out))
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(cliVersion{})); diff != "" {
				t.Errorf("%s\nparseCLIVersion(%q): -want, +got:\n%s", tc.reason, tc.out, diff)
			}
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Errorf("%s\nparseCLIVersion(%q): err = %v, want error: %t", tc.reason, tc.out, err, tc.wantErr)
			}
		})
	}
}

// TestVersionsMatchToolsScript keeps the cache directory names that this
// package looks in equal to the ones hack/tools.sh builds.
func TestVersionsMatchToolsScript(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "..", "hack", "tools.sh"))
	if err != nil {
		t.Fatalf("cannot read hack/tools.sh: %v", err)
	}
	want := map[string]string{"ETCD_VERSION": etcdVersion, "KUBE_VERSION": kubeVersion, "TOFU_VERSION": tofuVersion}
	got := map[string]string{}
	for name := range want {
		m := regexp.MustCompile(`(?m)^readonly ` + name + `=(\S+)$`).FindSubmatch(script)
		if m == nil {
			t.Errorf("hack/tools.sh has no line `readonly %s=...`", name)
			continue
		}
		got[name] = string(m[1])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("versions in testenv.go (-want) differ from hack/tools.sh (+got):\n%s", diff)
	}
}

// TestTerraformCLIRuns runs the real binary that TerraformCLI returns: plain
// `version`, and terraform-exec's `version -json`, which is how tfexec decides
// what the CLI supports.
func TestTerraformCLIRuns(t *testing.T) {
	path := TerraformCLI(t)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s version: %v\n%s", path, err, out)
	}
	v, err := parseCLIVersion(out)
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	if v.less(cliVersion{major: 1, minor: 5}) {
		t.Errorf("%s version = %s, want >= 1.5.0", path, v)
	}

	// tfexec passes the whole environment through; point the CLI config at
	// an empty file, as every real caller must on this host.
	t.Setenv("TF_CLI_CONFIG_FILE", os.DevNull)
	t.Setenv("CHECKPOINT_DISABLE", "1")
	tf, err := tfexec.NewTerraform(t.TempDir(), path)
	if err != nil {
		t.Fatalf("tfexec.NewTerraform(%s): %v", path, err)
	}
	tv, _, err := tf.Version(ctx, true)
	if err != nil {
		t.Fatalf("tfexec Version(): %v", err)
	}
	if diff := cmp.Diff(v.String(), tv.Core().String()); diff != "" {
		t.Errorf("tfexec Version() differs from `version` output: -version, +tfexec:\n%s", diff)
	}
}
