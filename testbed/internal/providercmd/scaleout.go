package providercmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
)

// ScaleOutFlags are the flags that run the provider as one of several
// processes: a label shard or a set of hash buckets, per-shard leader
// election, and per-resource create Leases.
type ScaleOutFlags struct {
	ShardName, ShardLabel string
	Buckets               int
	BucketLeaseNamespace  string
	CreateLease           bool
	LeaderElectionID      string
	LeaseDuration         time.Duration
	RecoveryInterval      time.Duration
	RecoveryRetry         time.Duration
}

// validateScaleOut reports scale-out flag combinations that cannot work.
func (o Options) validateScaleOut() error {
	s := o.Scale
	switch {
	case s.ShardName != "" && s.Buckets > 0:
		return errors.New("--shard-name and --buckets are two different shapes; choose one")
	case s.Buckets < 0:
		return fmt.Errorf("--buckets must not be negative, got %d", s.Buckets)
	case s.Buckets > 0 && o.LeaderElection:
		return errors.New("--buckets elects per bucket; drop --leader-election")
	case (s.Buckets > 0 || s.CreateLease || s.ShardName != "") && !o.Intents():
		return errors.New("--shard-name, --buckets and --create-lease need --journal or --annotation-only")
	case s.ShardName != "" && o.Shard != "" && o.Shard != s.ShardName:
		return fmt.Errorf("--shard %q and --shard-name %q disagree", o.Shard, s.ShardName)
	case s.LeaseDuration < 3*time.Second:
		return fmt.Errorf("--lease-duration must be at least 3s, got %s", s.LeaseDuration)
	}
	return nil
}

// ScaleOut is what the scale-out flags build before the manager exists.
type ScaleOut struct {
	Owner    journal.Owner
	ByObject map[client.Object]cache.ByObject
	// Lock is the leader-election lock, whose holderIdentity is
	// ownership.Holder(Owner); nil without leader election.
	Lock     resourcelock.Interface
	LockName string
	Scope    func(journal.Intent) bool
	Selector labels.Selector
	Locker   adapter.CreateLocker
	Buckets  *ownership.BucketLeases
	Interval time.Duration
	// Owns filters reconciles to the buckets this replica holds.
	Owns func(namespace, name string) bool
	// RecoveryAfter holds the first recovery pass until the replica holds
	// its buckets.
	RecoveryAfter <-chan struct{}
}

// NewScaleOut builds the owner of this boot and, from the scale-out
// flags, its ownership predicate, recovery scope, leader-election lock,
// bucket Leases and create locker. The same predicate filters the cache
// (label shard) or the create path (hash buckets) and scopes recovery.
// managed are the line's managed kinds, which a label shard's cache
// selects.
func NewScaleOut(cfg *rest.Config, o Options, zl *zap.Logger, managed []client.Object) (*ScaleOut, error) {
	s := o.Scale
	replica := o.Replica
	if replica == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("cannot name the replica: %w", err)
		}
		replica = h
	}
	shard := o.Shard
	if shard == "" {
		shard = s.ShardName
	}
	so := &ScaleOut{Owner: journal.Owner{Replica: replica, Shard: shard, Epoch: journal.NewEpoch(time.Now())}, Interval: s.RecoveryInterval}
	if !o.Intents() {
		return so, nil
	}
	// Each kind of Lease gets a client, and so a client-side rate
	// limiter, of its own: a burst of create Leases under load must never
	// delay the renewal of a bucket Lease past its expiry.
	direct, err := leaseClient(cfg, defaultQPS, defaultBurst)
	if err != nil {
		return nil, err
	}
	creates, err := leaseClient(cfg, 5*defaultQPS, 5*defaultBurst)
	if err != nil {
		return nil, err
	}
	leaseNS := o.LeaderElectionNamespace
	if s.Buckets > 0 {
		leaseNS = s.BucketLeaseNamespace
	}
	// With --create-lease, the scope also reads the create Leases: a
	// create left incomplete with no intent is never resolved while a
	// live process holds its Lease.
	var createLeases *ownership.CreateLeases
	var locks ownership.CreateLocks
	if s.CreateLease {
		createLeases = &ownership.CreateLeases{
			Client: creates, Namespace: leaseNS, Prefix: "provider-fakecloud", Owner: so.Owner,
			LeaseDuration: s.LeaseDuration, Logger: zapr.NewLogger(zl.Named("create-lease")),
		}
		locks = createLeases
	}
	var ownsMR func(metav1.Object) bool
	switch {
	case s.ShardName != "":
		ls := ownership.LabelShard{Label: s.ShardLabel, Name: s.ShardName}
		so.ByObject = ls.ByObject(managed...)
		so.Selector = ls.Selector()
		so.Scope = ownership.Scope(ownership.ScopeOptions{
			Self:        so.Owner,
			Liveness:    ownership.ShardLiveness(direct, o.LeaderElectionNamespace, LeaderElectionID),
			CreateLocks: locks,
			Logger:      zapr.NewLogger(zl),
		})
		ownsMR = func(mg metav1.Object) bool { return ls.Owns(mg.GetLabels()) }
	case s.Buckets > 0:
		hb := ownership.HashBuckets{N: s.Buckets, Namespace: s.BucketLeaseNamespace, Prefix: "provider-fakecloud"}
		bl, err := ownership.NewBucketLeases(direct, hb, so.Owner, zapr.NewLogger(zl))
		if err != nil {
			return nil, err
		}
		bl.LeaseDuration = s.LeaseDuration
		so.Buckets = bl
		so.Scope = ownership.Scope(ownership.ScopeOptions{
			Self:        so.Owner,
			Liveness:    ownership.MemberLiveness(direct, hb),
			Owns:        func(r journal.ResourceRef) bool { return bl.Owns(r.Namespace, r.Name) },
			CreateLocks: locks,
			Logger:      zapr.NewLogger(zl),
		})
		ownsMR = func(mg metav1.Object) bool { return bl.Owns(mg.GetNamespace(), mg.GetName()) }
		so.Owns = bl.Owns
		so.RecoveryAfter = bl.Ready()
		if so.Interval <= 0 {
			so.Interval = s.LeaseDuration
		}
		// Every create goes through the bucket check; the create Lease
		// itself only with --create-lease.
		so.Locker = adapter.CreateLockerFn(func(_ context.Context, mg metav1.Object) (func(), error) {
			if !ownsMR(mg) {
				return nil, fmt.Errorf("%w: %s", ownership.ErrNotOwned, mg.GetName())
			}
			return func() {}, nil
		})
	}
	if createLeases != nil {
		createLeases.Owns = ownsMR
		so.Locker = createLeases
	}
	if o.LeaderElection {
		so.LockName = s.LeaderElectionID
		if so.LockName == "" {
			so.LockName = LeaderElectionID
			if s.ShardName != "" {
				so.LockName = ownership.ShardLeaseName(LeaderElectionID, s.ShardName)
			}
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("cannot create the leader-election client: %w", err)
		}
		so.Lock, err = resourcelock.New(resourcelock.LeasesResourceLock, o.LeaderElectionNamespace, so.LockName,
			cs.CoreV1(), cs.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: ownership.Holder(so.Owner)})
		if err != nil {
			return nil, fmt.Errorf("cannot create the leader-election lock: %w", err)
		}
	}
	return so, nil
}

// leaseClient returns an uncached client for Leases with its own
// client-side rate limit.
func leaseClient(cfg *rest.Config, qps float32, burst int) (client.Client, error) {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = qps, burst
	cl, err := client.New(c, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("cannot create a lease client: %w", err)
	}
	return cl, nil
}
