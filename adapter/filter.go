package adapter

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// boundPatch is the external-name patch an async create's callback is
// making (Created): what the update event of that patch must show.
type boundPatch struct {
	uid  types.UID
	name string
	also map[string]string // CreatedState.Annotations
}

// EventFilter returns the predicate to add to the kind's controller
// (WithEventFilter) that drops the update event of the external-name
// patch an async create's callback makes, and only that event: the
// callback requests a reconcile right after the patch (a line's callback
// wrapper makes upjet's always request one), which sees the name. Without
// it, that event wakes a reconcile of its own, a pair of writes more per
// create than an unwrapped provider makes (the managed reconciler's
// status update, and upjet's tagger's update where the kind has tags).
//
// An event is the patch's when, for the managed resource the callback is
// settling, the intent annotation is gone, the external name is the one
// patched, and nothing else changed but the annotations the patch writes:
// no generation, label, finalizer or deletion change, no other
// annotation. Every other event passes. A nil Kind's passes every event.
//
// A delete event passes too, and makes the Kind forget what it held for
// the deleted object: the key its last Observe found vacant
// (ObservedKey), which only a create consumes, and a patch expected for
// it. A managed resource deleted before its create (the first Observe
// comes before crossplane-runtime adds its finalizer, so such a resource
// goes with no Observe after) would otherwise leave them for the life of
// the process.
func (k *Kind) EventFilter() predicate.Predicate {
	if k == nil {
		return predicate.Funcs{}
	}
	k.mu.Lock()
	k.filtering = true
	k.mu.Unlock()
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool { return !k.ownPatch(e.ObjectOld, e.ObjectNew) },
		DeleteFunc: func(e event.DeleteEvent) bool {
			k.forgetDeleted(e.Object)
			return true
		},
	}
}

// forgetDeleted drops what the Kind holds for obj, which was deleted:
// its vacant key, and the patch expected at its key if it was obj's.
func (k *Kind) forgetDeleted(obj client.Object) {
	if obj == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.vacant, obj.GetUID())
	key := client.ObjectKeyFromObject(obj)
	if p, ok := k.patches[key]; ok && p.uid == obj.GetUID() {
		delete(k.patches, key)
	}
}

// expectPatch records, when the kind's controller filters events, the
// external-name patch the callback is about to make.
func (k *Kind) expectPatch(key types.NamespacedName, p boundPatch) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.filtering {
		return
	}
	if k.patches == nil {
		k.patches = map[types.NamespacedName]boundPatch{}
	}
	k.patches[key] = p
}

// forgetPatch drops the expectation at key: the patch failed.
func (k *Kind) forgetPatch(key types.NamespacedName) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.patches, key)
}

// ownPatch reports whether the update from old to cur is the callback's
// external-name patch expected at cur's key, and forgets the expectation
// once its event has come, or has passed unseen.
func (k *Kind) ownPatch(old, cur client.Object) bool {
	if old == nil || cur == nil {
		return false
	}
	key := client.ObjectKeyFromObject(cur)
	k.mu.Lock()
	defer k.mu.Unlock()
	p, ok := k.patches[key]
	if !ok {
		return false
	}
	oldAnn, curAnn := old.GetAnnotations(), cur.GetAnnotations()
	if _, had := oldAnn[journal.AnnotationKey]; !had || cur.GetUID() != p.uid {
		// An update after the patch (its event missed, or coalesced), or
		// another object under the name: the expectation is stale.
		delete(k.patches, key)
		return false
	}
	if _, has := curAnn[journal.AnnotationKey]; has || curAnn[recovery.AnnotationExternalName] != p.name ||
		old.GetGeneration() != cur.GetGeneration() || old.GetDeletionTimestamp() != nil || cur.GetDeletionTimestamp() != nil ||
		!maps.Equal(old.GetLabels(), cur.GetLabels()) || !slices.Equal(old.GetFinalizers(), cur.GetFinalizers()) {
		return false
	}
	patched := map[string]bool{journal.AnnotationKey: true, recovery.AnnotationExternalName: true, recovery.AnnotationExternalCreatePending: true}
	for a := range p.also {
		patched[a] = true
	}
	for a, v := range oldAnn {
		if w, ok := curAnn[a]; (!ok || w != v) && !patched[a] {
			return false
		}
	}
	for a := range curAnn {
		if _, ok := oldAnn[a]; !ok && !patched[a] {
			return false
		}
	}
	delete(k.patches, key)
	return true
}
