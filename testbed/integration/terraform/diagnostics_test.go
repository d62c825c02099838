package terraform_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/terraform"
)

// parseFile parses captured CLI output: *.jsonl is the machine-readable UI
// of plan -json, *.txt the human-readable error text (as
// recovery/terraform's diagnostics_test.go parses the captures).
func parseFile(name string, data []byte) []terraform.Diagnostic {
	if strings.HasSuffix(name, ".jsonl") {
		return terraform.ParseJSONDiagnostics(data)
	}
	return terraform.ParseTextDiagnostics(string(data))
}

// errorsOf returns the diagnostics of severity error (errorsOf in
// recovery/terraform's diagnostics.go).
func errorsOf(diags []terraform.Diagnostic) []terraform.Diagnostic {
	var out []terraform.Diagnostic
	for _, d := range diags {
		if d.Severity == "error" {
			out = append(out, d)
		}
	}
	return out
}

// TestCaptureCLIOutput drives the real CLI into each failure the parser must
// recognise and checks the live output parses to the same kinds as the
// captured files in captureDir; with -update it rewrites the captures. The
// plans are the Importer's own, recorded by a recordingCLI; init, show and
// the locked plan are run as the Importer runs them.
func TestCaptureCLIOutput(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	// kinds is the set of error kinds and addresses: the CLI reports
	// resources in no fixed order, and Terraform and OpenTofu differ in how
	// many diagnostics one failure makes.
	kinds := func(ds []terraform.Diagnostic) []string {
		var out []string
		for _, d := range errorsOf(ds) {
			out = append(out, d.Kind+" "+d.Address)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	check := func(t *testing.T, name string, out []byte) {
		t.Helper()
		if len(out) == 0 {
			t.Fatalf("%s: the CLI printed nothing", name)
		}
		capture(t, name, out)
		raw, err := os.ReadFile(filepath.Join(captureDir, name))
		if err != nil {
			t.Fatalf("%v (regenerate with -update)", err)
		}
		if diff := cmp.Diff(kinds(parseFile(name, raw)), kinds(parseFile(name, out))); diff != "" {
			t.Errorf("%s: the live output must parse like the capture; -capture, +live:\n%s", name, diff)
		}
	}
	// firstPlan returns what the first plan through rec printed.
	firstPlan := func(t *testing.T, rec *recorder) []byte {
		t.Helper()
		plans := rec.plans(t)
		if len(plans) == 0 {
			t.Fatal("the Importer ran no plan")
		}
		return plans[0]
	}

	t.Run("PlanNotFound", func(t *testing.T) {
		im, rec := r.recordingImporter(t)
		ok := candidate(1, "")
		ok.Intent.ExternalName = createNetwork(t, r.fc.Client, ok.Intent.Resource.Name, ourTags(ok))
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{ok, candidate(2, missingID(2)), candidate(3, missingID(3))}); err != nil {
			t.Fatal(err)
		}
		check(t, "plan-not-found.jsonl", firstPlan(t, rec))
	})
	t.Run("PlanReadError", func(t *testing.T) {
		im, rec := r.recordingImporter(t)
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{candidate(1, "net-"+strings.Repeat("b", 1100000))}); err != nil {
			t.Fatal(err)
		}
		got := firstPlan(t, rec)
		// Keep the capture small: the summary quotes the whole ID.
		got = []byte(strings.ReplaceAll(string(got), strings.Repeat("b", 1100000), "bbbb"))
		check(t, "plan-read-error.jsonl", got)
	})
	t.Run("PlanConfigError", func(t *testing.T) {
		typ := networkType
		typ.Attributes = func(c *recovery.Candidate) (map[string]any, error) {
			return map[string]any{"name": map[string]any{"not": "a string"}}, nil
		}
		cli, env, rec := recordingCLI(t, r.cli)
		im, err := terraform.New(t.TempDir(), cli, typ, terraform.WithFilesystemMirror(r.mirror), terraform.WithProviderConfig(testProviderBlock(r)), env)
		if err != nil {
			t.Fatal(err)
		}
		res, err := im.ImportBatch(ctx, []*recovery.Candidate{candidate(1, missingID(1))})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Status != terraform.StatusError {
			t.Errorf("a block with an invalid argument must fail: %+v", res[0])
		}
		check(t, "plan-config-error.jsonl", firstPlan(t, rec))
	})
	t.Run("ShowCorruptState", func(t *testing.T) {
		im := r.importer(t)
		if err := os.WriteFile(im.StateFile(), []byte(`{"version": 4, "serial": 1, "resources": [`), 0o644); err != nil {
			t.Fatal(err)
		}
		// json.Valid catches this before the CLI runs; run show directly.
		_, err := r.tf(t, im).Show(ctx)
		if err == nil {
			t.Fatal("show of a corrupt state must fail")
		}
		check(t, "show-corrupt-state.txt", []byte(err.Error()))
	})
	t.Run("InitProviderMissing", func(t *testing.T) {
		im, err := terraform.New(t.TempDir(), r.cli, networkType, terraform.WithFilesystemMirror(t.TempDir()), terraform.WithProviderConfig(testProviderBlock(r)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{candidate(1, missingID(1))}); err == nil {
			t.Fatal("init without the provider must fail")
		}
		// The init the Importer ran (ensureInit in recovery/terraform's
		// workspace.go), run again for its error text.
		err = r.tf(t, im).Init(ctx, tfexec.Upgrade(false))
		if err == nil {
			t.Fatal("init without the provider must fail when run again")
		}
		check(t, "init-provider-missing.txt", []byte(err.Error()))
	})
	t.Run("PlanLocked", func(t *testing.T) {
		im := r.importer(t)
		first := candidate(1, "")
		first.Intent.ExternalName = createNetwork(t, r.fc.Client, first.Intent.Resource.Name, ourTags(first))
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{first}); err != nil {
			t.Fatal(err)
		}
		setLatency(t, r.fc.Client, 30*time.Second)
		defer setLatency(t, r.fc.Client, 0)
		r.startCLI(t, im, "apply", "-refresh-only", "-auto-approve", "-no-color", "-input=false")
		waitForLock(t, im)
		var out bytes.Buffer
		_, err := r.tf(t, im).PlanJSON(ctx, &out, tfexec.LockTimeout("0s"))
		if err == nil {
			t.Fatal("plan under a held lock must fail")
		}
		check(t, "plan-locked.jsonl", out.Bytes())
	})
}
