package terraform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/intentjournal/intentjournal/internal/atomicfile"

	"github.com/hashicorp/terraform-exec/tfexec"
	"go.uber.org/zap"
)

// Env returns the CLI's environment: a full copy of os.Environ() without
// the variables tfexec.SetEnv refuses (TF_IN_AUTOMATION, TF_LOG*,
// TF_CLI_ARGS*, TF_VAR_*, ...), with TF_CLI_CONFIG_FILE (when cliConfig is
// set) and CHECKPOINT_DISABLE=1, then extra on top.
func Env(cliConfig string, extra map[string]string) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env = tfexec.CleanEnv(env)
	if cliConfig != "" {
		env["TF_CLI_CONFIG_FILE"] = cliConfig
	}
	env["CHECKPOINT_DISABLE"] = "1"
	for k, v := range tfexec.CleanEnv(extra) {
		env[k] = v
	}
	return env
}

// mirrorConfig is a CLI configuration that installs every provider from the
// filesystem mirror at dir and never from a registry.
func mirrorConfig(dir string) string {
	return fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %s\n    include = [\"*/*/*\"]\n  }\n}\n", hclString(dir))
}

// writeFileAtomic replaces a file of the workspace durably (mode 0644, as
// Terraform writes them): a crash leaves the old file or the new one.
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("terraform: cannot write %s: %w", path, err)
	}
	return nil
}

// settleConfig rewrites the generated file without import blocks, so that
// a later plan or apply in the workspace, by anyone, imports nothing that
// this package did not prove ours. It runs after every batch.
func (im *Importer) settleConfig() {
	_ = os.Remove(filepath.Join(im.dir, planName))
	content, _, err := renderConfig(im.rt.Type, im.heldBlocks())
	if err == nil {
		err = writeFileAtomic(filepath.Join(im.dir, im.genFile), []byte(content))
	}
	if err != nil {
		im.o.log.Warn("Cannot remove the import blocks from the generated configuration", zap.String("workspace", im.dir), zap.Error(err))
	}
}

// ensureInit runs init once per Importer.
func (im *Importer) ensureInit(ctx context.Context) error {
	if im.initDone {
		return nil
	}
	err := im.tf.Init(ctx, tfexec.Upgrade(false))
	if err := im.cancelled(ctx, err); err != nil {
		return err
	}
	if err != nil {
		im.observed("init", []byte(err.Error()))
		diags := errorsOf(ParseTextDiagnostics(err.Error()))
		if werr := im.workspaceError("init", diags, err); werr != nil {
			return werr
		}
		return &WorkspaceError{Dir: im.dir, Op: "init", Err: err, Diagnostics: diags,
			Fix: fmt.Sprintf("run %s -chdir=%s init and fix what it reports", im.cli, im.dir)}
	}
	im.initDone = true
	return nil
}
