package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

// TestTrackPriorityQueue checks that the tracked priority queue stays one,
// and tells the tracker how each item was added.
func TestTrackPriorityQueue(t *testing.T) {
	const poll = time.Hour
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: "mr"}}
	cases := map[string]struct {
		reason string
		add    func(priorityqueue.PriorityQueue[reconcile.Request])
		want   providercmd.QueueState
	}{
		"Event": {
			reason: "An event handler's add with a priority is a request due now.",
			add: func(q priorityqueue.PriorityQueue[reconcile.Request]) {
				q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(-100)}, req)
			},
			want: providercmd.QueueState{Outstanding: true},
		},
		"Poll": {
			reason: "controller-runtime's RequeueAfter of the poll is not outstanding.",
			add: func(q priorityqueue.PriorityQueue[reconcile.Request]) {
				q.AddWithOpts(priorityqueue.AddOpts{After: poll}, req)
			},
		},
		"RateLimited": {
			reason: "A rate-limited retry is outstanding.",
			add: func(q priorityqueue.PriorityQueue[reconcile.Request]) {
				q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, req)
			},
			want: providercmd.QueueState{Outstanding: true},
		},
		"Callback": {
			reason: "upjet's request after an async create succeeded is AddAfter with no delay.",
			add:    func(q priorityqueue.PriorityQueue[reconcile.Request]) { q.AddAfter(req, 0) },
			want:   providercmd.QueueState{Outstanding: true, Immediate: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tr := providercmd.NewQueueTracker(poll)
			inner := priorityqueue.New[reconcile.Request]("c")
			q, ok := trackPriorityQueue(tr, "c", nil, inner).(priorityqueue.PriorityQueue[reconcile.Request])
			if !ok {
				t.Fatal("the tracked queue must stay a priority queue")
			}
			defer q.ShutDown()
			tc.add(q)
			want := tc.want
			want.Controller, want.Name, want.Seq = "c", "mr", 1
			if diff := cmp.Diff([]providercmd.QueueState{want}, tr.Snapshot()); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
