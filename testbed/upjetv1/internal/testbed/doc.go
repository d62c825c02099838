// Package testbed runs provider-fakecloud end to end for tests: a real
// kube-apiserver and etcd (envtest) with the provider's CRDs, the fake cloud
// and the provider as child processes that can be SIGKILLed and restarted,
// and helpers to create managed resources, wait for their conditions and
// read the fake cloud's figures.
//
// Every helper takes a testing.TB, fails the test with t.Fatalf when a part
// is missing or does not come up, and registers cleanups, so nothing
// outlives the test. Child process output goes to files under t.TempDir();
// the tail of each is logged when the test fails. Under go test -short
// (make test-unit) the helpers that need kube-apiserver and etcd
// (StartCluster, BuildBinaries) skip the test instead, naming make tools;
// make test never passes -short.
package testbed
