package demo

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTransient(t *testing.T) {
	gr := schema.GroupResource{Group: "fakecloud.intentjournal.io", Resource: "recordsets"}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	cases := map[string]struct {
		reason string
		ctx    context.Context
		err    error
		want   bool
	}{
		"OwnDeadline":   {reason: "The call's own deadline passed while the run goes on: try again.", ctx: context.Background(), err: fmt.Errorf("list: %w", context.DeadlineExceeded), want: true},
		"ServerTimeout": {reason: "The API server gave up on the request.", ctx: context.Background(), err: apierrors.NewServerTimeout(gr, "list", 1), want: true},
		"Throttled":     {reason: "429: the API server sheds load.", ctx: context.Background(), err: apierrors.NewTooManyRequests("slow down", 1), want: true},
		"Unavailable":   {reason: "503.", ctx: context.Background(), err: apierrors.NewServiceUnavailable("etcd"), want: true},
		"Internal":      {reason: "500.", ctx: context.Background(), err: apierrors.NewInternalError(errors.New("etcd leader changed")), want: true},
		"Forbidden":     {reason: "A refusal stays a refusal.", ctx: context.Background(), err: apierrors.NewForbidden(gr, "", errors.New("no")), want: false},
		"NotFound":      {reason: "The kind is not served: no retry fixes that.", ctx: context.Background(), err: apierrors.NewNotFound(gr, ""), want: false},
		"RunEnded":      {reason: "The run itself was cancelled (Ctrl-C): stop.", ctx: ended, err: context.DeadlineExceeded, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, transient(tc.ctx, tc.err)); diff != "" {
				t.Errorf("%s\ntransient(%v): -want, +got:\n%s", tc.reason, tc.err, diff)
			}
		})
	}
}

func TestRetryTransient(t *testing.T) {
	cases := map[string]struct {
		reason    string
		errs      []error // returned by successive calls; nil after the last
		wantCalls int
		wantErr   bool
	}{
		"Succeeds":        {reason: "One call, no retry.", wantCalls: 1},
		"RecoversOnce":    {reason: "A timeout, then an answer.", errs: []error{context.DeadlineExceeded}, wantCalls: 2},
		"GivesUp":         {reason: "Still timing out after listAttempts calls: the error is the caller's.", errs: []error{context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded}, wantCalls: listAttempts, wantErr: true},
		"PermanentAtOnce": {reason: "A permanent error is returned at once.", errs: []error{apierrors.NewBadRequest("no")}, wantCalls: 1, wantErr: true},
	}
	defer func(w time.Duration) { firstRetryWait = w }(firstRetryWait)
	firstRetryWait = time.Millisecond
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			calls := 0
			err := retryTransient(context.Background(), zap.NewNop(), func(context.Context) error {
				calls++
				if calls <= len(tc.errs) {
					return tc.errs[calls-1]
				}
				return nil
			})
			if calls != tc.wantCalls || (err != nil) != tc.wantErr {
				t.Errorf("%s\ncalls %d, err %v; want %d calls, error %t", tc.reason, calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}
