package upjetv1

import (
	"context"

	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ujresource "github.com/crossplane/upjet/pkg/resource"
	"github.com/crossplane/upjet/pkg/terraform"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
)

// WrapCallbacks returns cp with its Create callback settling the intent
// of the create that just ended, before cp's own callback runs (so the
// reconcile cp requests already sees the external name). A nil *Kind
// returns cp unchanged. Wrapping the callbacks marks the kind async: its
// Create only dispatches, and the callback settles.
func (k *Kind) WrapCallbacks(cp tjcontroller.CallbackProvider) tjcontroller.CallbackProvider {
	if k == nil {
		return cp
	}
	k.k.MarkAsync()
	return &callbacks{k: k.k, inner: cp}
}

type callbacks struct {
	k     *adapter.Kind
	inner tjcontroller.CallbackProvider
}

// Create returns the callback for the async create of the resource name
// (cluster-scoped: upjet v1 names it alone).
func (c *callbacks) Create(name string) terraform.CallbackFn {
	inner := c.inner.Create(name)
	return func(err error, ctx context.Context) error {
		c.k.Created(ctx, types.NamespacedName{Name: name}, err)
		return inner(err, ctx)
	}
}

// Update returns cp's callback.
func (c *callbacks) Update(name string) terraform.CallbackFn { return c.inner.Update(name) }

// Destroy returns cp's callback.
func (c *callbacks) Destroy(name string) terraform.CallbackFn { return c.inner.Destroy(name) }

var _ tjcontroller.CallbackProvider = (*callbacks)(nil)

// trackedID reads the new resource's Terraform ID from upjet's operation
// tracker in store, where the async create of mg left its state; "" when
// it holds none.
func trackedID(store *tjcontroller.OperationTrackerStore, mg client.Object) (string, error) {
	if store == nil {
		return "", nil
	}
	tr, ok := mg.(ujresource.Terraformed)
	if !ok {
		return "", nil
	}
	return store.Tracker(tr).GetTfID(), nil
}
