package adapter

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// addRecorder is a manager.Manager that records what Add receives; the
// embedded nil Manager panics on anything else, which these tests never
// call.
type addRecorder struct {
	manager.Manager
	added []manager.Runnable
}

func (m *addRecorder) Add(r manager.Runnable) error {
	m.added = append(m.added, r)
	return nil
}

// cacheRunnable is a runnable that has a cache, as controller-runtime's
// cluster does.
type cacheRunnable struct{ manager.RunnableFunc }

func (cacheRunnable) GetCache() cache.Cache { return nil }

// electionless is a runnable that needs no leader election.
type electionless struct{ manager.RunnableFunc }

func (electionless) NeedLeaderElection() bool { return false }

func TestHeldManagerAdd(t *testing.T) {
	noop := manager.RunnableFunc(func(context.Context) error { return nil })
	cases := map[string]struct {
		r          manager.Runnable
		wantHeld   bool
		wantLeader bool
	}{
		"a controller is held, and keeps its leader election": {r: noop, wantHeld: true, wantLeader: true},
		"a runnable without leader election is held, without": {r: electionless{noop}, wantHeld: true, wantLeader: false},
		"a cache is not held":  {r: cacheRunnable{noop}},
		"a server is not held": {r: &manager.Server{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &addRecorder{}
			m := &heldManager{Manager: rec, until: make(chan struct{})}
			if err := m.Add(tc.r); err != nil {
				t.Fatal(err)
			}
			if len(rec.added) != 1 {
				t.Fatalf("Add passed %d runnables on, want 1", len(rec.added))
			}
			h, isHeld := rec.added[0].(*held)
			if diff := cmp.Diff(tc.wantHeld, isHeld); diff != "" {
				t.Fatalf("held (-want +got):\n%s", diff)
			}
			if isHeld && h.NeedLeaderElection() != tc.wantLeader {
				t.Errorf("NeedLeaderElection = %t, want %t", h.NeedLeaderElection(), tc.wantLeader)
			}
		})
	}
}

func TestHeldStart(t *testing.T) {
	errInner := errors.New("inner ran")
	started := make(chan struct{})
	inner := manager.RunnableFunc(func(context.Context) error {
		close(started)
		return errInner
	})

	t.Run("waits for the pass, then runs the runnable", func(t *testing.T) {
		until := make(chan struct{})
		h := &held{inner: inner, until: until}
		done := make(chan error, 1)
		go func() { done <- h.Start(context.Background()) }()
		select {
		case <-started:
			t.Fatal("the runnable started before the pass")
		case <-time.After(50 * time.Millisecond):
		}
		close(until)
		if err := <-done; !errors.Is(err, errInner) {
			t.Fatalf("Start = %v, want the runnable's own error", err)
		}
	})

	t.Run("returns nil, never running the runnable, when the manager stops first", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		h := &held{inner: manager.RunnableFunc(func(context.Context) error {
			t.Error("the runnable ran although the manager stopped before the pass")
			return nil
		}), until: make(chan struct{})}
		if err := h.Start(ctx); err != nil {
			t.Fatalf("Start = %v, want nil", err)
		}
	})

	t.Run("a nil adapter holds nothing", func(t *testing.T) {
		rec := &addRecorder{}
		var a *Adapter
		if got := a.HoldUntilRecovered(rec); got != manager.Manager(rec) {
			t.Fatalf("HoldUntilRecovered(nil adapter) = %T, want the manager itself", got)
		}
	})
}
