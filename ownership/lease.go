package ownership

import (
	"context"
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrHeld means a Lease is held, unexpired, by another holder.
var ErrHeld = errors.New("ownership: lease held by a live holder")

// Expired reports whether l no longer protects its holder at now: it has
// no holder, was never renewed, or its last renewal plus its duration has
// passed. Like client-go's leader election it trusts the holder's clock
// for renewTime, so clocks must be roughly in step.
func Expired(l *coordinationv1.Lease, now time.Time) bool {
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || l.Spec.RenewTime == nil {
		return true
	}
	d := time.Duration(0)
	if l.Spec.LeaseDurationSeconds != nil {
		d = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	return !now.Before(l.Spec.RenewTime.Add(d))
}

// holderOf returns l's holderIdentity, or "".
func holderOf(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// acquire takes or renews the Lease key for holder: it creates it when
// missing, renews it when holder already holds it, and takes it over when
// it has expired. Every write is conditional on the resourceVersion read,
// so of two processes racing for an expired Lease exactly one wins. It
// returns ErrHeld (wrapped, naming the holder) when another live holder
// has it.
func acquire(ctx context.Context, c client.Client, key types.NamespacedName, holder string, d time.Duration, now time.Time) error {
	secs := int32(d / time.Second)
	if secs < 1 {
		secs = 1
	}
	mt := metav1.NewMicroTime(now)
	l := &coordinationv1.Lease{}
	err := c.Get(ctx, key, l)
	if apierrors.IsNotFound(err) {
		l = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &mt, RenewTime: &mt,
			},
		}
		if err := c.Create(ctx, l); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("%w: lease %s was created by another holder just now", ErrHeld, key)
			}
			return fmt.Errorf("cannot create lease %s: %w", key, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot get lease %s: %w", key, err)
	}
	cur := holderOf(l)
	switch {
	case cur == holder:
	case Expired(l, now):
		l.Spec.AcquireTime = &mt
		n := int32(1)
		if l.Spec.LeaseTransitions != nil {
			n = *l.Spec.LeaseTransitions + 1
		}
		l.Spec.LeaseTransitions = &n
	default:
		return fmt.Errorf("%w: lease %s is held by %s", ErrHeld, key, cur)
	}
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime = &holder, &secs, &mt
	if err := c.Update(ctx, l); err != nil {
		if apierrors.IsConflict(err) {
			return fmt.Errorf("%w: lease %s changed while it was being taken", ErrHeld, key)
		}
		return fmt.Errorf("cannot update lease %s: %w", key, err)
	}
	return nil
}

// release deletes the Lease key if holder still holds it, conditional on
// the resourceVersion read, so it never deletes a Lease another holder has
// taken since. A Lease already gone is not an error.
func release(ctx context.Context, c client.Client, key types.NamespacedName, holder string) error {
	l := &coordinationv1.Lease{}
	if err := c.Get(ctx, key, l); err != nil {
		return client.IgnoreNotFound(err)
	}
	if holderOf(l) != holder {
		return nil
	}
	rv := l.ResourceVersion
	err := c.Delete(ctx, l, client.Preconditions{ResourceVersion: &rv})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("cannot release lease %s: %w", key, err)
	}
	return nil
}
