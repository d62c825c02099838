package upjetv1

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// get returns the journal's record of uid; in annotation-only mode there is
// no journal and it always returns journal.ErrNotFound, so the callers fall
// back to the resource's intent annotation.
func (a *Adapter) get(ctx context.Context, uid string) (journal.Intent, error) {
	if a.j == nil {
		return journal.Intent{}, journal.ErrNotFound
	}
	return a.j.Get(ctx, uid)
}

// begin records that the create of mg is about to be dispatched. With a
// journal it is Journal.Begin. In annotation-only mode the intent
// annotation itself is the record: it is patched onto mg (the patch names
// mg's UID) before begin returns, so a crash after the dispatch finds it.
// mg's resourceVersion follows the patch, so the reconciler's own later
// writes do not conflict.
func (k *Kind) begin(ctx context.Context, mg resource.Managed, in journal.Intent) (journal.Intent, error) {
	if k.a.j != nil {
		return k.a.j.Begin(ctx, in)
	}
	in = in.Clone()
	in.ID = journal.NewID()
	in.State = journal.StatePending
	in.Outcome = journal.Outcome{}
	in.DispatchedAt = time.Time{}
	now := time.Now().UTC()
	in.Attempt, in.CreatedAt, in.UpdatedAt = 1, now, now
	if prev, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && err == nil {
		in.Attempt = prev.Attempt + 1
	}
	ann, err := journal.SetAnnotation(nil, in)
	if err != nil {
		return journal.Intent{}, fmt.Errorf("cannot encode the intent annotation: %w", err)
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":         mg.GetUID(),
		"annotations": map[string]any{journal.AnnotationKey: ann[journal.AnnotationKey]},
	}})
	if err != nil {
		return journal.Intent{}, fmt.Errorf("cannot encode the intent annotation patch: %w", err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	u.SetNamespace(mg.GetNamespace())
	u.SetName(mg.GetName())
	if err := k.a.kube.Patch(ctx, u, client.RawPatch(types.MergePatchType, body)); err != nil {
		return journal.Intent{}, fmt.Errorf("cannot patch the intent annotation of %s: %w", mg.GetName(), err)
	}
	mg.SetResourceVersion(u.GetResourceVersion())
	return in, nil
}

// record settles in, durably with a journal. In annotation-only mode
// nothing is written here: the outcome becomes durable when the external
// name is patched and the annotation dropped (bind), and until then the
// annotation stays unsettled for Observe or recovery to finish.
func (a *Adapter) record(ctx context.Context, in journal.Intent, o journal.Outcome) (journal.Intent, error) {
	if a.j != nil {
		return a.j.Settle(ctx, in.Resource.UID, in.ID, o)
	}
	in.State, in.Outcome, in.UpdatedAt = o.State, o, time.Now().UTC()
	return in, nil
}

// inScope reports whether this process may resolve in: always without a
// Scope, else what the Scope says (this process's own intents, and those
// whose owner is provably dead).
func (a *Adapter) inScope(in journal.Intent) bool {
	return a.scope == nil || a.scope(in)
}

// lockCreate takes the CreateLocker's lock for mg, if one is configured.
// The returned unlock is never nil.
func (k *Kind) lockCreate(ctx context.Context, mg resource.Managed) (func(), error) {
	if k.a.locker == nil {
		return func() {}, nil
	}
	unlock, err := k.a.locker.LockCreate(ctx, mg)
	if err != nil {
		k.a.log.Info("create refused: the create lock is not ours", zap.String("kind", k.gvk.Kind), zap.String("resource", mg.GetName()),
			zap.String("uid", string(mg.GetUID())), zap.Error(err))
		return nil, fmt.Errorf("cannot create: cannot take the create lock of %s: %w", mg.GetName(), err)
	}
	if unlock == nil {
		unlock = func() {}
	}
	return sync.OnceFunc(unlock), nil
}

// Reconciler returns r filtered by Config.Owns: a request for a managed
// resource this process does not own now (its hash bucket is another
// replica's) is requeued after OwnsRecheck without reaching r, so only the
// owner observes, creates and writes status. A nil Adapter, or one without
// Owns, returns r.
func (a *Adapter) Reconciler(r reconcile.Reconciler) reconcile.Reconciler {
	if a == nil || a.owns == nil {
		return r
	}
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if !a.owns(req.Namespace, req.Name) {
			return reconcile.Result{RequeueAfter: a.ownsRecheck}, nil
		}
		return r.Reconcile(ctx, req)
	})
}

// after starts the Recoverer once wait is closed, with the Recoverer's
// leader election.
type after struct {
	wait <-chan struct{}
	r    *recovery.Recoverer
}

func (a *after) NeedLeaderElection() bool { return a.r.NeedLeaderElection() }

func (a *after) Start(ctx context.Context) error {
	select {
	case <-a.wait:
	case <-ctx.Done():
		return nil
	}
	return a.r.Start(ctx)
}

var _ manager.LeaderElectionRunnable = (*after)(nil)
