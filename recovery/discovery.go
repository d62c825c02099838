package recovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// discoverJournal emits a candidate per unsettled journal intent in scope.
// An intent out of scope (a create this process is running now) marks its
// UID seen all the same: the annotation scan must not take the resource up
// again as an incomplete create of unknown owner, since the journal knows
// its owner.
func (r *Resolver) discoverJournal(ctx context.Context, rep *report.Report, seen, quarantined map[types.UID]struct{}, emit func(*Candidate) bool) error {
	if r.o.Journal == nil {
		return nil
	}
	for in, err := range r.o.Journal.Unsettled(ctx) {
		var ce *journal.CorruptError
		switch {
		case errors.As(err, &ce):
			// What this record said is lost. The resource's annotation,
			// found by the annotation scan, may still tell; until then
			// the UID stays quarantined and Begin refuses it.
			r.log.Warn("journal record unreadable; relying on the resource's annotation", zap.String("uid", ce.Key), zap.Error(err))
			rep.AddNote(fmt.Sprintf("journal record %s is corrupt and quarantined; resolved from its annotation if the resource has one", ce.Key))
			quarantined[types.UID(ce.Key)] = struct{}{}
			continue
		case errors.Is(err, journal.ErrUnsupportedVersion):
			rep.AddNote(err.Error())
			continue
		case err != nil:
			return fmt.Errorf("cannot scan the journal: %w", err)
		}
		if r.o.Scope != nil && !r.o.Scope(in) {
			seen[types.UID(in.Resource.UID)] = struct{}{}
			continue
		}
		c := &Candidate{Intent: in, Sources: []string{report.SourceJournal}, inJournal: true}
		c.GVK = schema.FromAPIVersionAndKind(in.Resource.APIVersion, in.Resource.Kind)
		if !emit(c) {
			return ctx.Err()
		}
	}
	return nil
}

// discoverAnnotations lists every managed kind and emits a candidate per
// resource with an unsettled intent annotation or an incomplete create that
// the journal did not already yield.
func (r *Resolver) discoverAnnotations(ctx context.Context, seen, quarantined map[types.UID]struct{}, emit func(*Candidate) bool) error {
	for _, gvk := range r.o.Kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		cont := ""
		for {
			err := r.retryAPI(ctx, func() error {
				opts := []client.ListOption{client.Limit(500), client.Continue(cont)}
				if r.o.Selector != nil {
					opts = append(opts, client.MatchingLabelsSelector{Selector: r.o.Selector})
				}
				return r.o.Client.List(ctx, list, opts...)
			})
			if meta.IsNoMatchError(err) {
				r.log.Warn("managed kind is not served; skipping", zap.String("kind", gvk.String()))
				break
			}
			if err != nil {
				return fmt.Errorf("cannot list %s: %w", gvk.Kind, err)
			}
			for i := range list.Items {
				obj := &list.Items[i]
				if _, ok := seen[obj.GetUID()]; ok {
					continue
				}
				c, ok := r.annotationCandidate(obj, gvk)
				if !ok || (r.o.Scope != nil && !r.o.Scope(c.Intent)) || r.tooRecent(c) {
					continue
				}
				if _, q := quarantined[obj.GetUID()]; q {
					c.quarantined = true
					c.Sources = append([]string{report.SourceJournal}, c.Sources...)
				}
				if !emit(c) {
					return ctx.Err()
				}
			}
			if cont = list.GetContinue(); cont == "" {
				break
			}
		}
	}
	return nil
}

// annotationCandidate reports whether obj has an unsettled create.
func (r *Resolver) annotationCandidate(obj *unstructured.Unstructured, gvk schema.GroupVersionKind) (*Candidate, bool) {
	c := &Candidate{GVK: gvk, Object: obj}
	in, has, err := journal.AnnotationIntent(obj.GetAnnotations())
	switch {
	case has && err != nil:
		// Unreadable: resolve from the resource's identity alone.
		r.log.Warn("intent annotation unreadable; resolving by the resource's identity", zap.String("resource", obj.GetName()), zap.Error(err))
		c.Sources = append(c.Sources, report.SourceAnnotation)
	case has && in.Unsettled():
		c.Intent = in
		c.Sources = append(c.Sources, report.SourceAnnotation)
	}
	if createIncomplete(obj.GetAnnotations()) {
		c.Sources = append(c.Sources, report.SourceIncompleteCreate)
	}
	if len(c.Sources) == 0 {
		return nil, false
	}
	c.Intent.Resource = refOf(obj)
	return c, true
}

func refOf(obj *unstructured.Unstructured) journal.ResourceRef {
	return journal.ResourceRef{
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(),
		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: string(obj.GetUID()),
	}
}

// tooRecent reports whether c is an incomplete create that no intent
// explains and whose pending mark is younger than Options.IncompleteAge:
// the reconcile that wrote the mark may still be running.
func (r *Resolver) tooRecent(c *Candidate) bool {
	if r.o.IncompleteAge <= 0 || c.Intent.Owner != (journal.Owner{}) || !slices.Contains(c.Sources, report.SourceIncompleteCreate) {
		return false
	}
	pending, err := time.Parse(time.RFC3339, c.Object.GetAnnotations()[AnnotationExternalCreatePending])
	if err != nil {
		// createIncomplete parsed it; unreachable but for a change
		// between the two reads. Wait for a later pass.
		return true
	}
	return r.o.Now().Sub(pending) < r.o.IncompleteAge
}

// createIncomplete is crossplane-runtime's meta.ExternalCreateIncomplete on
// an annotation map: a create started (pending) after the last recorded
// success or failure.
func createIncomplete(a map[string]string) bool {
	parse := func(k string) time.Time {
		t, err := time.Parse(time.RFC3339, a[k])
		if err != nil {
			return time.Time{}
		}
		return t
	}
	pending := parse(AnnotationExternalCreatePending)
	if pending.IsZero() {
		return false
	}
	latest := parse(AnnotationExternalCreateSucceed)
	if f := parse(AnnotationExternalCreateFailed); f.After(latest) {
		latest = f
	}
	return pending.After(latest)
}
