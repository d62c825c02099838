// Package shorttest is the root module's rule for tests that start a real
// part (kube-apiserver and etcd, OpenTofu): they skip under -short, the
// fast loop of `make test-unit`, and nowhere else. It is the rule of the
// test bed's testenv.SkipShort, for the packages of this module, which
// cannot import the test bed.
package shorttest

import "testing"

// SkipShort skips t when go test runs with -short, naming needs, the real part
// t would start. Without -short it does nothing: the test goes on and
// fails, naming `make tools`, when that part is missing, so a green `make
// test` means it ran.
func SkipShort(t testing.TB, needs string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("integration test: needs %s; skipped under -short (make test-unit); make test runs it", needs)
	}
}
