package adapter

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
)

// TestCreatedKeepsTheFlight: a create stays in flight while its callback
// records its end, so that Observed in a concurrent reconcile, which skips
// a create in flight, leaves the external name to the callback instead of
// patching it a second time (issue #31: the generated provider's Records
// met two external-name patches per create); a second callback for the
// same create does nothing; the create lock is released once, when the
// callback has ended.
func TestCreatedKeepsTheFlight(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Record"}
	key := types.NamespacedName{Name: "www"}
	const uid = types.UID("uid-1")
	reading, proceed := make(chan struct{}), make(chan struct{})
	var during, second, duringSecond bool
	k := &Kind{a: &Adapter{log: zap.NewNop()}, gvk: gvk, inflight: map[types.NamespacedName]*flight{},
		// The callback's read of what the create left: here, the
		// callback is under way.
		state: func(client.Object) (CreatedState, error) {
			close(reading)
			<-proceed
			return CreatedState{}, errors.New("no state: leave the intent to Observe")
		}}
	mg := &unstructured.Unstructured{}
	mg.SetGroupVersionKind(gvk)
	mg.SetName(key.Name)
	mg.SetUID(uid)
	released := 0
	k.track(mg, journal.Intent{}, func() { released++ })

	done := make(chan struct{})
	go func() {
		defer close(done)
		k.Created(context.Background(), key, nil)
	}()
	<-reading
	during = k.inFlight(key, uid)
	// A callback that comes again while the first is under way finds
	// nothing to end.
	k.Created(context.Background(), key, nil)
	duringSecond = k.inFlight(key, uid)
	close(proceed)
	<-done
	second = k.inFlight(key, uid)

	if !during {
		t.Error("while the callback records the create's end, the create is not in flight: a concurrent Observe would patch the external name too")
	}
	if !duringSecond {
		t.Error("a second callback ended the flight the first one is ending")
	}
	if second {
		t.Error("after the callback, the create is still in flight: Observe would never settle what the callback could not")
	}
	if released != 1 {
		t.Errorf("the create lock was released %d times, want once", released)
	}
}
