package upjetv2

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/adapter"
)

// Config configures Setup: see adapter.Config.
type Config = adapter.Config

// DefaultReconcileTimeout is the managed reconciler timeout of upjet's
// generated controllers (managed.WithTimeout(3*time.Minute)).
const DefaultReconcileTimeout = adapter.DefaultReconcileTimeout

// Adapter is the crash-safe create path shared by a provider's kinds (the
// line-independent adapter.Adapter: journal, recovery Gate and Resolver,
// owner, metrics), whose kinds KindFor wraps from their upjet
// configuration. A nil *Adapter wraps nothing: KindFor returns a nil
// *Kind, HoldUntilRecovered its manager, ReconcileTimeout the default.
type Adapter struct {
	*adapter.Adapter
}

// core returns the line-independent adapter, nil for a nil a.
func (a *Adapter) core() *adapter.Adapter {
	if a == nil {
		return nil
	}
	return a.Adapter
}

// kind returns the wrapper for the managed kind gvk of a plugin SDK or
// framework resource. store is the OperationTrackerStore of upjet's
// controller Options: after an async create it holds the Terraform state,
// and so the new resource's ID. A nil Adapter returns a nil *Kind. KindFor
// chooses opts from the kind's configuration.
func (a *Adapter) kind(gvk schema.GroupVersionKind, store *tjcontroller.OperationTrackerStore, opts ...adapter.KindOption) *Kind {
	if a == nil {
		return nil
	}
	return &Kind{k: a.Adapter.Kind(gvk, func(mg client.Object) (string, error) { return trackedID(store, mg) }, opts...),
		key: func(mg resource.Managed) string {
			id, err := trackedID(store, mg)
			if err != nil {
				return ""
			}
			return id
		}}
}

// HoldUntilRecovered is adapter.Adapter's; a nil Adapter returns mgr.
func (a *Adapter) HoldUntilRecovered(mgr manager.Manager) manager.Manager {
	return a.core().HoldUntilRecovered(mgr)
}

// ReconcileTimeout is adapter.Adapter's; a nil Adapter returns
// DefaultReconcileTimeout.
func (a *Adapter) ReconcileTimeout() time.Duration { return a.core().ReconcileTimeout() }

// Requeue is adapter.Adapter's; a nil Adapter sends nothing.
func (a *Adapter) Requeue(ctx context.Context, match func(namespace, name string) bool) (int, error) {
	return a.core().Requeue(ctx, match)
}

// RequeueBucket is adapter.Adapter's; a nil Adapter returns nil.
func (a *Adapter) RequeueBucket(ctx context.Context, bucketOf func(namespace, name string) int) func(bucket int) {
	return a.core().RequeueBucket(ctx, bucketOf)
}
