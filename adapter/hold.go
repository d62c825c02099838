package adapter

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// HoldUntilRecovered returns mgr with every controller added through it
// held back until the recovery pass has run once (recovery.Recoverer's
// Passed): pass the returned manager to the provider's controller setup
// (upjet's generated Setup functions take a manager).
//
// While the pass runs, the held controllers neither observe nor write: the
// pass has the API server to itself instead of sharing it with a
// reconcile, and a status write, for every managed resource the Gate
// blocks. After the pass, every controller starts at once; a resource whose
// intent the pass left unresolved stays blocked by the Gate as before.
// Caches, webhook servers and HTTP servers added through it are not held.
// A held controller does not take part in controller-runtime's warm-up.
// A nil *Adapter returns mgr unchanged.
func (a *Adapter) HoldUntilRecovered(mgr manager.Manager) manager.Manager {
	if a == nil {
		return mgr
	}
	return &heldManager{Manager: mgr, until: a.recoverer.Passed(), a: a}
}

// heldManager is a manager.Manager whose Add holds runnables until until
// is closed. It carries a, for FromManager.
type heldManager struct {
	manager.Manager
	until <-chan struct{}
	a     *Adapter
}

// Add holds r, unless it is a server or a cache.
func (m *heldManager) Add(r manager.Runnable) error {
	switch r.(type) {
	case *manager.Server, webhook.Server, interface{ GetCache() cache.Cache }:
		return m.Manager.Add(r)
	}
	return m.Manager.Add(&held{inner: r, until: m.until})
}

// held starts inner once until is closed.
type held struct {
	inner manager.Runnable
	until <-chan struct{}
}

var _ manager.LeaderElectionRunnable = (*held)(nil)

// Start waits for until, then runs inner. It returns nil if ctx ends first.
func (h *held) Start(ctx context.Context) error {
	select {
	case <-h.until:
	case <-ctx.Done():
		return nil
	}
	return h.inner.Start(ctx)
}

// NeedLeaderElection is inner's, true when it does not say: where the
// manager puts inner.
func (h *held) NeedLeaderElection() bool {
	if l, ok := h.inner.(manager.LeaderElectionRunnable); ok {
		return l.NeedLeaderElection()
	}
	return true
}
