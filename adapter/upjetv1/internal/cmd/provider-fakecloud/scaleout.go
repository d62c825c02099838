package main

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

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
)

// scaleOutFlags are the flags that run the provider as one of several
// processes: a label shard or a set of hash buckets, per-shard leader
// election, and per-resource create Leases.
type scaleOutFlags struct {
	shardName, shardLabel string
	buckets               int
	bucketLeaseNamespace  string
	createLease           bool
	leaderElectionID      string
	leaseDuration         time.Duration
	recoveryInterval      time.Duration
	recoveryRetry         time.Duration
}

// validate reports flag combinations that cannot work.
func (o options) validateScaleOut() error {
	s := o.scale
	switch {
	case s.shardName != "" && s.buckets > 0:
		return errors.New("--shard-name and --buckets are two different shapes; choose one")
	case s.buckets < 0:
		return fmt.Errorf("--buckets must not be negative, got %d", s.buckets)
	case s.buckets > 0 && o.leaderElection:
		return errors.New("--buckets elects per bucket; drop --leader-election")
	case (s.buckets > 0 || s.createLease || s.shardName != "") && !o.intents():
		return errors.New("--shard-name, --buckets and --create-lease need --journal or --annotation-only")
	case s.shardName != "" && o.shard != "" && o.shard != s.shardName:
		return fmt.Errorf("--shard %q and --shard-name %q disagree", o.shard, s.shardName)
	case s.leaseDuration < 3*time.Second:
		return fmt.Errorf("--lease-duration must be at least 3s, got %s", s.leaseDuration)
	}
	return nil
}

// scaleOut is what the scale-out flags build before the manager exists.
type scaleOut struct {
	owner    journal.Owner
	byObject map[client.Object]cache.ByObject
	// lock is the leader-election lock, whose holderIdentity is
	// ownership.Holder(owner); nil without leader election.
	lock     resourcelock.Interface
	lockName string
	scope    func(journal.Intent) bool
	selector labels.Selector
	locker   upjetv1.CreateLocker
	buckets  *ownership.BucketLeases
	interval time.Duration
	// owns filters reconciles to the buckets this replica holds.
	owns func(namespace, name string) bool
	// recoveryAfter holds the first recovery pass until the replica holds
	// its buckets.
	recoveryAfter <-chan struct{}
}

// newScaleOut builds the owner of this boot and, from the scale-out
// flags, its ownership predicate, recovery scope, leader-election lock,
// bucket Leases and create locker. The same predicate filters the cache
// (label shard) or the create path (hash buckets) and scopes recovery.
func newScaleOut(cfg *rest.Config, o options, zl *zap.Logger) (*scaleOut, error) {
	s := o.scale
	replica := o.replica
	if replica == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("cannot name the replica: %w", err)
		}
		replica = h
	}
	shard := o.shard
	if shard == "" {
		shard = s.shardName
	}
	so := &scaleOut{owner: journal.Owner{Replica: replica, Shard: shard, Epoch: journal.NewEpoch(time.Now())}, interval: s.recoveryInterval}
	if !o.intents() {
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
	leaseNS := o.leaderElectionNamespace
	if s.buckets > 0 {
		leaseNS = s.bucketLeaseNamespace
	}
	// With --create-lease, the scope also reads the create Leases: a
	// create left incomplete with no intent is never resolved while a
	// live process holds its Lease.
	var createLeases *ownership.CreateLeases
	var locks ownership.CreateLocks
	if s.createLease {
		createLeases = &ownership.CreateLeases{
			Client: creates, Namespace: leaseNS, Prefix: "provider-fakecloud", Owner: so.owner,
			LeaseDuration: s.leaseDuration, Logger: zl.Named("create-lease"),
		}
		locks = createLeases
	}
	var ownsMR func(metav1.Object) bool
	switch {
	case s.shardName != "":
		ls := ownership.LabelShard{Label: s.shardLabel, Name: s.shardName}
		so.byObject = ls.ByObject(managedObjects()...)
		so.selector = ls.Selector()
		so.scope = ownership.Scope(ownership.ScopeOptions{
			Self:        so.owner,
			Liveness:    ownership.ShardLiveness(direct, o.leaderElectionNamespace, leaderElectionID),
			CreateLocks: locks,
			Logger:      zl,
		})
		ownsMR = func(mg metav1.Object) bool { return ls.Owns(mg.GetLabels()) }
	case s.buckets > 0:
		hb := ownership.HashBuckets{N: s.buckets, Namespace: s.bucketLeaseNamespace, Prefix: "provider-fakecloud"}
		bl, err := ownership.NewBucketLeases(direct, hb, so.owner, zl)
		if err != nil {
			return nil, err
		}
		bl.LeaseDuration = s.leaseDuration
		so.buckets = bl
		so.scope = ownership.Scope(ownership.ScopeOptions{
			Self:        so.owner,
			Liveness:    ownership.MemberLiveness(direct, hb),
			Owns:        func(r journal.ResourceRef) bool { return bl.Owns(r.Namespace, r.Name) },
			CreateLocks: locks,
			Logger:      zl,
		})
		ownsMR = func(mg metav1.Object) bool { return bl.Owns(mg.GetNamespace(), mg.GetName()) }
		so.owns = bl.Owns
		so.recoveryAfter = bl.Ready()
		if so.interval <= 0 {
			so.interval = s.leaseDuration
		}
		// Every create goes through the bucket check; the create Lease
		// itself only with --create-lease.
		so.locker = upjetv1.CreateLockerFn(func(_ context.Context, mg metav1.Object) (func(), error) {
			if !ownsMR(mg) {
				return nil, fmt.Errorf("%w: %s", ownership.ErrNotOwned, mg.GetName())
			}
			return func() {}, nil
		})
	}
	if createLeases != nil {
		createLeases.Owns = ownsMR
		so.locker = createLeases
	}
	if o.leaderElection {
		so.lockName = s.leaderElectionID
		if so.lockName == "" {
			so.lockName = leaderElectionID
			if s.shardName != "" {
				so.lockName = ownership.ShardLeaseName(leaderElectionID, s.shardName)
			}
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("cannot create the leader-election client: %w", err)
		}
		so.lock, err = resourcelock.New(resourcelock.LeasesResourceLock, o.leaderElectionNamespace, so.lockName,
			cs.CoreV1(), cs.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: ownership.Holder(so.owner)})
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
