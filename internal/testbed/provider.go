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
	all := append([]string{"--kubeconfig", kubeconfig, "--metrics-bind-address", "0"}, args...)
	p := &Provider{Process: StartProcess(t, "provider-fakecloud", bin, all)}
	t.Logf("testbed: provider started (pid %d)", p.Pid())
	return p
}
