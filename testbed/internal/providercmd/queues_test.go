package providercmd

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// op is one thing a tracked queue reports, at a clock offset.
type op struct {
	at   time.Duration
	what string // added, after, ratelimited, out, done
	d    time.Duration
}

func TestQueueTracker(t *testing.T) {
	const poll = 10 * time.Minute
	type want struct {
		inFlight, immediate int
		outstanding         bool
	}
	cases := map[string]struct {
		reason string
		merges bool
		ops    []op
		want   want
	}{
		"EventServed": {
			reason: "A request is served by the hand-out after it, once the reconcile ends.",
			ops:    []op{{what: "added"}, {what: "out"}, {what: "done"}},
		},
		"Running": {
			reason: "A reconcile that has not ended is work left.",
			ops:    []op{{what: "added"}, {what: "out"}},
			want:   want{inFlight: 1},
		},
		"AddedWhileRunning": {
			reason: "A request added while the object's reconcile runs waits for the next hand-out.",
			ops:    []op{{what: "added"}, {what: "out"}, {what: "added"}, {what: "done"}},
			want:   want{outstanding: true},
		},
		"PollIsNotWork": {
			reason: "The poll the up-to-date reconcile asks for is the provider's next look, not work left.",
			ops:    []op{{what: "added"}, {what: "out"}, {what: "after", d: poll}, {what: "done"}},
		},
		"CallbackRequest": {
			reason: "A request with no delay is upjet's after an async operation succeeded: counted, and outstanding until served.",
			ops:    []op{{what: "after"}},
			want:   want{immediate: 1, outstanding: true},
		},
		"BackoffOutstanding": {
			reason: "A request upjet puts off by its backoff is work left however long the delay.",
			ops:    []op{{what: "after", d: time.Minute}},
			want:   want{outstanding: true},
		},
		"StandardDelayedSurvivesEarlierHandOut": {
			reason: "client-go's queue keeps a delayed request apart: a hand-out before it is due does not serve it.",
			ops:    []op{{what: "after", d: time.Second}, {what: "added"}, {what: "out"}, {what: "done"}},
			want:   want{outstanding: true},
		},
		"StandardDelayedServedWhenDue": {
			reason: "client-go's queue serves a delayed request with the first hand-out once it is due.",
			ops:    []op{{what: "after", d: time.Second}, {at: time.Second, what: "out"}, {at: time.Second, what: "done"}},
		},
		"StandardEarliestDelayKept": {
			reason: "client-go's queue keeps the earliest delayed request of an object; a later one does not put it off.",
			ops:    []op{{what: "after", d: 5 * time.Second}, {what: "after", d: time.Second}, {at: time.Second, what: "out"}, {at: time.Second, what: "done"}},
		},
		"PriorityMergesDelayed": {
			reason: "The priority queue holds one item per object: a hand-out serves a delayed request added before it.",
			merges: true,
			ops:    []op{{what: "after", d: time.Minute}, {what: "added"}, {what: "out"}, {what: "done"}},
		},
		"PriorityRateLimited": {
			reason: "A rate-limited request of the priority queue, whose delay the queue picks, waits for a hand-out.",
			merges: true,
			ops:    []op{{what: "out"}, {what: "ratelimited"}, {what: "done"}},
			want:   want{outstanding: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
			clock := start
			tr := NewQueueTracker(poll)
			tr.now = func() time.Time { return clock }
			q := tr.Queue("c", tc.merges)
			key := types.NamespacedName{Namespace: "ns", Name: "mr"}
			for _, o := range tc.ops {
				clock = start.Add(o.at)
				switch o.what {
				case "added":
					q.Added(key)
				case "after":
					q.AddedAfter(key, o.d)
				case "ratelimited":
					q.AddedRateLimited(key)
				case "out":
					q.HandedOut(key)
				case "done":
					q.Done(key)
				}
			}
			s := tr.Snapshot()
			if len(s) != 1 {
				t.Fatalf("Snapshot(): %d objects, want 1", len(s))
			}
			got := want{inFlight: s[0].InFlight, immediate: s[0].Immediate, outstanding: s[0].Outstanding}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if s[0].Seq != uint64(len(tc.ops)) {
				t.Errorf("Seq: got %d, want %d: every record stamps the object", s[0].Seq, len(tc.ops))
			}
		})
	}
}

// addRecorder is a manager.Manager whose Add records what it is given,
// with what controller.New asks a manager for.
type addRecorder struct {
	manager.Manager
	added []manager.Runnable
}

func (*addRecorder) GetControllerOptions() config.Controller {
	return config.Controller{SkipNameValidation: new(true)}
}

func (*addRecorder) GetLogger() logr.Logger { return logr.Discard() }

func (a *addRecorder) Add(r manager.Runnable) error {
	a.added = append(a.added, r)
	return nil
}

// TestQueueManagerFollowsControllers builds a controller the way a
// provider's Setup does, with controller.New, which Adds it, and
// checks that the queue its NewQueue makes reports to the tracker, and
// that Add passes the controller on.
func TestQueueManagerFollowsControllers(t *testing.T) {
	tr := NewQueueTracker(time.Minute)
	base, held := &addRecorder{}, &addRecorder{}
	m := TrackQueues(base, tr, TrackStandardQueue)
	m.AddThrough(held)
	c, err := controller.New("followed", m, controller.Options{
		Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
	})
	if err != nil {
		t.Fatalf("controller.New(): %v", err)
	}
	if len(held.added) != 1 || len(base.added) != 0 {
		t.Fatalf("Add passed on %d runnables through AddThrough's manager and %d to the base, want 1 and 0", len(held.added), len(base.added))
	}
	q := fieldNewQueue(t, c)("followed", workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: "mr"}})
	want := []QueueState{{Controller: "followed", Name: "mr", Outstanding: true, Seq: 1}}
	if diff := cmp.Diff(want, tr.Snapshot()); diff != "" {
		t.Errorf("the controller's queue must report to the tracker; -want, +got:\n%s", diff)
	}
}

// TestQueueTrackerServe checks the socket serves the snapshot.
func TestQueueTrackerServe(t *testing.T) {
	tr := NewQueueTracker(time.Minute)
	tr.Queue("c", false).AddedAfter(types.NamespacedName{Name: "mr"}, 0)
	path := filepath.Join(t.TempDir(), "q.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatalf("net.Listen(): %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- tr.Serve(ctx, l) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve(): %v", err)
		}
	}()
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}}
	defer c.CloseIdleConnections()
	resp, err := c.Get("http://provider/")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	defer resp.Body.Close()
	var got []QueueState
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("cannot decode the snapshot: %v", err)
	}
	want := []QueueState{{Controller: "c", Name: "mr", Outstanding: true, Immediate: 1, Seq: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

// fieldNewQueue returns c's NewQueue, as the controller calls it when it
// starts.
func fieldNewQueue(t *testing.T, c any) func(string, RateLimiter) WorkQueue {
	t.Helper()
	f := reflect.ValueOf(c).Elem().FieldByName("NewQueue")
	fn, ok := f.Interface().(func(string, RateLimiter) WorkQueue)
	if !ok {
		t.Fatalf("the controller's NewQueue is a %s", f.Type())
	}
	return fn
}
