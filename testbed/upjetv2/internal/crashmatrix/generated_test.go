package crashmatrix

import (
	"testing"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/testbed/internal/crashmatrix"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	itestbed "github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/package/crds"
)

// generatedTrials is how many trials the generated provider's matrix
// runs: each of its creates runs OpenTofu, so its trials are slower than
// the hand-written provider's. -crash.trials overrides.
const generatedTrials = 8

// TestCrashMatrixGenerated runs the crash matrix on the generated
// provider's Terraform CLI kinds: its record sets and networks are
// CLIRecordSets and CLINetworks, reconciled through upjet's Terraform CLI
// connector, OpenTofu running terraform-provider-fakecloud in a workspace
// per managed resource, and every restart gets empty workspaces, as a new
// pod; its Record through the plugin SDK connector. TestCrashMatrix runs
// the same provider's plugin SDK kinds.
func TestCrashMatrixGenerated(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud -tags failpoints, OpenTofu and "+testenv.NeedEnvtest)
	line, namespaced, cluster := lines(t, "v2 Terraform CLI,", crds.FS)
	cliKinds := map[string]string{itestbed.KindRecordSet: "CLIRecordSet", itestbed.KindNetwork: "CLINetwork"}
	line.MRKinds, cluster.MRKinds = cliKinds, cliKinds
	mirror, state := tftest.BuildMirror(t), t.TempDir()
	// OpenTofu runs in workspaces under state, its plugins from the mirror:
	// none may outlive the provider that started it (a SIGKILL at a
	// failpoint kills the provider alone), let alone the test.
	itestbed.CheckNoLeftovers(t, mirror, state)
	args := []string{"--terraform", testenv.TerraformCLI(t), "--terraform-plugin-mirror", mirror,
		"--fresh-workspaces", "--terraform-state-dir", state}
	crashmatrix.Run(t, line,
		crashmatrix.WithDefaultTrials(generatedTrials),
		crashmatrix.WithProviderArgs(args...),
		crashmatrix.WithWeakTags(crashmatrix.WeakTags{Line: cluster, ProviderArgs: []string{"--uid-tag=false"}}),
		crashmatrix.WithRecords(crashmatrix.Records{Line: namespaced, KeyLabel: adapter.KeyLabel, ExternalName: tfprovider.RecordID}))
}
