package gcp

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	type got struct {
		D  time.Duration
		OK bool
	}
	cases := map[string]struct {
		v    string
		want got
	}{
		"Seconds":    {v: "7", want: got{7 * time.Second, true}},
		"Spaces":     {v: " 2 ", want: got{2 * time.Second, true}},
		"Zero":       {v: "0", want: got{0, true}},
		"Capped":     {v: "999999999999", want: got{24 * time.Hour, true}},
		"Date":       {v: "Fri, 20 Nov 2026 10:00:30 GMT", want: got{30 * time.Second, true}},
		"PastDate":   {v: "Fri, 20 Nov 2026 09:00:00 GMT", want: got{0, true}},
		"Empty":      {v: "", want: got{0, false}},
		"Negative":   {v: "-3", want: got{0, false}},
		"Fraction":   {v: "1.5", want: got{0, false}},
		"Malformed":  {v: "soon", want: got{0, false}},
		"Overflowed": {v: "99999999999999999999", want: got{0, false}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, ok := parseRetryAfter(tc.v, now)
			if diff := cmp.Diff(tc.want, got{d, ok}); diff != "" {
				t.Errorf("parseRetryAfter(%q) (-want +got):\n%s", tc.v, diff)
			}
		})
	}
}

// httpErr is the error gax hands a retryer for an HTTP answer.
func httpErr(code int, header http.Header) error {
	ae, ok := apierror.FromError(&googleapi.Error{Code: code, Message: http.StatusText(code), Header: header})
	if !ok {
		panic("apierror.FromError refused a googleapi.Error")
	}
	return ae
}

// retryInfoErr is a 429 whose JSON body carries a RetryInfo detail of
// delay, as Google's REST error format allows.
func retryInfoErr(delay string) error {
	body := `{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}}`
	ae, ok := apierror.FromError(&googleapi.Error{Code: 429, Message: "slow down", Body: body})
	if !ok {
		panic("apierror.FromError refused a googleapi.Error")
	}
	return ae
}

func TestRetryer(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC) }
	cases := map[string]struct {
		reason   string
		attempts int
		budget   time.Duration
		errs     []error
		want     []bool // whether each error is retried
		maxSlept time.Duration
		// wantFirst, where not zero, is the first wait.
		wantFirst time.Duration
	}{
		"Attempts": {
			reason:   "Five attempts retry four 429s and give up at the fifth.",
			attempts: 5, budget: 10 * time.Second,
			errs:     []error{httpErr(429, nil), httpErr(429, nil), httpErr(429, nil), httpErr(429, nil), httpErr(429, nil)},
			want:     []bool{true, true, true, true, false},
			maxSlept: 10 * time.Second,
		},
		"Unavailable": {
			reason:   "A 503 is retried.",
			attempts: 3, budget: time.Second,
			errs: []error{httpErr(503, nil)},
			want: []bool{true},
		},
		"NotRetried": {
			reason:   "Denied, not found, a bad request and a server error are not retried.",
			attempts: 5, budget: time.Second,
			errs: []error{httpErr(403, nil), httpErr(404, nil), httpErr(400, nil), httpErr(500, nil)},
			want: []bool{false, false, false, false},
		},
		"RetryInfo": {
			reason:   "A RetryInfo detail in the JSON error body is the wait the service asks for.",
			attempts: 3, budget: 10 * time.Second,
			errs:      []error{retryInfoErr("2s")},
			want:      []bool{true},
			wantFirst: 2 * time.Second,
		},
		"NotAnAPIError": {
			reason:   "An error that carries no status is not retried.",
			attempts: 5, budget: time.Second,
			errs: []error{errors.New("connection reset")},
			want: []bool{false},
		},
		"RetryAfterWithinBudget": {
			reason:   "A Retry-After within the budget is waited out exactly.",
			attempts: 5, budget: 10 * time.Second,
			errs:     []error{httpErr(429, http.Header{"Retry-After": {"3"}}), httpErr(429, http.Header{"Retry-After": {"3"}}), httpErr(429, http.Header{"Retry-After": {"3"}}), httpErr(429, http.Header{"Retry-After": {"3"}})},
			want:     []bool{true, true, true, false},
			maxSlept: 9 * time.Second,
		},
		"NoBudget": {
			reason:   "A budget of zero never retries.",
			attempts: 5, budget: 0,
			errs: []error{httpErr(429, nil)},
			want: []bool{false},
		},
		"OneAttempt": {
			reason:   "One attempt never retries.",
			attempts: 1, budget: time.Second,
			errs: []error{httpErr(429, nil)},
			want: []bool{false},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := newRetryer(tc.attempts, tc.budget, now)
			var got []bool
			for i, err := range tc.errs {
				d, ok := r.Retry(err)
				if d < 0 {
					t.Errorf("%s\nRetry(%v) waits %v", tc.reason, err, d)
				}
				if i == 0 && tc.wantFirst != 0 && d != tc.wantFirst {
					t.Errorf("%s\nRetry(%v) waits %v, want %v", tc.reason, err, d, tc.wantFirst)
				}
				got = append(got, ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nretried (-want +got):\n%s", tc.reason, diff)
			}
			if r.slept > tc.budget || tc.maxSlept != 0 && r.slept > tc.maxSlept {
				t.Errorf("%s\nslept %v in all, more than the budget %v", tc.reason, r.slept, tc.budget)
			}
		})
	}
}

// FuzzParseRetryAfter: any header value decodes to a wait of zero to a
// day, or to none, without a panic.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "", "-1", "Fri, 20 Nov 2026 10:00:30 GMT", "1e9", "99999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseRetryAfter(v, now)
		if !ok && d != 0 || d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", v, d, ok)
		}
		if ok && d > 24*time.Hour && !isDate(v) {
			t.Fatalf("parseRetryAfter(%q) = %v: more than a day of seconds", v, d)
		}
	})
}

// isDate reports whether v parses as an HTTP date, which may lie any time
// ahead.
func isDate(v string) bool {
	_, err := http.ParseTime(v)
	return err == nil
}
