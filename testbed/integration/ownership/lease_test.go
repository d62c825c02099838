package ownership_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestLeases runs the Lease primitives against a real API server
// (envtest), through the create Leases that use them: acquisition,
// refusal while live, takeover after expiry, conditional release, liveness
// by epoch, and the create Lease itself.
func TestLeases(t *testing.T) {
	cfg := testenv.StartEnvtest(t)
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "leases"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	a1 := journal.Owner{Replica: "p-0", Shard: "a", Epoch: "e1"}
	a2 := journal.Owner{Replica: "p-1", Shard: "a", Epoch: "e2"}

	// The Lease primitives. Each holder renews every third of a minute, so
	// no renewal runs while the checks below move the Lease's clock.
	core1, logs1 := observer.New(zap.WarnLevel)
	core2, logs2 := observer.New(zap.WarnLevel)
	l1 := &ownership.CreateLeases{Client: c, Namespace: ns, Prefix: "q", Owner: a1, LeaseDuration: time.Minute, Logger: zapr.NewLogger(zap.New(core1))}
	l2 := &ownership.CreateLeases{Client: c, Namespace: ns, Prefix: "q", Owner: a2, LeaseDuration: time.Minute, Logger: zapr.NewLogger(zap.New(core2))}
	mg0 := &metav1.ObjectMeta{Name: "mr-0", UID: "0c5b1e3a-0000-4000-8000-000000000000"}
	key := types.NamespacedName{Namespace: ns, Name: l1.LeaseName(mg0.GetUID())}
	live := ownership.LeaseLiveness{Reader: c, Namespace: ns, LeaseName: func(journal.Owner) string { return key.Name }}

	release1, err := l1.LockCreate(ctx, mg0)
	if err != nil {
		t.Fatalf("first acquire: %v", err)
	}
	if _, err := l2.LockCreate(ctx, mg0); !errors.Is(err, ownership.ErrHeld) {
		t.Fatalf("acquire of a live Lease by another holder: got %v, want ErrHeld", err)
	}
	if ok, err := live.Alive(ctx, a1); err != nil || !ok {
		t.Errorf("the holder's epoch must be alive while its Lease is live: got %t, %v", ok, err)
	}
	if ok, err := live.Alive(ctx, a2); err != nil || ok {
		t.Errorf("an epoch that does not hold the Lease is dead: got %t, %v", ok, err)
	}
	// Expiry is judged by the Lease's last renewal, so no test sleeps: the
	// holder is taken to have stopped renewing two minutes ago.
	ageLease(ctx, t, c, key, 2*time.Minute)
	release2, err := l2.LockCreate(ctx, mg0)
	if err != nil {
		t.Fatalf("takeover of an expired Lease: %v", err)
	}
	if ok, err := live.Alive(ctx, a1); err != nil || ok {
		t.Errorf("a superseded epoch is dead: got %t, %v", ok, err)
	}
	release1() // a release by a former holder
	if logs1.FilterMessageSnippet("cannot release").Len() != 0 {
		t.Fatalf("release by a former holder: %v", logs1.FilterMessageSnippet("cannot release").All())
	}
	if ok, _ := live.Alive(ctx, a2); !ok {
		t.Errorf("a release by a former holder must not delete the current holder's Lease")
	}
	release2() // a release by the holder
	if logs2.FilterMessageSnippet("cannot release").Len() != 0 {
		t.Fatalf("release by the holder: %v", logs2.FilterMessageSnippet("cannot release").All())
	}
	if ok, err := live.Alive(ctx, a2); err != nil || ok {
		t.Errorf("after release the owner is dead: got %t, %v", ok, err)
	}

	// The create Lease.
	mg := &metav1.ObjectMeta{Name: "mr", UID: "0c5b1e3a-0000-4000-8000-000000000001"}
	// Both replicas read one fake clock, which the test steps: the Lease is
	// held past its duration without waiting it out in real time.
	clk := clocktesting.NewFakeClock(time.Now())
	const d = 3 * time.Second
	cl1 := &ownership.CreateLeases{Client: c, Namespace: ns, Prefix: "p", Owner: a1, LeaseDuration: d, Clock: clk}
	cl2 := &ownership.CreateLeases{Client: c, Namespace: ns, Prefix: "p", Owner: a2, LeaseDuration: d, Clock: clk}
	if h, err := cl2.HeldBy(ctx, mg.GetUID()); err != nil || h != "" {
		t.Errorf("HeldBy before any lock: got %q, %v; want nobody", h, err)
	}
	unlock, err := cl1.LockCreate(ctx, mg)
	if err != nil {
		t.Fatalf("first create lock: %v", err)
	}
	// Held past its duration: each tick, a third of the duration, renews
	// it. Four ticks take the clock 4 s on, past the 3 s duration.
	leaseKey := types.NamespacedName{Namespace: ns, Name: cl1.LeaseName(mg.GetUID())}
	for !clk.HasWaiters() { // the renewal goroutine's ticker
		time.Sleep(time.Millisecond)
	}
	for range 4 {
		clk.Step(d / 3)
		awaitRenewal(ctx, t, c, leaseKey, clk.Now())
	}
	if _, err := cl2.LockCreate(ctx, mg); !errors.Is(err, ownership.ErrHeld) {
		t.Fatalf("a second replica's create lock while the first holds it: got %v, want ErrHeld", err)
	}
	if h, err := cl2.HeldBy(ctx, mg.GetUID()); err != nil || h != ownership.Holder(a1) {
		t.Errorf("HeldBy while the first replica creates: got %q, %v; want %q", h, err, ownership.Holder(a1))
	}
	unlock()
	if h, err := cl2.HeldBy(ctx, mg.GetUID()); err != nil || h != "" {
		t.Errorf("HeldBy after release: got %q, %v; want nobody", h, err)
	}
	unlock2, err := cl2.LockCreate(ctx, mg)
	if err != nil {
		t.Fatalf("create lock after release: %v", err)
	}
	unlock2()
	notMine := &ownership.CreateLeases{Client: c, Namespace: ns, Prefix: "p", Owner: a1, Owns: func(metav1.Object) bool { return false }}
	if _, err := notMine.LockCreate(ctx, mg); !errors.Is(err, ownership.ErrNotOwned) {
		t.Errorf("a create lock for a resource of another bucket: got %v, want ErrNotOwned", err)
	}
}

// ageLease moves the last renewal of the Lease key back by d, as if its
// holder had stopped renewing it d ago.
func ageLease(ctx context.Context, t *testing.T, c client.Client, key types.NamespacedName, d time.Duration) {
	t.Helper()
	l := &coordinationv1.Lease{}
	if err := c.Get(ctx, key, l); err != nil {
		t.Fatal(err)
	}
	renewed := metav1.NewMicroTime(l.Spec.RenewTime.Add(-d))
	l.Spec.RenewTime = &renewed
	if err := c.Update(ctx, l); err != nil {
		t.Fatal(err)
	}
}

// awaitRenewal waits until the Lease key was renewed at the fake clock's
// time at: the renewal runs on the holder's goroutine, after the tick.
func awaitRenewal(ctx context.Context, t *testing.T, c client.Client, key types.NamespacedName, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l := &coordinationv1.Lease{}
		if err := c.Get(ctx, key, l); err == nil && l.Spec.RenewTime != nil && !l.Spec.RenewTime.Time.Before(at.Truncate(time.Microsecond)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the create Lease %s was not renewed for the clock's tick at %s", key, at)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
