package testbed

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

func TestUnsettled(t *testing.T) {
	settled := providercmd.QueueState{Controller: "rs", Name: "a", Immediate: 1, Seq: 4}
	cases := map[string]struct {
		reason string
		states []providercmd.QueueState
		want   []string
	}{
		"Settled": {
			reason: "A resource whose callback asked for its reconcile, with nothing running or waiting, has settled.",
			states: []providercmd.QueueState{settled},
		},
		"Unseen": {
			reason: "A resource no queue has seen has not settled.",
			want:   []string{"a: no request for it has reached a work queue"},
		},
		"NoCallback": {
			reason: "Until its async create's callback asks for a reconcile, the create may still write.",
			states: []providercmd.QueueState{{Controller: "rs", Name: "a", Seq: 4}},
			want:   []string{"a: its async create's callback has not asked for a reconcile"},
		},
		"Running": {
			reason: "A running reconcile may still write.",
			states: []providercmd.QueueState{{Controller: "rs", Name: "a", Immediate: 1, InFlight: 1}},
			want:   []string{"a: 1 reconciles running"},
		},
		"Outstanding": {
			reason: "A request waiting in the queue, however far off, is a reconcile to come.",
			states: []providercmd.QueueState{{Controller: "rs", Name: "a", Immediate: 1, Outstanding: true}},
			want:   []string{"a: a request waits in its work queue"},
		},
		"AnyController": {
			reason: "A name is looked up in every controller's queue: work in any one is work left.",
			states: []providercmd.QueueState{settled, {Controller: "net", Name: "a", Outstanding: true}},
			want:   []string{"a: a request waits in its work queue"},
		},
		"OthersIgnored": {
			reason: "Resources not asked about do not count.",
			states: []providercmd.QueueState{settled, {Controller: "rs", Name: "b", InFlight: 1}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, _ := unsettled(tc.states, []string{"a"})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestUnsettledSeqs checks that the record numbers WaitSettled compares
// change when any of a name's objects has a new record.
func TestUnsettledSeqs(t *testing.T) {
	before := []providercmd.QueueState{{Controller: "rs", Name: "a", Seq: 4}, {Controller: "net", Name: "a", Seq: 9}}
	after := []providercmd.QueueState{{Controller: "rs", Name: "a", Seq: 11}, {Controller: "net", Name: "a", Seq: 9}}
	_, b := unsettled(before, []string{"a"})
	_, a := unsettled(after, []string{"a"})
	if cmp.Equal(b, a) {
		t.Errorf("a new record of one of a name's objects must change its numbers: %v before, %v after", b, a)
	}
}
