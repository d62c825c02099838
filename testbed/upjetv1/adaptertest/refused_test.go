package upjetv1_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/meta"
	xpresource "github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
)

// TestRefusedCreateWakesTheOwner: a replica that refuses a create because
// another replica owns the managed resource hands it back. crossplane-runtime
// marked the create pending before it called Create; an owner that saw that
// mark stopped ("cannot determine creation result") and waits for an event
// its filter passes, which the failed mark alone is not (found by
// TestRollingRestart on v2: three Networks stuck after a bucket moved). A
// refusal by the owner itself (another replica's create is still running)
// writes nothing: the owner is requeued for its own error.
func TestRefusedCreateWakesTheOwner(t *testing.T) {
	var lockErr atomic.Pointer[error]
	var owned atomic.Bool
	h := newHarness(t, func(c *upjetv1.Config) {
		c.CreateLocker = adapter.CreateLockerFn(func(context.Context, metav1.Object) (func(), error) {
			return nil, *lockErr.Load()
		})
		c.Owns = func(string, string) bool { return owned.Load() }
	})
	filter := xpresource.DesiredStateChanged()
	cases := []struct {
		name     string
		lockErr  error
		owned    bool
		wantBack bool
	}{
		{name: "bucket-moved", lockErr: fmt.Errorf("%w: x", ownership.ErrNotOwned), owned: false, wantBack: true},
		{name: "not-owned-now", lockErr: errors.New("create lease held by r-1/2"), owned: false, wantBack: true},
		{name: "owner-waits-for-peer", lockErr: errors.New("create lease held by r-1/2"), owned: true, wantBack: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lockErr.Store(&tc.lockErr)
			owned.Store(tc.owned)
			mr := h.newMR(t, "refused-"+tc.name)
			// What crossplane-runtime writes before it calls Create.
			meta.SetExternalCreatePending(mr, time.Now())
			if err := h.cl.Client.Update(context.Background(), mr); err != nil {
				t.Fatal(err)
			}
			before := h.get(t, mr.Name)
			err := h.create(t, mr)
			if !errors.Is(err, tc.lockErr) {
				t.Fatalf("Create(): got %v, want the lock's refusal %v", err, tc.lockErr)
			}
			after := h.get(t, mr.Name)
			if mr.GetResourceVersion() != after.GetResourceVersion() {
				t.Errorf("the in-memory resourceVersion %s lags the stored %s: the reconciler's own update would conflict",
					mr.GetResourceVersion(), after.GetResourceVersion())
			}
			_, back := after.GetAnnotations()[ownership.AnnotationCreateRefused]
			got := map[string]bool{
				"handed back":               back,
				"create incomplete":         meta.ExternalCreateIncomplete(after),
				"owner's filter passes it":  filter.Update(event.UpdateEvent{ObjectOld: before, ObjectNew: after}),
				"in-memory mark":            mr.GetAnnotations()[ownership.AnnotationCreateRefused] != "",
				"dispatched to the cloud":   h.inner.creates.Load() != 0,
				"intent begun (in journal)": h.hasIntent(t, string(mr.GetUID())),
			}
			want := map[string]bool{
				"handed back":               tc.wantBack,
				"create incomplete":         !tc.wantBack,
				"owner's filter passes it":  tc.wantBack,
				"in-memory mark":            tc.wantBack,
				"dispatched to the cloud":   false,
				"intent begun (in journal)": false,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after a refused create (-want +got):\n%s", diff)
			}
		})
	}
	// Why the hand-back writes its own annotation: the failed mark alone,
	// which crossplane-runtime writes after the refusal, does not pass.
	mr := h.newMR(t, "failed-mark-only")
	meta.SetExternalCreatePending(mr, time.Now())
	old := mr.DeepCopy()
	meta.SetExternalCreateFailed(mr, time.Now().Add(time.Second))
	if filter.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: mr}) {
		t.Errorf("DesiredStateChanged passes a failed mark alone: the hand-back's annotation is no longer needed")
	}
}

// hasIntent reports whether the journal holds an intent for uid.
func (h *harness) hasIntent(t *testing.T, uid string) bool {
	t.Helper()
	_, err := h.a.Journal().Get(context.Background(), uid)
	switch {
	case errors.Is(err, journal.ErrNotFound):
		return false
	case err != nil:
		t.Fatalf("journal Get(%s): %v", uid, err)
	}
	return true
}
