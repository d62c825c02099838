package upjetv1

import (
	"context"
	"fmt"
	"sync"

	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"go.uber.org/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// The hooks of a scaled-out provider: the recovery scope, the create lock,
// the hash-bucket filter on reconcile requests and the Recoverer's wait for
// its buckets (Config.Scope, CreateLocker, Owns and RecoveryAfter).

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
