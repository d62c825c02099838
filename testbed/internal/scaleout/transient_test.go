package scaleout

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTransient(t *testing.T) {
	gr := schema.GroupResource{Group: "fakecloud.m.intentjournal.io", Resource: "networks"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"client timeout", &url.Error{Op: "Get", URL: "https://127.0.0.1/apis", Err: context.DeadlineExceeded}, true},
		{"server timeout", apierrors.NewServerTimeout(gr, "list", 1), true},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), true},
		{"unavailable", apierrors.NewServiceUnavailable("starting"), true},
		{"not found", apierrors.NewNotFound(gr, "x"), false},
		{"forbidden", apierrors.NewForbidden(gr, "x", errors.New("rbac")), false},
		{"other", fmt.Errorf("cannot decode"), false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("%s: transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestRetryTransient(t *testing.T) {
	calls := 0
	err := retryTransient(t, "list", func(context.Context) error {
		calls++
		if calls < 3 {
			return context.DeadlineExceeded
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("retryTransient = %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "leases"}, "x", errors.New("rbac"))
	if err := retryTransient(t, "get", func(context.Context) error { calls++; return forbidden }); !apierrors.IsForbidden(err) || calls != 1 {
		t.Errorf("retryTransient = %v after %d calls, want the Forbidden error after 1", err, calls)
	}
	calls = 0
	if err := retryTransient(t, "get", func(context.Context) error { calls++; return context.DeadlineExceeded }); !errors.Is(err, context.DeadlineExceeded) || calls != transientAttempts {
		t.Errorf("retryTransient = %v after %d calls, want DeadlineExceeded after %d", err, calls, transientAttempts)
	}
}
