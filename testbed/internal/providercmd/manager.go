package providercmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
)

// ManagerOptions are the controller manager's options of both lines'
// provider-fakecloud: leader election through so's lock, scheme, the
// cache's sync period and label shard, the metrics and pprof addresses.
func ManagerOptions(o Options, so *ScaleOut, scheme *runtime.Scheme) ctrl.Options {
	return ctrl.Options{
		LeaderElection:                      o.LeaderElection,
		LeaderElectionID:                    LeaderElectionID,
		LeaderElectionNamespace:             o.LeaderElectionNamespace,
		LeaderElectionResourceLock:          resourcelock.LeasesResourceLock,
		LeaderElectionResourceLockInterface: so.Lock,
		LeaderElectionReleaseOnCancel:       so.Lock != nil,
		LeaseDuration:                       ptr.To(o.Scale.LeaseDuration),
		RenewDeadline:                       ptr.To(o.Scale.LeaseDuration * 5 / 6),
		RetryPeriod:                         ptr.To(min(2*time.Second, o.Scale.LeaseDuration/4)),
		Scheme:                              scheme,
		Cache:                               cache.Options{SyncPeriod: &o.SyncPeriod, ByObject: so.ByObject},
		Metrics:                             metricsserver.Options{BindAddress: o.MetricsBindAddress},
		PprofBindAddress:                    o.PprofBindAddress,
		HealthProbeBindAddress:              "0",
	}
}

// AdapterConfig is the intentjournal configuration both lines'
// provider-fakecloud build from their flags and scale-out: the journal,
// the owner and its scope, the create locker, the recovery pass's timing,
// policy and report, and the Begin failpoint. The caller adds what its
// line derives: the kinds, finders, key probes and deleters.
func AdapterConfig(o Options, so *ScaleOut, log logr.Logger) adapter.Config {
	return adapter.Config{
		JournalPath:           o.Journal,
		AnnotationOnly:        o.AnnotationOnly,
		Replica:               so.Owner.Replica,
		Shard:                 so.Owner.Shard,
		Epoch:                 so.Owner.Epoch,
		Scope:                 so.Scope,
		Selector:              so.Selector,
		CreateLocker:          so.Locker,
		RecoveryInterval:      so.Interval,
		Owns:                  so.Owns,
		RecoveryAfter:         so.RecoveryAfter,
		OwnsRecheck:           o.Scale.LeaseDuration / 3,
		RecoveryRetryInterval: o.Scale.RecoveryRetry,
		ReconcileTimeout:      o.ReconcileTimeout,
		Policy:                recovery.Policy{DeleteOrphans: o.DeleteOrphans, Concurrency: o.RecoveryConcurrency},
		ReportPath:            o.RecoveryReport,
		Logger:                log,
		BeginHook:             BeginFailpoint(),
	}
}

// AddBuckets adds so's bucket Leases to mgr, when it has any, with
// requeue (the adapter's RequeueBucket) requeueing what a bucket acquired
// mid-run holds, which this process's controllers may hold no request
// for.
func (so *ScaleOut) AddBuckets(ctx context.Context, mgr manager.Manager, requeue func(context.Context, func(namespace, name string) int) func(bucket int)) error {
	if so.Buckets == nil {
		return nil
	}
	so.Buckets.OnAcquire = requeue(ctx, so.Buckets.BucketOf)
	if err := mgr.Add(so.Buckets); err != nil {
		return fmt.Errorf("cannot add the bucket leases: %w", err)
	}
	return nil
}

// Start logs the provider's configuration, the line's fields after the
// common ones, and runs mgr until ctx ends. A graceful stop that ran out
// of time says what still runs, and whether it is controller-runtime's
// priority queue (ErrPriorityQueueHang).
func Start(ctx context.Context, mgr manager.Manager, zl *zap.Logger, o Options, so *ScaleOut, host string, line ...zap.Field) error {
	fields := []zap.Field{
		zap.Duration("sync-period", o.SyncPeriod),
		zap.Duration("poll-interval", o.PollInterval),
		zap.Int("max-reconcile-rate", o.MaxReconcileRate),
		zap.Bool("leader-election", o.LeaderElection),
		zap.String("journal", o.Journal),
		zap.Bool("annotation-only", o.AnnotationOnly),
	}
	fields = append(fields, line...)
	fields = append(fields,
		zap.Stringer("owner", so.Owner),
		zap.String("shard-name", o.Scale.ShardName),
		zap.Int("buckets", o.Scale.Buckets),
		zap.Bool("create-lease", o.Scale.CreateLease),
		zap.String("leader-election-lease", so.LockName),
		zap.String("host", host))
	zl.Info("Starting provider", fields...)
	if err := mgr.Start(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && PriorityQueueHang(DumpGoroutines(zl)) {
			return fmt.Errorf("cannot stop the controller manager: %w", ErrPriorityQueueHang)
		}
		return fmt.Errorf("cannot run controller manager: %w", err)
	}
	return nil
}
