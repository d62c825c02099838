package adapter

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/recovery"
)

// TestExternalCreateIncomplete: a create is incomplete while its pending
// mark is the newest of crossplane-runtime's three (each line's tests hold
// this to its crossplane-runtime's meta.ExternalCreateIncomplete).
func TestExternalCreateIncomplete(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	mark := func(key string, d time.Duration) map[string]string {
		return map[string]string{key: at.Add(d).Format(time.RFC3339)}
	}
	join := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	pending, succeeded, failed := recovery.AnnotationExternalCreatePending, recovery.AnnotationExternalCreateSucceed, recovery.AnnotationExternalCreateFailed
	cases := map[string]struct {
		reason string
		ann    map[string]string
		want   bool
	}{
		"None":               {reason: "a create that never started is not incomplete", want: false},
		"Pending":            {reason: "pending alone is incomplete", ann: mark(pending, 0), want: true},
		"Succeeded":          {reason: "a success after the pending mark completes it", ann: join(mark(pending, 0), mark(succeeded, time.Second)), want: false},
		"Failed":             {reason: "so does a failure", ann: join(mark(pending, 0), mark(failed, time.Second)), want: false},
		"PendingAgain":       {reason: "a new pending mark after a failure is incomplete again", ann: join(mark(failed, 0), mark(pending, time.Second)), want: true},
		"SameSecond":         {reason: "a failure in the pending mark's second completes it", ann: join(mark(pending, 0), mark(failed, 0)), want: false},
		"UnreadablePending":  {reason: "a pending mark that is no time is unset", ann: map[string]string{pending: "yesterday"}, want: false},
		"UnreadableFailed":   {reason: "a failed mark that is no time is unset", ann: join(mark(pending, 0), map[string]string{failed: "later"}), want: true},
		"SucceededThenStale": {reason: "a success older than a later failure: the failure is the newest", ann: join(mark(succeeded, 0), mark(pending, time.Second), mark(failed, 2*time.Second)), want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			u.SetAnnotations(tc.ann)
			if got := ExternalCreateIncomplete(u); got != tc.want {
				t.Errorf("%s\nExternalCreateIncomplete(%v) = %t, want %t", tc.reason, tc.ann, got, tc.want)
			}
		})
	}
}

func TestObserveOnly(t *testing.T) {
	type action string
	cases := map[string]struct {
		in   []action
		want bool
	}{
		"Observe":        {[]action{"Observe"}, true},
		"ObserveTwice":   {[]action{"Observe", "Observe"}, true},
		"None":           {nil, false},
		"All":            {[]action{"*"}, false},
		"ObserveAndMore": {[]action{"Observe", "Create"}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ObserveOnly(tc.in); got != tc.want {
				t.Errorf("ObserveOnly(%v) = %t, want %t", tc.in, got, tc.want)
			}
		})
	}
}
