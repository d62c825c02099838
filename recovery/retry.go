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

// retry is the resolver's one backoff loop. It calls attempt up to
// 1+Policy.LookupRetries times, waiting first before the second call and
// doubling the wait before each later one, until attempt reports that
// another try cannot help (again false). It returns the last error, or
// ctx.Err() when the context ends during a wait.
func (r *Resolver) retry(ctx context.Context, first time.Duration, attempt func(n int) (again bool, err error)) error {
	backoff := first
	var err error
	for n := 0; n <= r.o.Policy.LookupRetries; n++ {
		if n > 0 {
			if !sleep(ctx, backoff) {
				return ctx.Err()
			}
			backoff *= 2
		}
		var again bool
		if again, err = attempt(n); !again {
			return err
		}
	}
	return err
}

// retryAPI retries an API call on errors that a fresh attempt may cure:
// the server unreachable, overloaded or timing out.
//
// Its waits start at twice Policy.RetryBackoff (2b, 4b, 8b, ...), one step
// later than lookup's (b, 2b, 4b, ...); both are kept as they were when the
// two had loops of their own.
func (r *Resolver) retryAPI(ctx context.Context, call func() error) error {
	return r.retry(ctx, 2*r.o.Policy.RetryBackoff, func(int) (bool, error) {
		err := call()
		return err != nil && transient(err), err
	})
}

func transient(err error) bool {
	var ne net.Error
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || errors.As(err, &ne) ||
		strings.Contains(err.Error(), "connection refused")
}
