package testenv

import "testing"

// The real parts a test can need, as SkipShort names them.
const (
	// NeedEnvtest is a real control plane: StartEnvtest, KubebuilderAssets.
	NeedEnvtest = "kube-apiserver and etcd (make tools)"
	// NeedTerraform is the OpenTofu or Terraform CLI: TerraformCLI.
	NeedTerraform = "OpenTofu (make tools)"
)

// short reports whether go test runs with -short. Tests of this package
// replace it to reach the lookup behind the skip.
var short = testing.Short

// SkipShort skips t when go test runs with -short, the fast loop of `make
// test-unit`, naming needs, the real part that t would start. Every helper
// that starts a real part (a control plane, OpenTofu, a slow-to-build
// binary) calls it before anything else, so under -short exactly the tests
// that start one are skipped and every pure test still runs.
//
// Without -short, as `make test` and CI run, SkipShort does nothing: the
// helper goes on and fails the test, naming `make tools`, when its tool is
// missing. A green `make test` therefore always means the integration tests
// ran; never pass -short there.
func SkipShort(t testing.TB, needs string) {
	t.Helper()
	if short() {
		t.Skipf("integration test: needs %s; skipped under -short (make test-unit); make test runs it", needs)
	}
}
