package adapter

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestObserved: an Observe that found the resource settles its unsettled
// intent, durably succeeded with the name first, then one conditional
// patch binds the name and drops the annotation. A copy older than the
// object is patched only if the object still carries the copy's intent;
// a failed patch leaves the intent succeeded for the next Observe.
func TestObserved(t *testing.T) {
	type observed struct {
		Intent        journal.State
		ExternalName  string // the API server's copy
		Annotation    string // the API server's intent: "ours", "later" or ""
		CopyCurrent   bool   // the reconcile's copy has the stored resourceVersion
		CopyAnnotated bool
	}
	later := journal.Intent{ID: journal.NewID(), State: journal.StatePending, Attempt: 2}
	cases := map[string]struct {
		reason    string
		failPatch bool // every Patch fails
		// drift changes the stored object after the reconcile read its copy.
		drift func(t *testing.T, u *unstructured.Unstructured)
		// inFlight: this process's async create of the resource is in flight.
		inFlight bool
		want     observed
	}{
		"Current": {reason: "The copy is current: bound and settled, and the copy kept in step.",
			want: observed{Intent: journal.StateSettled, ExternalName: "rec-1", CopyCurrent: true}},
		"StaleCopyAlreadyBound": {reason: "The callback bound the name after the copy was read: no second patch.",
			drift: func(_ *testing.T, u *unstructured.Unstructured) {
				u.SetAnnotations(map[string]string{recovery.AnnotationExternalName: "rec-1"})
			},
			want: observed{Intent: journal.StateSettled, ExternalName: "rec-1", CopyAnnotated: true}},
		"StaleCopyStillAnnotated": {reason: "Only the status moved on: the object still carries the copy's intent, and is bound.",
			drift: func(_ *testing.T, u *unstructured.Unstructured) { u.SetLabels(map[string]string{"moved": "on"}) },
			want:  observed{Intent: journal.StateSettled, ExternalName: "rec-1", CopyAnnotated: true}},
		"StaleCopyLaterIntent": {reason: "A later create's intent is on the object: it is left alone.",
			drift: func(t *testing.T, u *unstructured.Unstructured) {
				ann, err := journal.SetAnnotation(nil, later)
				if err != nil {
					t.Fatal(err)
				}
				u.SetAnnotations(ann)
			},
			want: observed{Intent: journal.StateSucceeded, Annotation: "later", CopyAnnotated: true}},
		"PatchFails": {reason: "The name is durable in the journal; the failed patch leaves the rest to the next Observe.",
			failPatch: true, want: observed{Intent: journal.StateSucceeded, ExternalName: "rec-1", Annotation: "ours", CopyCurrent: true, CopyAnnotated: true}},
		"InFlight": {reason: "The create's callback, not Observe, records a create in flight.",
			inFlight: true, want: observed{Intent: journal.StatePending, ExternalName: "rec-1", Annotation: "ours", CopyCurrent: true, CopyAnnotated: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mg := newRecord("www")
			cfg := harnessConfig{objects: []client.Object{mg.DeepCopy()}}
			if tc.failPatch {
				cfg.funcs = failPatch(errors.New("etcdserver: request timed out"))
			}
			h := newHarness(t, cfg)
			in, err := BuildIntent(mg, IntentInput{GVK: testGVK, Owner: h.a.Owner()}, fakeLine{})
			if err != nil {
				t.Fatal(err)
			}
			if in, err = h.j.Begin(ctx, in); err != nil {
				t.Fatal(err)
			}
			ann, err := journal.SetAnnotation(map[string]string{recovery.AnnotationExternalName: "rec-1"}, in)
			if err != nil {
				t.Fatal(err)
			}
			u := h.stored(t, mg)
			u.SetAnnotations(ann)
			if err := h.kube.Update(ctx, u); err != nil {
				t.Fatal(err)
			}
			cp := h.stored(t, mg) // the reconcile's copy
			if tc.drift != nil {
				d := h.stored(t, mg)
				tc.drift(t, d)
				if err := h.kube.Update(ctx, d); err != nil {
					t.Fatal(err)
				}
			}
			if tc.inFlight {
				h.k.track(cp, in, func() {})
			}

			h.k.Observed(ctx, cp)

			rec, _ := h.intent(t, mg)
			s := h.stored(t, mg)
			got := observed{Intent: rec.State, ExternalName: ExternalName(s), CopyCurrent: cp.GetResourceVersion() == s.GetResourceVersion(),
				CopyAnnotated: cp.GetAnnotations()[journal.AnnotationKey] != ""}
			switch a, has, _ := journal.AnnotationIntent(s.GetAnnotations()); {
			case has && a.ID == in.ID:
				got.Annotation = "ours"
			case has && a.ID == later.ID:
				got.Annotation = "later"
			case has:
				got.Annotation = "unknown"
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
