// Package testbed runs provider-fakecloud of the Crossplane v2 line (upjet
// v2.3.0, cluster-scoped and namespaced resources; the controllers, API
// types and CRDs upjet's pipeline generated in testbed/upjetv2/generated)
// end to end for tests: a
// real kube-apiserver and etcd (envtest) with the provider's CRDs of both
// scopes, the fake cloud and the provider as child processes that can be
// SIGKILLed and restarted, and helpers to create managed resources, wait for
// their conditions and read the fake cloud's figures.
//
// It is the v1 line's adapter/upjetv1/internal/testbed ported: process.go,
// fakecloud.go, wait.go, build.go and provider.go are copies (the two lines
// are separate modules and cannot share an internal package); cluster.go,
// resources.go and testbed.go know the v2 types and both scopes.
//
// Every helper takes a testing.TB, fails the test with t.Fatalf when a part
// is missing or does not come up, and registers cleanups, so nothing
// outlives the test. Child process output goes to files under t.TempDir();
// the tail of each is logged when the test fails. Under go test -short
// (make test-unit) the helpers that need kube-apiserver and etcd
// (StartCluster, BuildBinaries) skip the test instead, naming make tools;
// make test never passes -short.
package testbed
