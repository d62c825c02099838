package adapter

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// persist does what crossplane-runtime does once Create returns: its
// critical-annotation update writes mg's annotations, the intent among
// them, to the API server.
func (h *harness) persist(t *testing.T, mg client.Object) {
	t.Helper()
	u := h.stored(t, mg)
	u.SetAnnotations(mg.GetAnnotations())
	if err := h.kube.Update(context.Background(), u); err != nil {
		t.Fatalf("Update(): %v", err)
	}
}

// TestCreatedCallback: how the async create's callback (Kind.Created)
// records the create's end. A success is settled succeeded with the
// external name, durably, before the patch that persists the name; a
// patch or a read that fails leaves the intent unsettled for Observe or
// recovery, never settled without the name on the resource. Every path
// releases the create lock and ends the flight.
func TestCreatedCallback(t *testing.T) {
	type ended struct {
		State        journal.State
		Class        journal.ErrorClass
		ExternalName string // the API server's copy
		Annotated    bool   // the API server's copy carries the intent
		Incomplete   bool   // crossplane-runtime's "cannot determine creation result"
		Succeeded    bool   // the API server's copy carries crossplane-runtime's success mark
		InFlight     bool
		LocksHeld    int
	}
	id := func(id string, err error) TerraformIDFunc {
		return func(client.Object) (string, error) { return id, err }
	}
	cases := map[string]struct {
		reason      string
		tfID        TerraformIDFunc
		kindOpts    []KindOption
		failPatch   bool
		pendingMark bool // crossplane-runtime's pending mark alone is on the resource
		failedMark  bool // and a failed mark older than it
		err         error
		want        ended
	}{
		"Succeeded": {reason: "The name is bound at once, with the success mark, and the intent settled.",
			tfID: id("rec-1", nil), want: ended{State: journal.StateSettled, ExternalName: "rec-1", Succeeded: true}},
		"SucceededWithALostCreateMark": {reason: "crossplane-runtime's success mark was lost to conflicts: the bind writes it, and the create is complete.",
			tfID: id("rec-1", nil), pendingMark: true, want: ended{State: journal.StateSettled, ExternalName: "rec-1", Succeeded: true}},
		"SucceededAfterAFailedAttempt": {reason: "A create retried after a failed one: the pending mark is newer than the failed one; the bind's success mark completes it.",
			tfID: id("rec-1", nil), pendingMark: true, failedMark: true, want: ended{State: journal.StateSettled, ExternalName: "rec-1", Succeeded: true}},
		"SucceededBindFails": {reason: "The name is durable in the journal (succeeded) before the patch; the failed patch leaves the rest to Observe.",
			tfID: id("rec-1", nil), failPatch: true, want: ended{State: journal.StateSucceeded, Annotated: true}},
		"SucceededNoID": {reason: "Nothing says what was made: Observe settles.",
			tfID: id("", nil), want: ended{State: journal.StatePending, Annotated: true}},
		"SucceededStateUnreadable": {reason: "The tracker cannot be read: Observe settles.",
			tfID: id("", errors.New("no tracker")), want: ended{State: journal.StatePending, Annotated: true}},
		"SucceededNameUnderivable": {reason: "The external name cannot be derived from the ID: Observe settles.",
			tfID:     id("rec-1", nil),
			kindOpts: []KindOption{WithExternalNameFromID(func(string) (string, error) { return "", errors.New("malformed ID") })},
			want:     ended{State: journal.StatePending, Annotated: true}},
		"Rejected": {reason: "The cloud refused: failed, rejected; the next attempt may run.",
			err: errors.New("InvalidParameterValue: ttl out of range (400)"), want: ended{State: journal.StateFailed, Class: journal.ErrorClassRejected, Annotated: true}},
		"Ambiguous": {reason: "The create may have happened: failed, ambiguous, for the next attempt to resolve.",
			err: errors.New("read tcp: connection reset by peer"), want: ended{State: journal.StateFailed, Class: journal.ErrorClassAmbiguous, Annotated: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mg := newRecord("www")
			if tc.pendingMark {
				mg.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
			}
			if tc.failedMark {
				a := mg.GetAnnotations()
				a[recovery.AnnotationExternalCreateFailed] = time.Now().Add(-5 * time.Second).UTC().Format(time.RFC3339)
				mg.SetAnnotations(a)
			}
			locks := &lockCounter{}
			cfg := harnessConfig{async: true, locker: locks, tfID: tc.tfID, kindOpts: tc.kindOpts, objects: []client.Object{mg.DeepCopy()}}
			if tc.failPatch {
				// With a journal, nothing before the callback patches.
				cfg.funcs = failPatch(errors.New("etcdserver: request timed out"))
			}
			h := newHarness(t, cfg)
			if err := h.create(ctx, mg); err != nil {
				t.Fatalf("Create(): %v", err)
			}
			h.persist(t, mg)

			h.k.Created(ctx, client.ObjectKeyFromObject(mg), tc.err)

			in, _ := h.intent(t, mg)
			u := h.stored(t, mg)
			got := ended{State: in.State, Class: in.Outcome.ErrorClass, ExternalName: ExternalName(u), Annotated: u.GetAnnotations()[journal.AnnotationKey] != "",
				Incomplete: ExternalCreateIncomplete(u), Succeeded: u.GetAnnotations()[recovery.AnnotationExternalCreateSucceed] != "", InFlight: h.k.inFlight(client.ObjectKeyFromObject(mg), mg.GetUID()), LocksHeld: locks.held()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
			if tc.want.State == journal.StateSucceeded || tc.want.State == journal.StateSettled {
				if in.Outcome.ExternalName != "rec-1" {
					t.Errorf("%s\nthe journal records external name %q, want rec-1", tc.reason, in.Outcome.ExternalName)
				}
			}
		})
	}
}

// TestCreatedNotOurs: a callback for a resource with no create of this
// process in flight changes nothing: not the journal, not the resource.
func TestCreatedNotOurs(t *testing.T) {
	ctx := context.Background()
	mg := newRecord("www")
	h := newHarness(t, harnessConfig{async: true, tfID: func(client.Object) (string, error) { return "rec-1", nil }, objects: []client.Object{mg.DeepCopy()}})
	in := h.earlierIntent(t, mg)
	before := h.stored(t, mg)

	h.k.Created(ctx, client.ObjectKeyFromObject(mg), nil)

	after, _ := h.intent(t, mg)
	if diff := cmp.Diff(in.State, after.State); diff != "" {
		t.Errorf("a callback of no create in flight settled the intent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, h.stored(t, mg), cmpStored); diff != "" {
		t.Errorf("a callback of no create in flight patched the resource (-want +got):\n%s", diff)
	}
}

// cmpStored compares stored resources by content.
var cmpStored = cmp.Comparer(func(a, b *unstructured.Unstructured) bool {
	return cmp.Equal(a.Object, b.Object)
})
