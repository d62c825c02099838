package testbed

import "testing"

// Options configures New.
type Options struct {
	// FakeCloudArgs are extra flags of the fake cloud, e.g.
	// `--faults={"latency":{"create":"3s"}}`.
	FakeCloudArgs []string
	// ProviderArgs are extra flags of the provider, e.g.
	// --max-reconcile-rate=100.
	ProviderArgs []string
}

// Testbed is a running end-to-end setup: envtest with the CRDs, the fake
// cloud, the ProviderConfig ProviderConfigName pointing at it, and the
// provider.
type Testbed struct {
	Cluster   *Cluster
	FakeCloud *FakeCloud
	Provider  *Provider
}

// New starts a Testbed from bins (see BuildBinaries). Everything stops when
// the test ends. Under -short it skips t, as StartCluster does.
func New(t testing.TB, bins Binaries, o Options) *Testbed {
	t.Helper()
	cl := StartCluster(t)
	fc := StartFakeCloud(t, bins.FakeCloud, o.FakeCloudArgs...)
	CreateProviderConfig(t, cl, fc.URL)
	return &Testbed{
		Cluster:   cl,
		FakeCloud: fc,
		Provider:  StartProvider(t, bins.Provider, cl, o.ProviderArgs...),
	}
}
