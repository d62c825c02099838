package adapter

import (
	"context"
	"fmt"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Requeues returns the source through which Adapter.Requeue asks this
// kind's controller to reconcile resources: add it to the controller with
// WatchesRawSource. Ownership that moves to this process (a hash bucket
// acquired) needs it: the controller holds no request for a resource whose
// last reconcile here ended without a requeue, or that it last saw while
// another replica owned it, so nothing would reconcile that resource
// until its next event. A nil Kind returns a source that never fires.
func (k *Kind) Requeues() source.Source {
	if k == nil {
		return source.Channel(make(chan event.GenericEvent), &handler.EnqueueRequestForObject{})
	}
	// The source buffers what it has taken (1,024 events by default);
	// Requeue waits for it beyond that, or before the controller starts.
	return source.Channel(k.requeue, &handler.EnqueueRequestForObject{})
}

// Requeue asks each kind's controller to reconcile now every managed
// resource of that kind, read from the manager's cache, for which match
// returns true. Call it when this process takes over resources, as
// ownership.BucketLeases.OnAcquire does for a bucket. It returns how many
// requests it sent; it stops at the first kind it cannot list, or when ctx
// ends. A nil Adapter sends nothing.
func (a *Adapter) Requeue(ctx context.Context, match func(namespace, name string) bool) (int, error) {
	if a == nil {
		return 0, nil
	}
	a.kmu.Lock()
	kinds := append([]*Kind(nil), a.kinds...)
	a.kmu.Unlock()
	sent := 0
	for _, k := range kinds {
		n, err := k.requeueMatching(ctx, match)
		sent += n
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// requeueMatching sends a request for each resource of k that matches.
func (k *Kind) requeueMatching(ctx context.Context, match func(namespace, name string) bool) (int, error) {
	listGVK := k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List")
	obj, err := k.a.scheme.New(listGVK)
	if err != nil {
		return 0, fmt.Errorf("cannot requeue %s: %w", k.gvk.Kind, err)
	}
	list, ok := obj.(client.ObjectList)
	if !ok {
		return 0, fmt.Errorf("cannot requeue %s: %s is not a list", k.gvk.Kind, listGVK)
	}
	if err := k.a.cache.List(ctx, list); err != nil {
		return 0, fmt.Errorf("cannot requeue %s: cannot list: %w", k.gvk.Kind, err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return 0, fmt.Errorf("cannot requeue %s: %w", k.gvk.Kind, err)
	}
	sent := 0
	for _, it := range items {
		o, ok := it.(client.Object)
		if !ok || !match(o.GetNamespace(), o.GetName()) {
			continue
		}
		select {
		case k.requeue <- event.GenericEvent{Object: o}:
			sent++
		case <-ctx.Done():
			return sent, fmt.Errorf("cannot requeue %s: %w", k.gvk.Kind, ctx.Err())
		}
	}
	return sent, nil
}

// RequeueBucket returns an ownership.BucketLeases.OnAcquire hook: it
// requeues, in the background, every managed resource of the bucket
// acquired, as bucketOf places it. ctx bounds the background work (the
// manager's context). A nil Adapter returns nil.
func (a *Adapter) RequeueBucket(ctx context.Context, bucketOf func(namespace, name string) int) func(bucket int) {
	if a == nil {
		return nil
	}
	return func(bucket int) {
		go func() {
			n, err := a.Requeue(ctx, func(namespace, name string) bool { return bucketOf(namespace, name) == bucket })
			if err != nil {
				a.log.Warn("cannot requeue the resources of an acquired bucket; they wait for their next event or resync",
					zap.Int("bucket", bucket), zap.Int("requeued", n), zap.Error(err))
				return
			}
			a.log.Info("requeued the resources of an acquired bucket", zap.Int("bucket", bucket), zap.Int("requeued", n))
		}()
	}
}
