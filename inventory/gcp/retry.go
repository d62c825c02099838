package gcp

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/googleapis/gax-go/v2"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// retryer is the gax.Retryer of one page of a search. It retries an
// error whose code is ResourceExhausted or Unavailable (over REST the
// SDK maps HTTP 429 and 503 to them) at most attempts-1 times, and waits
// at most maxBackoff in total between the tries. It waits what the
// service asks, where it asks (a RetryInfo detail, or a Retry-After
// header over REST), and otherwise a jittered exponential backoff whose
// steps add up to maxBackoff at most. When the service asks for a wait
// longer than what is left of maxBackoff, it gives up at once: an early
// retry would only be throttled again. gax creates one retryer per page
// request, so the bound is per page.
type retryer struct {
	attempts int
	budget   time.Duration
	now      func() time.Time

	tried int
	slept time.Duration
	bo    gax.Backoff
}

// newRetryer returns a retryer for attempts tries and a total wait of
// budget. Its backoff starts at the step that lets every try happen
// within budget: budget/(2^(attempts-1)-1), doubling each time.
func newRetryer(attempts int, budget time.Duration, now func() time.Time) *retryer {
	sum := time.Duration(0)
	for i, step := 0, time.Duration(1); i < attempts-1 && i < 30; i, step = i+1, step*2 {
		sum += step
	}
	initial := time.Duration(1)
	if sum > 0 {
		initial = max(budget/sum, 1)
	}
	return &retryer{
		attempts: attempts,
		budget:   budget,
		now:      now,
		bo:       gax.Backoff{Initial: initial, Max: max(budget, 1), Multiplier: 2},
	}
}

// Retry implements gax.Retryer.
func (r *retryer) Retry(err error) (time.Duration, bool) {
	r.tried++
	if r.tried >= r.attempts || !retryable(err) {
		return 0, false
	}
	left := r.budget - r.slept
	d, asked := serverDelay(err, r.now())
	if asked {
		if d > left {
			return 0, false
		}
	} else {
		if left <= 0 {
			return 0, false
		}
		d = min(r.bo.Pause(), left)
	}
	r.slept += d
	return d, true
}

// retryable reports whether err is one a retry may cure: the service is
// throttling (ResourceExhausted, HTTP 429) or unavailable (Unavailable,
// HTTP 503). gax hands the retryer an *apierror.APIError, whose status
// carries the code for gRPC and REST alike.
func retryable(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	return st.Code() == codes.ResourceExhausted || st.Code() == codes.Unavailable
}

// serverDelay returns the wait the service asked for with err, and
// whether it asked: a RetryInfo detail (gRPC, or the JSON error body over
// REST), else a Retry-After header over REST (seconds, or an HTTP date
// relative to now).
func serverDelay(err error, now time.Time) (time.Duration, bool) {
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		if ri := ae.Details().RetryInfo; ri != nil && ri.GetRetryDelay() != nil {
			return max(ri.GetRetryDelay().AsDuration(), 0), true
		}
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Header != nil {
		return parseRetryAfter(ge.Header.Get("Retry-After"), now)
	}
	return 0, false
}

// parseRetryAfter decodes an HTTP Retry-After value (RFC 9110, 10.2.3):
// a number of seconds or an HTTP date. It returns false for an empty or
// malformed value; a date in the past is a wait of zero.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		if s > int64(24*time.Hour/time.Second) {
			s = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// callOptions returns the gax call options of one search: the bounded
// retry, and a timeout on each page (with its retries) where ctx has no
// deadline of its own.
func (l *Lister) callOptions() []gax.CallOption {
	return []gax.CallOption{
		gax.WithTimeout(pageTimeout(l.maxBackoff)),
		gax.WithRetry(func() gax.Retryer { return newRetryer(l.attempts, l.maxBackoff, l.now) }),
	}
}

// pageTimeout is how long one page may take, its retries and waits
// included, where the caller's context sets no deadline: the 30 s the SDK
// gives SearchAllResources over gRPC, plus the retry budget.
func pageTimeout(budget time.Duration) time.Duration {
	return 30*time.Second + budget
}
