package ownership

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/testenv"
	"github.com/intentjournal/intentjournal/journal"
)

func labelSet(m map[string]string) labels.Set { return labels.Set(m) }

// TestLeases runs the Lease primitives against a real API server
// (envtest): acquisition, refusal while live, takeover after expiry,
// conditional release, liveness by epoch, and the create Lease.
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
	key := types.NamespacedName{Namespace: ns, Name: "shard-a"}
	a1 := journal.Owner{Replica: "p-0", Shard: "a", Epoch: "e1"}
	a2 := journal.Owner{Replica: "p-1", Shard: "a", Epoch: "e2"}
	now := time.Now()
	live := LeaseLiveness{Reader: c, Namespace: ns, LeaseName: func(journal.Owner) string { return key.Name }}

	if err := acquire(ctx, c, key, Holder(a1), 3*time.Second, now); err != nil {
		t.Fatalf("first acquire: %v", err)
	}
	if err := acquire(ctx, c, key, Holder(a2), 3*time.Second, now.Add(time.Second)); !errors.Is(err, ErrHeld) {
		t.Fatalf("acquire of a live Lease by another holder: got %v, want ErrHeld", err)
	}
	if ok, err := live.Alive(ctx, a1); err != nil || !ok {
		t.Errorf("the holder's epoch must be alive while its Lease is live: got %t, %v", ok, err)
	}
	if ok, err := live.Alive(ctx, a2); err != nil || ok {
		t.Errorf("an epoch that does not hold the Lease is dead: got %t, %v", ok, err)
	}
	// Expiry is judged by the clock passed in, so no test sleeps.
	if err := acquire(ctx, c, key, Holder(a2), 3*time.Second, now.Add(4*time.Second)); err != nil {
		t.Fatalf("takeover of an expired Lease: %v", err)
	}
	if ok, err := live.Alive(ctx, a1); err != nil || ok {
		t.Errorf("a superseded epoch is dead: got %t, %v", ok, err)
	}
	if err := release(ctx, c, key, Holder(a1)); err != nil {
		t.Fatalf("release by a former holder: %v", err)
	}
	if ok, _ := live.Alive(ctx, a2); !ok {
		t.Errorf("a release by a former holder must not delete the current holder's Lease")
	}
	if err := release(ctx, c, key, Holder(a2)); err != nil {
		t.Fatalf("release by the holder: %v", err)
	}
	if ok, err := live.Alive(ctx, a2); err != nil || ok {
		t.Errorf("after release the owner is dead: got %t, %v", ok, err)
	}

	mg := &metav1.ObjectMeta{Name: "mr", UID: "0c5b1e3a-0000-4000-8000-000000000001"}
	cl1 := &CreateLeases{Client: c, Namespace: ns, Prefix: "p", Owner: a1, LeaseDuration: 3 * time.Second}
	cl2 := &CreateLeases{Client: c, Namespace: ns, Prefix: "p", Owner: a2, LeaseDuration: 3 * time.Second}
	if h, err := cl2.HeldBy(ctx, mg.GetUID()); err != nil || h != "" {
		t.Errorf("HeldBy before any lock: got %q, %v; want nobody", h, err)
	}
	unlock, err := cl1.LockCreate(ctx, mg)
	if err != nil {
		t.Fatalf("first create lock: %v", err)
	}
	// Held past its duration: the renewal keeps it.
	time.Sleep(4 * time.Second)
	if _, err := cl2.LockCreate(ctx, mg); !errors.Is(err, ErrHeld) {
		t.Fatalf("a second replica's create lock while the first holds it: got %v, want ErrHeld", err)
	}
	if h, err := cl2.HeldBy(ctx, mg.GetUID()); err != nil || h != Holder(a1) {
		t.Errorf("HeldBy while the first replica creates: got %q, %v; want %q", h, err, Holder(a1))
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
	notMine := &CreateLeases{Client: c, Namespace: ns, Prefix: "p", Owner: a1, Owns: func(metav1.Object) bool { return false }}
	if _, err := notMine.LockCreate(ctx, mg); !errors.Is(err, ErrNotOwned) {
		t.Errorf("a create lock for a resource of another bucket: got %v, want ErrNotOwned", err)
	}
}
