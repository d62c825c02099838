package adapter

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestEventFilter: the kind's event filter drops the update event of the
// callback's external-name patch, once, and every other event.
func TestEventFilter(t *testing.T) {
	const (
		uid  = types.UID("uid-1")
		name = "net-0123"
		meta = "upjet.crossplane.io/provider-meta"
	)
	key := types.NamespacedName{Namespace: "team-a", Name: "net"}
	before := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace(key.Namespace)
		u.SetName(key.Name)
		u.SetUID(uid)
		u.SetGeneration(1)
		u.SetLabels(map[string]string{"team": "a"})
		u.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
		u.SetAnnotations(map[string]string{
			journal.AnnotationKey:                     `{"v":1}`,
			recovery.AnnotationExternalCreatePending:  "2026-11-26T00:00:00Z",
			"crossplane.io/external-create-succeeded": "2026-11-26T00:00:01Z",
		})
		return u
	}
	// patched returns the object as the callback's patch leaves it.
	patched := func(edit func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := before()
		a := u.GetAnnotations()
		delete(a, journal.AnnotationKey)
		a[recovery.AnnotationExternalName] = name
		u.SetAnnotations(a)
		if edit != nil {
			edit(u)
		}
		return u
	}
	annotate := func(k, v string) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			a := u.GetAnnotations()
			if v == "" {
				delete(a, k)
			} else {
				a[k] = v
			}
			u.SetAnnotations(a)
		}
	}
	type want struct {
		Pass     []bool // per event, in order
		Expected bool   // the expectation is still held afterwards
	}
	cases := map[string]struct {
		reason    string
		notFilter bool     // the controller did not add the filter
		expect    bool     // the callback expects its patch
		also      []string // CreatedState.Annotations' keys
		events    [][2]*unstructured.Unstructured
		want      want
	}{
		"NothingExpected": {
			reason: "Without a patch under way every event passes.",
			events: [][2]*unstructured.Unstructured{{before(), patched(nil)}},
			want:   want{Pass: []bool{true}},
		},
		"ThePatch": {
			reason: "The patch's event is dropped, once: the same change again passes.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(nil)}, {before(), patched(nil)}},
			want:   want{Pass: []bool{false, true}},
		},
		"SuccessMark": {
			reason: "The patch writes crossplane-runtime's success mark too.",
			expect: true,
			also:   []string{recovery.AnnotationExternalCreateSucceed},
			events: [][2]*unstructured.Unstructured{{before(), patched(annotate(recovery.AnnotationExternalCreateSucceed, "2026-11-28T22:41:25Z"))}},
			want:   want{Pass: []bool{false}},
		},
		"ProviderMeta": {
			reason: "A Terraform CLI kind's patch writes upjet's provider-meta too.",
			expect: true,
			also:   []string{meta},
			events: [][2]*unstructured.Unstructured{{before(), patched(annotate(meta, "null"))}},
			want:   want{Pass: []bool{false}},
		},
		"ProviderMetaNotPatched": {
			reason: "An annotation the patch does not write is someone else's change.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(annotate(meta, "null"))}},
			want:   want{Pass: []bool{true}, Expected: true},
		},
		"OtherAnnotation": {
			reason: "Another annotation changed with it: the event passes.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(annotate("crossplane.io/paused", "true"))}},
			want:   want{Pass: []bool{true}, Expected: true},
		},
		"OtherName": {
			reason: "An external name other than the one patched is not the patch.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(annotate(recovery.AnnotationExternalName, "net-other"))}},
			want:   want{Pass: []bool{true}, Expected: true},
		},
		"IntentKept": {
			reason: "An update that keeps the intent annotation is not the patch.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(annotate(journal.AnnotationKey, `{"v":1}`))}},
			want:   want{Pass: []bool{true}, Expected: true},
		},
		"Generation": {
			reason: "A spec change passes.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(func(u *unstructured.Unstructured) { u.SetGeneration(2) })}},
			want:   want{Pass: []bool{true}, Expected: true},
		},
		"Labels": {
			reason: "A label change passes.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"team": "b"}) })}},
			want:   want{Pass: []bool{true}, Expected: true},
		},
		"Finalizers": {
			reason: "A finalizer change passes.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(func(u *unstructured.Unstructured) { u.SetFinalizers(nil) })}},
			want:   want{Pass: []bool{true}, Expected: true},
		},
		"Stale": {
			reason: "An update after the patch, whose own event was missed, passes and ends the expectation.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{patched(nil), patched(annotate("crossplane.io/paused", "true"))}},
			want:   want{Pass: []bool{true}},
		},
		"Recreated": {
			reason: "Another object under the name passes and ends the expectation.",
			expect: true,
			events: [][2]*unstructured.Unstructured{{before(), patched(func(u *unstructured.Unstructured) { u.SetUID("uid-2") })}},
			want:   want{Pass: []bool{true}},
		},
		"NoFilter": {
			reason:    "A controller without the filter gets no expectation recorded.",
			notFilter: true, expect: true,
			want: want{},
		},
	}
	for n, tc := range cases {
		t.Run(n, func(t *testing.T) {
			k := &Kind{}
			f := k.EventFilter()
			if tc.notFilter {
				k = &Kind{}
			}
			if tc.expect {
				also := map[string]string{}
				for _, a := range tc.also {
					also[a] = "null"
				}
				k.expectPatch(key, boundPatch{uid: uid, name: name, also: also})
			}
			var got want
			for _, e := range tc.events {
				got.Pass = append(got.Pass, f.Update(event.UpdateEvent{ObjectOld: e[0], ObjectNew: e[1]}))
			}
			_, got.Expected = k.patches[key]
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEventFilterForgetsDeleted: a delete event passes, and the Kind
// forgets the deleted object's vacant key and expected patch, and nothing
// of another object's, so that a managed resource deleted before its
// create leaves nothing behind for the life of the process.
func TestEventFilterForgetsDeleted(t *testing.T) {
	obj := func(name string, uid types.UID) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace("team-a")
		u.SetName(name)
		u.SetUID(uid)
		return u
	}
	type held struct {
		Vacant  map[types.UID]string
		Patches []types.NamespacedName
	}
	cases := map[string]struct {
		reason  string
		deleted *unstructured.Unstructured
		want    held
	}{
		"Deleted": {
			reason:  "The deleted object's vacant key and patch are forgotten; the other object's stay.",
			deleted: obj("a", "uid-a"),
			want:    held{Vacant: map[types.UID]string{"uid-b": "key-b"}, Patches: []types.NamespacedName{{Namespace: "team-a", Name: "b"}}},
		},
		"Recreated": {
			reason:  "An object deleted under a name whose patch is another object's leaves that patch.",
			deleted: obj("b", "uid-old"),
			want: held{Vacant: map[types.UID]string{"uid-a": "key-a", "uid-b": "key-b"},
				Patches: []types.NamespacedName{{Namespace: "team-a", Name: "a"}, {Namespace: "team-a", Name: "b"}}},
		},
	}
	for n, tc := range cases {
		t.Run(n, func(t *testing.T) {
			k := &Kind{keyResource: "fake_record", vacant: map[types.UID]string{}}
			f := k.EventFilter()
			for _, o := range []struct {
				name string
				uid  types.UID
			}{{"a", "uid-a"}, {"b", "uid-b"}} {
				k.ObservedKey(obj(o.name, o.uid), "key-"+o.name, true)
				k.expectPatch(types.NamespacedName{Namespace: "team-a", Name: o.name}, boundPatch{uid: o.uid, name: "n"})
			}
			if !f.Delete(event.DeleteEvent{Object: tc.deleted}) {
				t.Errorf("%s\nthe delete event was dropped; want it to pass", tc.reason)
			}
			got := held{Vacant: k.vacant}
			for key := range k.patches {
				got.Patches = append(got.Patches, key)
			}
			slices.SortFunc(got.Patches, func(x, y types.NamespacedName) int { return strings.Compare(x.String(), y.String()) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
