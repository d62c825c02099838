//go:build crashgenerated

// The generated provider's crash matrix is not in make test: in CI it left
// a Terraform CLI Network in "create failed: apply failed: injected
// fault" for the whole 6-minute window (seed 234782683), a defect not yet
// diagnosed. Run it with -tags crashgenerated (docs/reliability.md).

package crashmatrix

import (
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/testbed/internal/crashmatrix"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/package/crds"
)

// generatedTrials is how many trials the generated provider's matrix
// runs: each of its creates runs OpenTofu, so its trials are slower than
// the hand-written provider's. -crash.trials overrides.
const generatedTrials = 8

// generatedConverge is how long a generated trial's restarted provider may
// take to converge: a CLI create is a tofu apply of a few seconds, and one
// that fails costs a reconcile that resolves its intent and another that
// creates again, each backed off by crossplane-runtime. Seed 795253458
// (5 Networks, a quarter of the cloud's calls failing) took 2m32s in a
// replay, and once, in a run of 4 lanes on 2 cores, left a Network short
// of Ready after the default 4 minutes; the cause was not pinned down, and
// a resource that never converges still fails the trial.
// -crash.converge overrides.
const generatedConverge = 6 * time.Minute

// TestCrashMatrixGenerated runs the crash matrix on the provider upjet's
// pipeline generated with intentjournal's controller template
// (provider-fakecloud --generated): its RecordSet and Network are
// reconciled through upjet's Terraform CLI connector, OpenTofu running
// terraform-provider-fakecloud in a workspace per managed resource, and
// every restart gets empty workspaces, as a new pod; its Record through
// the plugin SDK connector.
func TestCrashMatrixGenerated(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud -tags failpoints, OpenTofu and "+testenv.NeedEnvtest)
	line, namespaced, cluster := lines(t, "v2 generated,", crds.FS)
	args := []string{"--generated", "--terraform", testenv.TerraformCLI(t), "--terraform-plugin-mirror", tftest.BuildMirror(t),
		"--fresh-workspaces", "--terraform-state-dir", t.TempDir()}
	crashmatrix.Run(t, line,
		crashmatrix.WithDefaultTrials(generatedTrials),
		crashmatrix.WithDefaultConverge(generatedConverge),
		crashmatrix.WithProviderArgs(args...),
		crashmatrix.WithWeakTags(crashmatrix.WeakTags{Line: cluster, ProviderArgs: []string{"--uid-tag=false"}}),
		crashmatrix.WithRecords(crashmatrix.Records{Line: namespaced, KeyLabel: adapter.KeyLabel, ExternalName: tfprovider.RecordID}))
}
