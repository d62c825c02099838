package demo

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/intentjournal/intentjournal/recovery"
)

// trackerSyncTimeout bounds the tracker's first list of each managed kind.
const trackerSyncTimeout = 2 * time.Minute

// tracker follows the managed resources through one watch per kind, so
// that the run's waits read what the demo measures from memory. Listing
// every MR each poll instead cost the API server the serialization of the
// whole set every two seconds, and on a 2-core machine that load competed
// with the provider being measured (docs/recovery-at-scale.md). The
// tracker keeps only what managedOf reads of each MR (see trim).
//
// The run's one-off reads, at the kill and at the end, still list from
// the API server: they are what the demo reports.
type tracker struct {
	cache  cache.Cache
	kinds  []schema.GroupVersionKind
	cancel context.CancelFunc
	done   chan struct{}
}

// startTracker starts watching kinds through cfg and returns once each
// kind's first list is in memory.
func startTracker(ctx context.Context, cfg *rest.Config, mapper meta.RESTMapper, kinds []schema.GroupVersionKind) (*tracker, error) {
	c, err := cache.New(cfg, cache.Options{Scheme: runtime.NewScheme(), Mapper: mapper, DefaultTransform: trim})
	if err != nil {
		return nil, fmt.Errorf("cannot create the managed resource tracker: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	t := &tracker{cache: c, kinds: kinds, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		_ = c.Start(ctx) // returns when ctx ends; informer errors are retried inside
	}()
	sctx, scancel := context.WithTimeout(ctx, trackerSyncTimeout)
	defer scancel()
	for _, gvk := range kinds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if _, err := c.GetInformer(sctx, u); err != nil {
			t.stop()
			return nil, fmt.Errorf("cannot watch %s: %w", gvk.Kind, err)
		}
	}
	if !c.WaitForCacheSync(sctx) {
		t.stop()
		return nil, fmt.Errorf("cannot list the managed resources within %s: %w", trackerSyncTimeout, sctx.Err())
	}
	return t, nil
}

// list returns every tracked MR as last seen.
func (t *tracker) list(ctx context.Context) ([]managed, error) {
	var out []managed
	for _, gvk := range t.kinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := t.cache.List(ctx, l); err != nil {
			return nil, fmt.Errorf("cannot read the tracked %s: %w", gvk.Kind, err)
		}
		for i := range l.Items {
			out = append(out, managedOf(&l.Items[i]))
		}
	}
	return out, nil
}

// stop ends the watches and waits for them.
func (t *tracker) stop() {
	if t == nil {
		return
	}
	t.cancel()
	<-t.done
}

// trackedAnnotations are the annotations managedOf reads.
var trackedAnnotations = []string{recovery.AnnotationExternalName, recovery.AnnotationExternalCreateSucceed, recovery.AnnotationPaused}

// trim reduces a watched MR to what managedOf reads: its identity, three
// annotations and its Ready and Synced conditions. Anything else (a
// tombstone) passes as it is.
func trim(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	out := &unstructured.Unstructured{Object: map[string]any{}}
	out.SetAPIVersion(u.GetAPIVersion())
	out.SetKind(u.GetKind())
	out.SetNamespace(u.GetNamespace())
	out.SetName(u.GetName())
	out.SetUID(u.GetUID())
	out.SetResourceVersion(u.GetResourceVersion())
	a := u.GetAnnotations()
	keep := map[string]string{}
	for _, k := range trackedAnnotations {
		if v, ok := a[k]; ok {
			keep[k] = v
		}
	}
	if len(keep) > 0 {
		out.SetAnnotations(keep)
	}
	var kept []any
	for _, t := range []string{"Ready", "Synced"} {
		if c := conditionOf(u, t); c != nil {
			kept = append(kept, c)
		}
	}
	if len(kept) > 0 {
		out.Object["status"] = map[string]any{"conditions": kept}
	}
	return out, nil
}
