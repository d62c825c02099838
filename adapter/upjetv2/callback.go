package upjetv2

import (
	"context"
	"fmt"

	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
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

// Create returns the callback for the async create of the resource nn.
//
// It always asks cp's callback to request a reconcile, whatever upjet
// passed as requestReconcile. upjet v2's async connectors pass false for a
// failed create when an earlier error is still cached, trusting the
// managed reconciler's rate-limited requeue from the Create that returned
// that error. But a reconcile that runs while the create is in flight
// (woken by the intent annotation written at dispatch, or any other
// change) sees "ongoing async operation", reports the resource up to date
// and replaces that requeue with the poll interval. The resource whose
// create just failed would then wait up to --poll (10 minutes by default)
// for its next attempt, and recovery for its next look-up. upjet v1
// always requests the reconcile; so does this callback. A duplicate
// request is merged by the work queue.
func (c *callbacks) Create(nn types.NamespacedName, _ bool) terraform.CallbackFn {
	inner := c.inner.Create(nn, true)
	return func(err error, ctx context.Context) error {
		c.k.Created(ctx, nn, err)
		return inner(err, ctx)
	}
}

// Update returns cp's callback.
func (c *callbacks) Update(nn types.NamespacedName, requestReconcile bool) terraform.CallbackFn {
	return c.inner.Update(nn, requestReconcile)
}

// Destroy returns cp's callback.
func (c *callbacks) Destroy(nn types.NamespacedName, requestReconcile bool) terraform.CallbackFn {
	return c.inner.Destroy(nn, requestReconcile)
}

var _ tjcontroller.CallbackProvider = (*callbacks)(nil)

// trackedID reads the new resource's Terraform ID from upjet's operation
// tracker in store, where the async create of mg left its state: the
// plugin SDK's InstanceState for an SDK resource, the "id" attribute of
// the framework state for a terraform-plugin-framework resource (upjet's
// GetTfID reads only the former). It returns "" when neither holds an ID.
func trackedID(store *tjcontroller.OperationTrackerStore, mg client.Object) (string, error) {
	if store == nil {
		return "", nil
	}
	tr, ok := mg.(ujresource.Terraformed)
	if !ok {
		return "", nil
	}
	t := store.Tracker(tr)
	if id := t.GetTfID(); id != "" {
		return id, nil
	}
	if !t.HasFrameworkTFState() {
		return "", nil
	}
	id, err := frameworkStateID(t.GetFrameworkTFState())
	if err != nil {
		return "", fmt.Errorf("cannot read the Terraform ID from the framework state: %w", err)
	}
	return id, nil
}
