package ownership

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"go.uber.org/zap"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/journal"
)

// Bucket returns the bucket of namespace/name among n: FNV-32a of
// "namespace/name" modulo n (a cluster-scoped resource has namespace "").
// n must be positive.
func Bucket(namespace, name string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(namespace + "/" + name))
	return int(h.Sum32() % uint32(n))
}

// HashBuckets splits managed resources into N buckets by Bucket, each
// owned through a Lease in Namespace named "<Prefix>-bucket-<i>".
type HashBuckets struct {
	// N is the number of buckets; it must not change while any replica
	// runs, or two replicas could own one resource.
	N int
	// Namespace holds the bucket and member Leases.
	Namespace string
	// Prefix starts every Lease name (e.g. the provider's name).
	Prefix string
}

// Validate reports a configuration that cannot work.
func (h HashBuckets) Validate() error {
	switch {
	case h.N < 1:
		return fmt.Errorf("ownership: hash buckets need N >= 1, got %d", h.N)
	case h.Namespace == "":
		return errors.New("ownership: hash buckets need a Lease namespace")
	case h.Prefix == "":
		return errors.New("ownership: hash buckets need a Lease name prefix")
	}
	return nil
}

// BucketOf returns the bucket of namespace/name.
func (h HashBuckets) BucketOf(namespace, name string) int { return Bucket(namespace, name, h.N) }

// LeaseName returns the name of bucket b's Lease.
func (h HashBuckets) LeaseName(b int) string { return fmt.Sprintf("%s-bucket-%d", h.Prefix, b) }

// MemberLeaseName returns the name of replica's membership Lease: every
// replica holds one while it runs. The count of live members sets each
// replica's fair share of buckets, and a member Lease held by another
// epoch, or expired, proves that replica's earlier boots dead.
func (h HashBuckets) MemberLeaseName(replica string) string {
	return h.Prefix + "-member-" + replica
}

// BucketLeases acquires, renews and rebalances bucket Leases for one
// replica. It is a manager Runnable that runs on every replica (no leader
// election: the bucket Leases are the election). Each round it renews its
// member Lease and its bucket Leases, releases the buckets assigned to
// another live member, and takes the free or expired buckets assigned to
// it (see round).
// Owns is true only for buckets whose Lease it renewed within the Lease
// duration, so a replica that cannot reach the API server stops owning
// before any peer can take over.
type BucketLeases struct {
	c      client.Client
	hb     HashBuckets
	owner  journal.Owner
	holder string
	log    *zap.Logger
	now    func() time.Time

	// LeaseDuration is how long a Lease protects its holder without
	// renewal (default 15s); RenewInterval is the round period (default
	// LeaseDuration/3).
	LeaseDuration, RenewInterval time.Duration
	// OnAcquire, when set, is called with every bucket newly acquired,
	// e.g. to requeue its resources.
	OnAcquire func(bucket int)

	mu   sync.RWMutex
	held map[int]time.Time // bucket -> time of the last successful renewal

	ready     chan struct{}
	readyOnce sync.Once
}

var (
	_ manager.Runnable               = (*BucketLeases)(nil)
	_ manager.LeaderElectionRunnable = (*BucketLeases)(nil)
)

// NewBucketLeases returns the bucket Leases of owner. A nil logger logs
// nothing.
func NewBucketLeases(c client.Client, hb HashBuckets, owner journal.Owner, l logr.Logger) (*BucketLeases, error) {
	if err := hb.Validate(); err != nil {
		return nil, err
	}
	if owner.Replica == "" || owner.Epoch == "" {
		return nil, errors.New("ownership: bucket leases need an owner with a replica and an epoch")
	}
	log := logging.Zap(l)
	return &BucketLeases{
		c: c, hb: hb, owner: owner, holder: Holder(owner), log: log.Named("buckets"), now: time.Now,
		LeaseDuration: 15 * time.Second, held: map[int]time.Time{}, ready: make(chan struct{}),
	}, nil
}

// NeedLeaderElection returns false: every replica holds its own buckets.
func (b *BucketLeases) NeedLeaderElection() bool { return false }

// BucketOf returns namespace/name's bucket.
func (b *BucketLeases) BucketOf(namespace, name string) int { return b.hb.BucketOf(namespace, name) }

// Owns reports whether this replica owns namespace/name's bucket now.
func (b *BucketLeases) Owns(namespace, name string) bool {
	return b.OwnsBucket(b.hb.BucketOf(namespace, name))
}

// OwnsBucket reports whether this replica holds bucket i's Lease, renewed
// within the Lease duration.
func (b *BucketLeases) OwnsBucket(i int) bool {
	b.mu.RLock()
	t, ok := b.held[i]
	b.mu.RUnlock()
	return ok && b.now().Sub(t) < b.LeaseDuration
}

