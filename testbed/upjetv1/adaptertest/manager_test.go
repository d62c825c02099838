package upjetv1_test

import (
	"context"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// newManager returns a manager on cl's API server with its metrics and
// health probe servers off.
func newManager(t *testing.T, cl *testbed.Cluster) manager.Manager {
	t.Helper()
	mgr, err := ctrl.NewManager(cl.Config, ctrl.Options{
		Scheme: cl.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatalf("ctrl.NewManager(): %v", err)
	}
	return mgr
}

// startManager runs mgr until the test ends, and returns the context it
// runs with.
func startManager(t *testing.T, mgr manager.Manager) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ctx
}
