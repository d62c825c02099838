package upjetv2

import (
	"context"

	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/pkg/errors"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
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
	k.mu.Lock()
	k.async = true
	k.mu.Unlock()
	return &callbacks{k: k, inner: cp}
}

type callbacks struct {
	k     *Kind
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
		failpoint.Hit(failpoint.AfterCreate)
		if f := c.k.untrack(nn); f != nil {
			c.k.created(ctx, f, err)
			f.release()
		}
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

// created records how an async create ended. It never fails the callback:
// whatever it cannot record stays unsettled in the journal, and Observe or
// the next recovery pass finishes it.
func (k *Kind) created(ctx context.Context, f *flight, cerr error) {
	in := f.intent
	key, uid := client.ObjectKeyFromObject(f.mg), f.mg.GetUID()
	if cerr == nil {
		id, err := k.tfID(f)
		if err == nil && id == "" {
			err = errNoID
		}
		if err != nil {
			k.a.log.Warn("cannot settle a succeeded create now; Observe will", append(k.fields(in), zap.Error(err))...)
			return
		}
		en, err := k.nameFromID(id)
		if err != nil || en == "" {
			k.a.log.Warn("cannot derive the external name; Observe will settle", append(k.fields(in), zap.String("tf-id", id), zap.Error(err))...)
			return
		}
		if _, err := k.finish(ctx, in, key, uid, en); err != nil {
			k.a.log.Warn("cannot settle a succeeded create now; Observe or recovery will", append(k.fields(in), zap.Error(err))...)
			return
		}
		k.awaitCache(ctx, key, en)
		return
	}
	class := k.a.classifier.Classify(cerr)
	if _, err := k.settle(ctx, in, journal.Outcome{State: journal.StateFailed, ErrorClass: class, Message: errorMessage(cerr)}); err != nil {
		k.a.log.Warn("cannot record a failed create; recovery will look it up", append(k.fields(in), zap.Error(err))...)
		return
	}
	if class != journal.ErrorClassConflict {
		return
	}
	// Something with this resource's natural key exists. Retrying would
	// only meet the same 409: look it up once and adopt it if it is
	// provably ours, else pause the resource and report it.
	outcome, _, err := k.resolve(ctx, key, uid)
	if err != nil {
		k.a.log.Warn("cannot resolve a create conflict now; the next create attempt will", append(k.fields(in), zap.Error(err))...)
		return
	}
	if outcome == recovery.OutcomeConflict {
		k.a.log.Info("create conflict reported; resource paused", append(k.fields(in), zap.String("outcome", string(outcome)))...)
	}
}

// tfID reads the new resource's Terraform ID from upjet's operation
// tracker, where the async create left its state: the plugin SDK's
// InstanceState for an SDK resource, the "id" attribute of the framework
// state for a terraform-plugin-framework resource (upjet's GetTfID reads
// only the former). It returns "" when neither holds an ID.
func (k *Kind) tfID(f *flight) (string, error) {
	if k.store == nil {
		return "", nil
	}
	tr, ok := f.mg.(ujresource.Terraformed)
	if !ok {
		return "", nil
	}
	t := k.store.Tracker(tr)
	if id := t.GetTfID(); id != "" {
		return id, nil
	}
	if !t.HasFrameworkTFState() {
		return "", nil
	}
	id, err := frameworkStateID(t.GetFrameworkTFState())
	if err != nil {
		return "", errors.Wrap(err, "cannot read the Terraform ID from the framework state")
	}
	return id, nil
}