// Held returns the buckets this replica holds, in order.
func (b *BucketLeases) Held() []int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]int, 0, len(b.held))
	for i := range b.held {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// Start runs rounds until ctx ends, then releases every Lease it holds so
// peers take its buckets at once rather than after expiry.
func (b *BucketLeases) Start(ctx context.Context) error {
	every := b.RenewInterval
	if every <= 0 {
		every = b.LeaseDuration / 3
	}
	t := time.NewTicker(every)
	defer t.Stop()
	// A peer that never lets go of a bucket must not hold this replica's
	// recovery (and so its creates) forever: what Ready promises is then
	// only as good as the buckets held.
	giveUp := time.AfterFunc(3*b.LeaseDuration, func() {
		b.readyOnce.Do(func() {
			b.log.Warn("not every assigned bucket was acquired in time; starting recovery with the buckets held", zap.Ints("held", b.Held()))
			close(b.ready)
		})
	})
	defer giveUp.Stop()
	for {
		b.round(ctx)
		select {
		case <-ctx.Done():
			b.releaseAll()
			return nil
		case <-t.C:
		}
	}
}

// round renews, rebalances and acquires once. The buckets are assigned
// by the sorted names of the live members: bucket i goes to member
// i mod len(members). A replica restarted under its own name (a
// StatefulSet pod) therefore gets the same buckets back, and so finds the
// creates its previous boot left in them. A replica releases the buckets
// assigned to another live member and takes those assigned to it once
// they are free or expired.
func (b *BucketLeases) round(ctx context.Context) {
	ns := b.hb.Namespace
	self := b.hb.MemberLeaseName(b.owner.Replica)
	if err := acquire(ctx, b.c, types.NamespacedName{Namespace: ns, Name: self}, b.holder, b.LeaseDuration, b.now()); err != nil {
		b.log.Warn("cannot renew the member lease", zap.Error(err))
	}
	list := &coordinationv1.LeaseList{}
	listed := true
	if err := b.c.List(ctx, list, client.InNamespace(ns)); err != nil {
		b.log.Warn("cannot list leases; renewing held buckets only", zap.Error(err))
		listed = false
	}
	now := b.now()
	members := []string{b.owner.Replica}
	byName := map[string]*coordinationv1.Lease{}
	prefix := b.hb.Prefix + "-member-"
	for i := range list.Items {
		l := &list.Items[i]
		byName[l.Name] = l
		if r, ok := strings.CutPrefix(l.Name, prefix); ok && l.Name != self && !Expired(l, now) {
			members = append(members, r)
		}
	}
	slices.Sort(members)
	mine := func(i int) bool { return members[i%len(members)] == b.owner.Replica }

	for _, i := range b.Held() {
		key := types.NamespacedName{Namespace: ns, Name: b.hb.LeaseName(i)}
		if listed && !mine(i) {
			b.drop(i)
			if err := release(ctx, b.c, key, b.holder); err != nil {
				b.log.Warn("cannot release a bucket lease; it expires instead", zap.Int("bucket", i), zap.Error(err))
			}
			b.log.Info("bucket released for rebalancing", zap.Int("bucket", i), zap.Int("members", len(members)))
			continue
		}
		if err := acquire(ctx, b.c, key, b.holder, b.LeaseDuration, b.now()); err != nil {
			b.log.Warn("lost a bucket lease", zap.Int("bucket", i), zap.Error(err))
			b.drop(i)
			continue
		}
		b.mark(i)
	}
	if !listed {
		return
	}
	complete := true
	for i := range b.hb.N {
		if !mine(i) || b.OwnsBucket(i) {
			continue
		}
		if l, ok := byName[b.hb.LeaseName(i)]; ok && !Expired(l, now) {
			complete = false // its holder releases it in its next round
			continue
		}
		key := types.NamespacedName{Namespace: ns, Name: b.hb.LeaseName(i)}
		if err := acquire(ctx, b.c, key, b.holder, b.LeaseDuration, b.now()); err != nil {
			if !errors.Is(err, ErrHeld) {
				b.log.Warn("cannot take a bucket lease", zap.Int("bucket", i), zap.Error(err))
			}
			complete = false
			continue
		}
		b.mark(i)
		b.log.Info("bucket acquired", zap.Int("bucket", i), zap.Int("members", len(members)))
		if b.OnAcquire != nil {
			b.OnAcquire(i)
		}
	}
	if complete {
		b.readyOnce.Do(func() { close(b.ready) })
	}
}

// Ready is closed once this replica has held every bucket assigned to it
// at the same time, for the first time: a recovery pass started after it
// sees the creates its previous boot left in those buckets.
func (b *BucketLeases) Ready() <-chan struct{} { return b.ready }

func (b *BucketLeases) mark(i int) {
	b.mu.Lock()
	b.held[i] = b.now()
	b.mu.Unlock()
}

func (b *BucketLeases) drop(i int) {
	b.mu.Lock()
	delete(b.held, i)
	b.mu.Unlock()
}

// releaseAll releases every held bucket and the member Lease, with a short
// deadline of its own: the manager's context has already ended.
func (b *BucketLeases) releaseAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, i := range b.Held() {
		b.drop(i)
		if err := release(ctx, b.c, types.NamespacedName{Namespace: b.hb.Namespace, Name: b.hb.LeaseName(i)}, b.holder); err != nil {
			b.log.Warn("cannot release a bucket lease on shutdown; it expires instead", zap.Int("bucket", i), zap.Error(err))
		}
	}
	if err := release(ctx, b.c, types.NamespacedName{Namespace: b.hb.Namespace, Name: b.hb.MemberLeaseName(b.owner.Replica)}, b.holder); err != nil {
		b.log.Warn("cannot release the member lease on shutdown", zap.Error(err))
	}
}
