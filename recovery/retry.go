package recovery

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryAPI retries an API call on errors that a fresh attempt may cure:
// the server unreachable, overloaded or timing out.
func (r *Resolver) retryAPI(ctx context.Context, call func() error) error {
	backoff := r.o.Policy.RetryBackoff
	var err error
	for attempt := 0; attempt <= r.o.Policy.LookupRetries; attempt++ {
		if attempt > 0 && !sleep(ctx, backoff) {
			return ctx.Err()
		}
		backoff *= 2
		if err = call(); err == nil || !transient(err) {
			return err
		}
	}
	return err
}

func transient(err error) bool {
	var ne net.Error
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || errors.As(err, &ne) ||
		strings.Contains(err.Error(), "connection refused")
}
