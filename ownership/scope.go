package ownership

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"go.uber.org/zap"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/journal"
)

// Liveness tells whether the process that began an intent may still be
// creating.
type Liveness interface {
	// Alive returns false only when owner is provably dead; an error means
	// it cannot tell, which callers treat as alive.
	Alive(ctx context.Context, owner journal.Owner) (bool, error)
}

// LivenessFn adapts a function to a Liveness.
type LivenessFn func(ctx context.Context, owner journal.Owner) (bool, error)

// Alive calls fn.
func (fn LivenessFn) Alive(ctx context.Context, owner journal.Owner) (bool, error) {
	return fn(ctx, owner)
}

var (
	_ Liveness = LivenessFn(nil)
	_ Liveness = LeaseLiveness{}
)

// CreateLocks tells who is creating a managed resource now.
type CreateLocks interface {
	// HeldBy returns the holderIdentity (see Holder) of the live create
	// lock of the resource with uid, or "" when nobody holds it.
	HeldBy(ctx context.Context, uid types.UID) (string, error)
}

// CreateLocksFn adapts a function to a CreateLocks.
type CreateLocksFn func(ctx context.Context, uid types.UID) (string, error)

// HeldBy calls fn.
func (fn CreateLocksFn) HeldBy(ctx context.Context, uid types.UID) (string, error) {
	return fn(ctx, uid)
}

var _ CreateLocks = CreateLocksFn(nil)

// LeaseLiveness proves owners dead through the Lease each owner held
// while alive: its shard's leader-election Lease (label shards) or its
// member Lease (hash buckets). An owner is dead when that Lease is gone,
// has expired, or is held by another epoch (the shard elected a new
// leader, or the replica restarted).
type LeaseLiveness struct {
	// Reader reads Leases; use an uncached reader (the manager's
	// APIReader) so a stale cache never shows a dead owner alive or the
	// reverse.
	Reader client.Reader
	// Namespace holds the Leases.
	Namespace string
	// LeaseName names owner's Lease; "" means owner held none that can
	// be checked, and it is then treated as alive.
	LeaseName func(owner journal.Owner) string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Alive implements Liveness.
func (l LeaseLiveness) Alive(ctx context.Context, owner journal.Owner) (bool, error) {
	name := l.LeaseName(owner)
	if name == "" {
		return true, fmt.Errorf("ownership: no lease names owner %s", owner)
	}
	lease := &coordinationv1.Lease{}
	err := l.Reader.Get(ctx, types.NamespacedName{Namespace: l.Namespace, Name: name}, lease)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("cannot get lease %s/%s of %s: %w", l.Namespace, name, owner, err)
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	if Expired(lease, now()) {
		return false, nil
	}
	_, epoch, ok := ParseHolder(holderOf(lease))
	return !ok || epoch == owner.Epoch, nil
}

// ShardLiveness is the LeaseLiveness of label shards: an owner is alive
// while its shard's leader-election Lease, "<prefix>-shard-<shard>", is
// held by the owner's epoch.
func ShardLiveness(r client.Reader, namespace, prefix string) LeaseLiveness {
	return LeaseLiveness{Reader: r, Namespace: namespace, LeaseName: func(o journal.Owner) string {
		if o.Shard == "" {
			return ""
		}
		return ShardLeaseName(prefix, o.Shard)
	}}
}

// MemberLiveness is the LeaseLiveness of hash buckets: an owner is alive
// while its replica's member Lease is held by the owner's epoch.
func MemberLiveness(r client.Reader, hb HashBuckets) LeaseLiveness {
	return LeaseLiveness{Reader: r, Namespace: hb.Namespace, LeaseName: func(o journal.Owner) string {
		if o.Replica == "" {
			return ""
		}
		return hb.MemberLeaseName(o.Replica)
	}}
}

// ScopeOptions configure Scope.
type ScopeOptions struct {
	// Self is this process's owner.
	Self journal.Owner
	// Liveness proves other owners dead.
	Liveness Liveness
	// Owns, when set, reports whether this process owns the resource now
	// (its hash bucket). Nil means every resource this process sees is
	// its own (a label shard's cache and recovery scan are filtered).
	Owns func(journal.ResourceRef) bool
	// CreateLocks, when set (with --create-lease: CreateLeases), keeps an
	// incomplete create of unknown owner out of scope while its create
	// lock is held by a live process: this one's own epoch, or a peer's.
	// Only a lock left by an earlier boot of this replica is ignored.
	CreateLocks CreateLocks
	// Timeout bounds one liveness check (default 5s).
	Timeout time.Duration
	// CacheFor is how long a liveness answer is reused within a pass
	// (default 1s), so a pass over many intents of one dead owner reads
	// its Lease once.
	CacheFor time.Duration
	// Logger logs each owner found dead or alive at debug level.
	Logger logr.Logger
}

// Scope returns the recovery scope of o.Self, for recovery.Options.Scope
// and upjetv1.Config.Scope. An intent is in scope when:
//
//   - this process began it (same epoch);
//   - its owner is an earlier boot of this replica (a StatefulSet pod name
//     is held by at most one pod at a time);
//   - its owner is unknown (a create left incomplete with no intent
//     annotation), this process owns the resource, and no live process
//     holds its create lock (when CreateLocks is set);
//   - this process owns the resource and Liveness proves the owner dead.
//
// Everything else, a live peer's intent above all, is out of scope. A
// liveness check that fails keeps the intent out of scope: a later pass
// retries it.
func Scope(o ScopeOptions) func(journal.Intent) bool {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ttl := o.CacheFor
	if ttl <= 0 {
		ttl = time.Second
	}
	log := logging.Zap(o.Logger)
	type answer struct {
		alive bool
		at    time.Time
	}
	var mu sync.Mutex
	cache := map[journal.Owner]answer{}
	alive := func(owner journal.Owner) bool {
		mu.Lock()
		a, ok := cache[owner]
		mu.Unlock()
		if ok && time.Since(a.at) < ttl {
			return a.alive
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		live, err := o.Liveness.Alive(ctx, owner)
		if err != nil {
			log.Info("cannot prove an intent's owner dead; leaving its intents alone", zap.Stringer("owner", owner), zap.Error(err))
			return true
		}
		mu.Lock()
		cache[owner] = answer{alive: live, at: time.Now()}
		mu.Unlock()
		log.Debug("owner liveness", zap.Stringer("owner", owner), zap.Bool("alive", live))
		return live
	}
	// locked reports whether a live process may be creating r now: its
	// create lock is held by anyone but an earlier boot of this replica,
	// or cannot be read.
	locked := func(r journal.ResourceRef) bool {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		holder, err := o.CreateLocks.HeldBy(ctx, types.UID(r.UID))
		if err != nil {
			log.Info("cannot tell whether a create is running; leaving it alone", zap.String("resource", r.String()), zap.Error(err))
			return true
		}
		if holder == "" {
			return false
		}
		replica, epoch, ok := ParseHolder(holder)
		return !ok || replica != o.Self.Replica || epoch == o.Self.Epoch
	}
	return func(in journal.Intent) bool {
		self := o.Self
		switch {
		case in.Owner.Epoch != "" && in.Owner.Epoch == self.Epoch:
			return true
		case in.Owner.Replica != "" && in.Owner.Replica == self.Replica:
			return true
		case o.Owns != nil && !o.Owns(in.Resource):
			return false
		case in.Owner.Epoch == "":
			return o.CreateLocks == nil || !locked(in.Resource)
		case o.Liveness == nil:
			return false
		}
		return !alive(in.Owner)
	}
}
