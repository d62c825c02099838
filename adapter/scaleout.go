package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/recovery"
)

// The hooks of a scaled-out provider: the recovery scope, the create lock,
// the hash-bucket filter on reconcile requests and the Recoverer's wait for
// its buckets (Config.Scope, CreateLocker, Owns and RecoveryAfter).

// CreateLocker serialises the creates of one managed resource across
// processes. LockCreate returns once this process holds the lock for mg,
// or an error (another process holds it, or the lock could not be
// taken) that fails the create before anything is recorded or
// dispatched. The returned unlock releases it; it must be safe to call
// from any goroutine, and errors it meets are its own to log.
// ownership.CreateLeases is one.
type CreateLocker interface {
	LockCreate(ctx context.Context, mg metav1.Object) (unlock func(), err error)
}

// CreateLockerFn adapts a function to a CreateLocker.
type CreateLockerFn func(ctx context.Context, mg metav1.Object) (func(), error)

// LockCreate calls fn.
func (fn CreateLockerFn) LockCreate(ctx context.Context, mg metav1.Object) (func(), error) {
	return fn(ctx, mg)
}

var _ CreateLocker = CreateLockerFn(nil)

// inScope reports whether this process may resolve in: always without a
// Scope, else what the Scope says (this process's own intents, and those
// whose owner is provably dead).
func (a *Adapter) inScope(in journal.Intent) bool {
	return a.scope == nil || a.scope(in)
}

// lockCreate takes the CreateLocker's lock for mg, if one is configured.
// The returned unlock is never nil.
func (k *Kind) lockCreate(ctx context.Context, mg client.Object) (func(), error) {
	if k.a.locker == nil {
		return func() {}, nil
	}
	unlock, err := k.a.locker.LockCreate(ctx, mg)
	if err != nil {
		k.a.log.Info("create refused: the create lock is not ours", zap.String("kind", k.gvk.Kind), zap.String("resource", mg.GetName()),
			zap.String("uid", string(mg.GetUID())), zap.Error(err))
		if k.a.notOwner(mg, err) {
			k.handBack(ctx, mg)
		}
		return nil, fmt.Errorf("cannot create: cannot take the create lock of %s: %w", mg.GetName(), err)
	}
	if unlock == nil {
		unlock = func() {}
	}
	return sync.OnceFunc(unlock), nil
}

// notOwner reports whether a create of mg refused with err was refused
// because another replica owns mg now.
func (a *Adapter) notOwner(mg client.Object, err error) bool {
	return errors.Is(err, ownership.ErrNotOwned) || (a.owns != nil && !a.owns(mg.GetNamespace(), mg.GetName()))
}

// handBack leaves mg, whose create this process refused because another
// replica owns it, to that owner. crossplane-runtime marked the create
// pending before it called Create. An owner that reconciles mg before the
// failed mark lands stops ("cannot determine creation result") without a
// requeue, and waits for an event; but its event filter
// (resource.DesiredStateChanged) ignores the failed mark that follows, and
// this process, not the owner, is requeued for the error. So one patch
// writes the failed mark now, with ownership.AnnotationCreateRefused, an
// annotation the filter passes: the owner reconciles again and finds the
// create ended. Nothing was recorded or dispatched, so the failed mark is
// true. A patch that fails leaves the owner to its next resync; it is
// logged, and the refusal stands.
func (k *Kind) handBack(ctx context.Context, mg client.Object) {
	now := time.Now()
	failed := now.UTC().Format(time.RFC3339)
	refused := now.UTC().Format(time.RFC3339Nano)
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid": mg.GetUID(),
		"annotations": map[string]any{
			recovery.AnnotationExternalCreateFailed: failed,
			ownership.AnnotationCreateRefused:       refused,
		},
	}})
	if err == nil {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(k.gvk)
		u.SetNamespace(mg.GetNamespace())
		u.SetName(mg.GetName())
		if err = k.a.kube.Patch(ctx, u, client.RawPatch(types.MergePatchType, body)); err == nil {
			// Keep the in-memory object in step, so the reconciler's own
			// failed-mark update does not conflict.
			mg.SetResourceVersion(u.GetResourceVersion())
			addAnnotations(mg, map[string]string{recovery.AnnotationExternalCreateFailed: failed, ownership.AnnotationCreateRefused: refused})
			k.a.log.Info("create refused: handed back to the owner", zap.String("kind", k.gvk.Kind), zap.String("namespace", mg.GetNamespace()),
				zap.String("resource", mg.GetName()))
			return
		}
	}
	k.a.log.Warn("cannot hand a refused create back to its owner; it waits for the owner's next resync", zap.String("kind", k.gvk.Kind),
		zap.String("namespace", mg.GetNamespace()), zap.String("resource", mg.GetName()), zap.Error(err))
}

// Reconciler returns r filtered by Config.Owns: a request for a managed
// resource this process does not own now (its hash bucket is another
// replica's) is requeued after OwnsRecheck without reaching r, so only the
// owner observes, creates and writes status.
//
// An owner's reconcile that ends for good (no requeue, no error) while the
// resource's create is incomplete (crossplane-runtime's "cannot determine
// creation result": pending marked after the last success or failure) and
// no create of this process is in flight is requeued with backoff. Such a
// mark is another replica's create attempt caught between its pending and
// failed marks as the bucket moved here: the failed mark that follows
// passes no event filter (crossplane-runtime's DesiredStateChanged ignores
// it), so without the requeue the resource would wait for its next event.
// A nil Kind, or one whose Adapter has no Owns, returns r.
func (k *Kind) Reconciler(r reconcile.Reconciler) reconcile.Reconciler {
	if k == nil || k.a.owns == nil {
		return r
	}
	a := k.a
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if !a.owns(req.Namespace, req.Name) {
			return reconcile.Result{RequeueAfter: a.ownsRecheck}, nil
		}
		res, err := r.Reconcile(ctx, req)
		if err == nil && res == (reconcile.Result{}) && k.strandedIncomplete(ctx, req.NamespacedName) {
			return reconcile.Result{RequeueAfter: k.stranded.When(req.NamespacedName)}, nil
		}
		k.stranded.Forget(req.NamespacedName)
		return res, err
	})
}

// newStrandedBackoff returns the backoff of Kind.Reconciler's requeues of
// a stranded incomplete create: 1 s doubling to a minute, as
// crossplane-runtime's controllers back off.
func newStrandedBackoff() workqueue.TypedRateLimiter[types.NamespacedName] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](time.Second, time.Minute)
}

// strandedIncomplete reports whether the resource at key, read from the
// cache, has an incomplete create that no create of this process explains.
// A resource it cannot read (deleted, say) is not.
func (k *Kind) strandedIncomplete(ctx context.Context, key types.NamespacedName) bool {
	obj, err := k.a.scheme.New(k.gvk)
	if err != nil {
		return false
	}
	mg, ok := obj.(client.Object)
	if !ok || k.a.cache.Get(ctx, key, mg) != nil {
		return false
	}
	if !ExternalCreateIncomplete(mg) || k.inFlight(key, mg.GetUID()) {
		return false
	}
	k.a.log.Info("create incomplete with none in flight here; requeued until its end is recorded",
		zap.String("kind", k.gvk.Kind), zap.String("namespace", key.Namespace), zap.String("resource", key.Name))
	return true
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
