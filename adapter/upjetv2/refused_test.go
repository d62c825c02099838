package upjetv2_test

import (
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/intentjournal/intentjournal/ownership"
)

// TestHandBackPassesTheEventFilter: the hand-back of a refused create
// (package adapter's, which the v1 test bed's
// TestRefusedCreateWakesTheOwner drives against envtest) wakes the owner
// only because crossplane-runtime's DesiredStateChanged passes its
// annotation. This is that filter on the v2 line: the failed mark alone
// is ignored, the hand-back is not.
func TestHandBackPassesTheEventFilter(t *testing.T) {
	filter := xpresource.DesiredStateChanged()
	pending := &unstructured.Unstructured{}
	pending.SetAPIVersion("fakecloud.m.intentjournal.io/v1alpha1")
	pending.SetKind("Network")
	pending.SetNamespace("team-a")
	pending.SetName("net")
	meta.SetExternalCreatePending(pending, time.Now())

	failed := pending.DeepCopy()
	meta.SetExternalCreateFailed(failed, time.Now().Add(time.Second))
	handedBack := failed.DeepCopy()
	meta.AddAnnotations(handedBack, map[string]string{ownership.AnnotationCreateRefused: time.Now().UTC().Format(time.RFC3339Nano)})

	for _, tc := range []struct {
		name string
		new  *unstructured.Unstructured
		want bool
	}{
		{name: "failed mark alone", new: failed, want: false},
		{name: "hand-back", new: handedBack, want: true},
	} {
		if got := filter.Update(event.UpdateEvent{ObjectOld: pending, ObjectNew: tc.new}); got != tc.want {
			t.Errorf("%s: DesiredStateChanged passes the update: got %t, want %t", tc.name, got, tc.want)
		}
		if got := meta.ExternalCreateIncomplete(tc.new); got {
			t.Errorf("%s: the create still looks incomplete to the owner", tc.name)
		}
	}
}
