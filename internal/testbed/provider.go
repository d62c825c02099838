package testbed

import (
	"testing"
)

// Provider is a running cmd/provider-fakecloud child process.
type Provider struct {
	*Process
}

// StartProvider starts the provider binary bin against the API server of
// kubeconfig with
// metrics disabled and any extra flags in args, e.g. --poll=10s. The
// provider's readiness shows in the managed resources it reconciles, so
// StartProvider does not wait.
func StartProvider(t testing.TB, bin, kubeconfig string, args ...string) *Provider {
	t.Helper()
	p := startProvider(t, "provider-fakecloud", bin, kubeconfig, args)
	t.Logf("testbed: provider started (pid %d)", p.Pid())
	return p
}

// StartNamedProvider is StartProvider with the process called name, which
// names its log: a test that runs several providers at once (the
// scale-out tests' replicas) then keeps one log per provider under
// EnvKeepLogs, rather than the last one's.
func StartNamedProvider(t testing.TB, name, bin, kubeconfig string, args ...string) *Provider {
	t.Helper()
	p := startProvider(t, name, bin, kubeconfig, args)
	t.Logf("testbed: provider %s started (pid %d)", name, p.Pid())
	return p
}

func startProvider(t testing.TB, name, bin, kubeconfig string, args []string) *Provider {
	t.Helper()
	all := append([]string{"--kubeconfig", kubeconfig, "--metrics-bind-address", "0"}, args...)
	return &Provider{Process: StartProcess(t, name, bin, all)}
}
