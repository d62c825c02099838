// Package tftest runs the real OpenTofu or Terraform CLI, through
// terraform-exec, against the fake cloud's provider installed offline from a
// filesystem mirror. Tests get the CLI's path from testenv.TerraformCLI.
package tftest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// Registry address and version the provider is installed under.
const (
	ProviderHost      = "example.com"
	ProviderNamespace = "intentjournal"
	ProviderType      = "fakecloud"
	ProviderVersion   = "0.1.0"
	ProviderSource    = ProviderHost + "/" + ProviderNamespace + "/" + ProviderType

	// ProviderPackage is the import path of the provider's command.
	ProviderPackage = "github.com/intentjournal/intentjournal/testbed/cmd/terraform-provider-fakecloud"
)

// BuildMirror compiles cmd/terraform-provider-fakecloud into a filesystem
// mirror in a temporary directory of t and returns the mirror's root. The
// layout is the unpacked one:
//
//	<root>/example.com/intentjournal/fakecloud/0.1.0/<os>_<arch>/terraform-provider-fakecloud_v0.1.0
//
// The mirror only serves the CLI, so under -short BuildMirror skips t before
// building (see testenv.SkipShort), as testenv.TerraformCLI does.
func BuildMirror(t testing.TB) string {
	t.Helper()
	testenv.SkipShort(t, "terraform-provider-fakecloud (a slow build) and "+testenv.NeedTerraform)
	bin := fakecloudtest.BuildPackage(t, ProviderPackage, "terraform-provider-fakecloud")
	root := t.TempDir()
	dir := filepath.Join(root, ProviderHost, ProviderNamespace, ProviderType, ProviderVersion, runtime.GOOS+"_"+runtime.GOARCH)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("create mirror: %v", err)
	}
	dst := filepath.Join(dir, "terraform-provider-"+ProviderType+"_v"+ProviderVersion)
	if err := os.Rename(bin, dst); err != nil {
		t.Fatalf("install provider into mirror: %v", err)
	}
	return root
}

// CLIConfig returns a CLI configuration that installs example.com/*/*
// providers from mirror only, so that init never touches the network.
func CLIConfig(mirror string) string {
	return fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["%s/*/*"]
  }
  direct {
    exclude = ["%s/*/*"]
  }
}
`, mirror, ProviderHost, ProviderHost)
}

// Env returns the environment for tfexec.Terraform.SetEnv: a copy of
// os.Environ() without the variables SetEnv refuses (TF_LOG*, TF_CLI_ARGS*,
// TF_VAR_*, TF_IN_AUTOMATION, ...), with TF_CLI_CONFIG_FILE set to
// cliConfigFile and CHECKPOINT_DISABLE=1, and then extra on top.
func Env(cliConfigFile string, extra map[string]string) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env = tfexec.CleanEnv(env)
	env["TF_CLI_CONFIG_FILE"] = cliConfigFile
	env["CHECKPOINT_DISABLE"] = "1"
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// ProviderBlock returns the terraform and provider blocks that point the
// fakecloud provider at endpoint.
func ProviderBlock(endpoint string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    fakecloud = {
      source  = %q
      version = %q
    }
  }
}

provider "fakecloud" {
  endpoint = %q
}
`, ProviderSource, ProviderVersion, endpoint)
}

// Workspace is a working directory with a configured tfexec.Terraform.
type Workspace struct {
	// Dir is the working directory.
	Dir string
	// TF runs the CLI in Dir.
	TF *tfexec.Terraform
}

// NewWorkspace returns a workspace in a new temporary directory of t that
// runs the CLI at tfPath, installs the provider from mirror, and adds
// extraEnv to the environment. The CLI's output goes to the test log.
func NewWorkspace(t testing.TB, tfPath, mirror string, extraEnv map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "tf.rc")
	if err := os.WriteFile(cfg, []byte(CLIConfig(mirror)), 0o644); err != nil {
		t.Fatalf("write CLI config: %v", err)
	}
	tf, err := tfexec.NewTerraform(dir, tfPath)
	if err != nil {
		t.Fatalf("tfexec.NewTerraform(%s): %v", tfPath, err)
	}
	if err := tf.SetEnv(Env(cfg, extraEnv)); err != nil {
		t.Fatalf("tfexec SetEnv: %v", err)
	}
	tf.SetStdout(testWriter{t})
	tf.SetStderr(testWriter{t})
	return &Workspace{Dir: dir, TF: tf}
}

// WriteConfig replaces the workspace's main.tf with hcl.
func (w *Workspace) WriteConfig(t testing.TB, hcl string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.Dir, "main.tf"), []byte(hcl), 0o644); err != nil {
		t.Fatalf("write main.tf: %v", err)
	}
}

// testWriter sends CLI output to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
