package ownership

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"

	"go.uber.org/zap"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/journal"
)

// CreateLeases is a create lock (an upjetv1 or upjetv2 CreateLocker) holding a Lease per managed
// resource, "<Prefix>-create-<uid>", from before its create intent is
// begun until the create has ended, renewed every third of its duration
// meanwhile. Two replicas that both believe they own a resource (during a
// relabel or a bucket rebalance) therefore never create it at once: the
// second is refused until the first's create settles, then observes what
// it made. A holder that dies keeps the resource locked until the Lease
// expires.
type CreateLeases struct {
	// Client reads and writes Leases (uncached reads: use a client built
	// for it, not the manager's cached client).
	Client client.Client
	// Namespace holds the Leases.
	Namespace string
	// Prefix starts every Lease name.
	Prefix string
	// Owner is this process.
	Owner journal.Owner
	// LeaseDuration defaults to 30s.
	LeaseDuration time.Duration
	// Owns, when set, refuses a create of a resource this process does
	// not own now (its bucket is held by another replica).
	Owns func(mg metav1.Object) bool
	// Logger logs failed renewals and releases.
	Logger logr.Logger
	// Clock reads the time and ticks the renewals (default the real
	// clock); tests step a fake one instead of waiting out a Lease.
	Clock clock.WithTicker
}

var _ CreateLocks = (*CreateLeases)(nil)

// clock returns c.Clock, or the real clock.
func (c *CreateLeases) clock() clock.WithTicker {
	if c.Clock == nil {
		return clock.RealClock{}
	}
	return c.Clock
}

// HeldBy implements CreateLocks: the holderIdentity of uid's create Lease,
// or "" when there is none or it has expired.
func (c *CreateLeases) HeldBy(ctx context.Context, uid types.UID) (string, error) {
	l := &coordinationv1.Lease{}
	key := types.NamespacedName{Namespace: c.Namespace, Name: c.LeaseName(uid)}
	if err := c.Client.Get(ctx, key, l); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("cannot get create lease %s: %w", key, err)
	}
	if Expired(l, c.clock().Now()) {
		return "", nil
	}
	return holderOf(l), nil
}

// ErrNotOwned means the resource belongs to another replica now.
var ErrNotOwned = errors.New("ownership: the resource belongs to another replica")

// LeaseName returns the create Lease name of the resource with uid.
func (c *CreateLeases) LeaseName(uid types.UID) string { return c.Prefix + "-create-" + string(uid) }

// LockCreate returns once this process holds mg's create Lease; unlock
// releases it. It implements the adapters' CreateLocker.
func (c *CreateLeases) LockCreate(ctx context.Context, mg metav1.Object) (func(), error) {
	if c.Owns != nil && !c.Owns(mg) {
		return nil, fmt.Errorf("%w: %s", ErrNotOwned, mg.GetName())
	}
	d := c.LeaseDuration
	if d <= 0 {
		d = 30 * time.Second
	}
	log := logging.Zap(c.Logger)
	key := types.NamespacedName{Namespace: c.Namespace, Name: c.LeaseName(mg.GetUID())}
	holder := Holder(c.Owner)
	clk := c.clock()
	if err := acquire(ctx, c.Client, key, holder, d, clk.Now()); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := clk.NewTicker(d / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C():
				rctx, cancel := context.WithTimeout(context.Background(), d/3)
				err := acquire(rctx, c.Client, key, holder, d, clk.Now())
				cancel()
				if err != nil {
					log.Warn("cannot renew a create lease", zap.String("lease", key.String()), zap.Error(err))
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := release(rctx, c.Client, key, holder); err != nil {
			log.Warn("cannot release a create lease; it expires instead", zap.String("lease", key.String()), zap.Error(err))
		}
	}, nil
}

// AnnotationCreateRefused is written, with crossplane's failed-create mark,
// on a managed resource whose create a replica refused because another
// replica owns it (see the adapters' Create). Its value is the time of the
// refusal (RFC 3339, nanoseconds). crossplane-runtime's event filter
// (resource.DesiredStateChanged) ignores a change of the create marks
// alone; this annotation is one it passes, so the owner, which may have
// seen the refuser's pending mark and stopped ("cannot determine creation
// result", with no requeue), reconciles again at once.
const AnnotationCreateRefused = "intentjournal.io/create-refused"
