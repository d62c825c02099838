package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Versions that hack/tools.sh builds. They name the cache directories, so
// they must match the script's ETCD_VERSION, KUBE_VERSION and TOFU_VERSION;
// TestVersionsMatchToolsScript checks that they do.
const (
	etcdVersion = "3.6.16"
	kubeVersion = "1.36.3"
	tofuVersion = "1.12.6"
)

// Environment variables that override the cache.
const (
	// EnvKubebuilderAssets names a directory holding kube-apiserver and etcd.
	// controller-runtime's envtest reads it too.
	EnvKubebuilderAssets = "KUBEBUILDER_ASSETS"
	// EnvTerraformPath names a tofu or terraform binary, version 1.5 or later.
	EnvTerraformPath = "INTENTJOURNAL_TF_PATH"
)

// minTerraformVersion is the oldest CLI that terraform-exec v0.25 and the
// `import {}` blocks the recovery pass relies on support.
var minTerraformVersion = cliVersion{major: 1, minor: 5}

// hint is appended to every error about a missing or unusable tool.
const hint = "run `make tools` (hack/tools.sh) to build it into the cache"

// errMissing marks a tool that is absent or unusable.
var errMissing = errors.New("testenv: tool missing")

// KubebuilderAssets returns a directory holding kube-apiserver and etcd, fit
// for controller-runtime envtest. It honours KUBEBUILDER_ASSETS when set, and
// otherwise uses the envtest directory that `make tools` fills. Under -short
// it skips t (see SkipShort); otherwise, when a binary is missing, it calls
// t.Fatalf with a message naming `make tools`.
func KubebuilderAssets(t testing.TB) string {
	t.Helper()
	SkipShort(t, NeedEnvtest)
	dir, err := kubebuilderAssets(os.Getenv)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return dir
}

// TerraformCLI returns the path of a tofu or terraform binary of version 1.5
// or later. It honours INTENTJOURNAL_TF_PATH when set, and otherwise uses the
// tofu that `make tools` builds. It runs the binary's `version` command once
// per process and path to check the version. Under -short it skips t (see
// SkipShort); otherwise, when the binary is missing, does not run or is too
// old, it calls t.Fatalf with a message naming `make tools`.
func TerraformCLI(t testing.TB) string {
	t.Helper()
	SkipShort(t, NeedTerraform)
	path, err := terraformCLI(os.Getenv)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return path
}

// CacheDir returns the directory that hack/tools.sh builds into:
// ${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/tools. It reads the same
// variables as the script rather than os.UserCacheDir, which differs on macOS.
func CacheDir() (string, error) {
	return cacheDir(os.Getenv)
}

func cacheDir(getenv func(string) string) (string, error) {
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		home := getenv("HOME")
		if home == "" {
			return "", fmt.Errorf("%w: neither XDG_CACHE_HOME nor HOME is set, so the tools cache cannot be found; set %s and %s, or set HOME and %s",
				errMissing, EnvKubebuilderAssets, EnvTerraformPath, hint)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "intentjournal", "tools"), nil
}

func kubebuilderAssets(getenv func(string) string) (string, error) {
	if dir := getenv(EnvKubebuilderAssets); dir != "" {
		if err := checkAssets(dir); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %w; unset it or point it at a directory holding kube-apiserver and etcd, or unset it and %s",
				errMissing, EnvKubebuilderAssets, dir, err, hint)
		}
		return dir, nil
	}
	root, err := cacheDir(getenv)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "envtest-"+kubeVersion)
	if err := checkAssets(dir); err != nil {
		return "", fmt.Errorf("%w: envtest assets: %w (%s is unset); %s, or set %s",
			errMissing, err, EnvKubebuilderAssets, hint, EnvKubebuilderAssets)
	}
	return dir, nil
}

// checkAssets reports the first of kube-apiserver and etcd that dir lacks.
func checkAssets(dir string) error {
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if err := checkExecutable(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// checkExecutable reports whether path, after following symlinks, is a
// regular file with an execute bit.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s does not exist", path)
	case err != nil:
		return fmt.Errorf("cannot stat %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

func terraformCLI(getenv func(string) string) (string, error) {
	path, source := getenv(EnvTerraformPath), EnvTerraformPath+" is set"
	if path == "" {
		root, err := cacheDir(getenv)
		if err != nil {
			return "", err
		}
		path, source = filepath.Join(root, "tofu-"+tofuVersion, "tofu"), EnvTerraformPath+" is unset"
	}
	if err := checkExecutable(path); err != nil {
		return "", fmt.Errorf("%w: terraform CLI: %w (%s); %s, or set %s to a tofu or terraform >= %s",
			errMissing, err, source, hint, EnvTerraformPath, minTerraformVersion)
	}
	v, err := probeVersion(path)
	if err != nil {
		return "", fmt.Errorf("%w: terraform CLI %s: %w; %s, or set %s to a tofu or terraform >= %s",
			errMissing, path, err, hint, EnvTerraformPath, minTerraformVersion)
	}
	if v.less(minTerraformVersion) {
		return "", fmt.Errorf("%w: terraform CLI %s is version %s, older than %s; %s, or set %s to a newer binary",
			errMissing, path, v, minTerraformVersion, hint, EnvTerraformPath)
	}
	return path, nil
}

// versionProbes caches probeVersion by path: every test that needs the CLI
// calls TerraformCLI, and a tofu start-up costs tens of milliseconds.
var versionProbes sync.Map // path -> func() (cliVersion, error)

// probeVersion runs `path version` once per process and parses its first line.
func probeVersion(path string) (cliVersion, error) {
	probe, _ := versionProbes.LoadOrStore(path, sync.OnceValues(func() (cliVersion, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, "version")
		// The host may point TF_CLI_CONFIG_FILE at a missing file; `version`
		// needs no configuration, and no checkpoint call either.
		cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE="+os.DevNull)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return cliVersion{}, fmt.Errorf("cannot run %q: %w: %s", path+" version", err, bytes.TrimSpace(stderr.Bytes()))
		}
		return parseCLIVersion(out)
	}))
	return probe.(func() (cliVersion, error))()
}

// cliVersion is the major.minor.patch of a tofu or terraform binary.
type cliVersion struct {
	major, minor, patch int
}

func (v cliVersion) String() string {
	return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
}

func (v cliVersion) less(o cliVersion) bool {
	if v.major != o.major {
		return v.major < o.major
	}
	if v.minor != o.minor {
		return v.minor < o.minor
	}
	return v.patch < o.patch
}

// versionLine matches the first line of `tofu version` ("OpenTofu v1.12.6")
// and `terraform version` ("Terraform v1.5.7"), with any pre-release suffix.
var versionLine = regexp.MustCompile(`^(?:OpenTofu|Terraform) v(\d+)\.(\d+)\.(\d+)\S*\s*$`)

// parseCLIVersion parses the output of `tofu version` or `terraform version`.
func parseCLIVersion(out []byte) (cliVersion, error) {
	first, _, _ := bytes.Cut(out, []byte("\n"))
	m := versionLine.FindSubmatch(first)
	if m == nil {
		return cliVersion{}, fmt.Errorf("cannot parse version from %q", first)
	}
	var v cliVersion
	for i, dst := range []*int{&v.major, &v.minor, &v.patch} {
		n, err := strconv.Atoi(string(m[i+1]))
		if err != nil {
			return cliVersion{}, fmt.Errorf("cannot parse version from %q: %w", first, err)
		}
		*dst = n
	}
	return v, nil
}
