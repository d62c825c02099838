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
	// Namespaces are created before the provider starts, for namespaced
	// managed resources.
	Namespaces []string
}

// Testbed is a running end-to-end setup: envtest with the CRDs of both
// scopes, the fake cloud, the provider configs called ProviderConfigName
// pointing at it (the legacy ProviderConfig and the namespaced group's
// ClusterProviderConfig), the namespaces of Options, and the provider.
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
	CreateProviderConfigs(t, cl, fc.URL)
	CreateNamespaces(t, cl, o.Namespaces...)
	return &Testbed{
		Cluster:   cl,
		FakeCloud: fc,
		Provider:  StartProvider(t, bins.Provider, cl, o.ProviderArgs...),
	}
}
