package upjetv2

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/intentjournal/intentjournal/adapter"
)

// core returns the shared create path, nil for a nil k.
func (k *Kind) core() *adapter.Kind {
	if k == nil {
		return nil
	}
	return k.k
}

// Requeues returns the source through which Adapter.Requeue asks this
// kind's controller to reconcile resources (adapter.Kind.Requeues): add it
// to the controller with WatchesRawSource. A nil Kind returns a source
// that never fires.
func (k *Kind) Requeues() source.Source { return k.core().Requeues() }

// EventFilter returns the predicate that drops the update event of the
// external-name patch an async create's callback makes, which the
// reconcile the callback requests covers (adapter.Kind.EventFilter): add
// it to the controller with WithEventFilter. A nil Kind returns a
// predicate that passes every event.
func (k *Kind) EventFilter() predicate.Predicate { return k.core().EventFilter() }

// Reconciler returns r filtered by Config.Owns (adapter.Kind.Reconciler):
// only the owner of a managed resource reconciles it. A nil Kind, or one
// whose Adapter has no Owns, returns r.
func (k *Kind) Reconciler(r reconcile.Reconciler) reconcile.Reconciler { return k.core().Reconciler(r) }

// WrapConnector returns c with every ExternalClient it connects wrapped
// (see the package doc). A nil *Kind returns c unchanged.
func (k *Kind) WrapConnector(c managed.ExternalConnector) managed.ExternalConnector {
	if k == nil {
		return c
	}
	return &connector{k: k.k, key: k.key, inner: c}
}

type connector struct {
	k     *adapter.Kind
	key   func(mg resource.Managed) string
	inner managed.ExternalConnector
}

func (c *connector) Connect(ctx context.Context, mg resource.Managed) (managed.ExternalClient, error) {
	ec, err := c.inner.Connect(ctx, mg)
	if err != nil {
		return nil, err
	}
	return &external{k: c.k, key: c.key, inner: ec}, nil
}

type external struct {
	k     *adapter.Kind
	key   func(mg resource.Managed) string
	inner managed.ExternalClient
}

// Observe calls the inner client and, when the resource exists, settles
// its unsettled intent once its external name is known (Kind.Observed).
// It reads first the Terraform ID the inner Observe reads at: upjet's
// Connect puts it in the OperationTrackerStore's state (the ID the kind's
// GetIDFn builds from external name, spec and setup, "" for a kind whose
// ID the cloud assigns), and the read refreshes that state. When nothing
// is there, the create that follows claims it (Kind.ObservedKey).
func (e *external) Observe(ctx context.Context, mg resource.Managed) (managed.ExternalObservation, error) {
	key := ""
	if e.key != nil {
		key = e.key(mg)
	}
	obs, err := e.inner.Observe(ctx, mg)
	if err == nil && obs.ResourceExists {
		e.k.Observed(ctx, mg)
	}
	e.k.ObservedKey(mg, key, err == nil && !obs.ResourceExists)
	return obs, err
}

// Create begins a durable intent, then dispatches the inner Create
// (Kind.Create). See the package doc for the order and what each refusal
// means.
func (e *external) Create(ctx context.Context, mg resource.Managed) (managed.ExternalCreation, error) {
	var cre managed.ExternalCreation
	err := e.k.Create(ctx, mg, func(ctx context.Context) error {
		var err error
		cre, err = e.inner.Create(ctx, mg)
		return err
	})
	return cre, err
}

// Update calls the inner client.
func (e *external) Update(ctx context.Context, mg resource.Managed) (managed.ExternalUpdate, error) {
	return e.inner.Update(ctx, mg)
}

// Delete calls the inner client. An unsettled intent is left in the
// journal: after the managed resource is gone, recovery treats it as "MR
// deleted" and reports whatever the create made as an orphan.
func (e *external) Delete(ctx context.Context, mg resource.Managed) (managed.ExternalDelete, error) {
	e.k.Deleting(mg)
	return e.inner.Delete(ctx, mg)
}

// Disconnect calls the inner client.
func (e *external) Disconnect(ctx context.Context) error { return e.inner.Disconnect(ctx) }

var (
	_ managed.ExternalConnector = (*connector)(nil)
	_ managed.ExternalClient    = (*external)(nil)
)

// WithExternalConnector returns the reconciler option that sets c,
// wrapped (WrapConnector), as the managed reconciler's connector. A nil
// *Kind sets c unwrapped.
func (k *Kind) WithExternalConnector(c managed.ExternalConnector) managed.ReconcilerOption {
	return managed.WithExternalConnector(k.WrapConnector(c))
}
