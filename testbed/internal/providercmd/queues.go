package providercmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// QueueTracker follows what the work queue of each controller of the
// provider holds for every object, so that a test can tell when the
// provider has nothing left to do for the managed resources whose API
// writes it counts (--queue-socket; the test bed's WaitSettled).
//
// A request for an object is outstanding from the moment it is added to
// the queue until the queue hands the object out to a reconcile that
// serves it, and that reconcile has ended. controller-runtime's priority
// queue (the v2 line's) holds one item per object: a hand-out serves every
// request added before it, delayed or not. client-go's rate-limiting queue
// (the v1 line's) keeps a delayed request apart, the earliest one per
// object, until it is due: a hand-out serves it only once it is due. The
// poll, the delay every reconcile that found the resource up to date asks
// for, is not outstanding: it is the provider's next look, not the
// create's.
//
// The queue hands an object out under its own lock, which the tracker
// cannot take: a request added in the moment between the hand-out and the
// tracker's record of it is taken as served, although the queue holds it
// for after the reconcile; the object then goes out again as soon as that
// reconcile ends. WaitSettled rules the moment out by asking twice, with
// nothing recorded for the object in between.
type QueueTracker struct {
	poll time.Duration
	now  func() time.Time

	mu   sync.Mutex
	seq  uint64
	objs map[queueObject]*queueState
}

// queueObject is an object in one controller's queue.
type queueObject struct {
	controller string
	key        types.NamespacedName
}

// queueState is what the tracker knows of a queueObject.
type queueState struct {
	inFlight  int
	pending   bool      // a request the next hand-out serves
	due       time.Time // a delayed request held apart until due; zero for none
	immediate int       // requests added with AddAfter and no delay
	seq       uint64    // the last record
}

// NewQueueTracker returns a QueueTracker for a provider whose managed
// reconcilers poll every poll.
func NewQueueTracker(poll time.Duration) *QueueTracker {
	return &QueueTracker{poll: poll, now: time.Now, objs: map[queueObject]*queueState{}}
}

// TrackedQueue is what a wrapped work queue reports to its QueueTracker.
// merges says the queue holds one item per object (controller-runtime's
// priority queue), so that a hand-out serves delayed requests too.
type TrackedQueue struct {
	t          *QueueTracker
	controller string
	merges     bool
}

// Queue returns the TrackedQueue of controller's work queue.
func (t *QueueTracker) Queue(controller string, merges bool) *TrackedQueue {
	return &TrackedQueue{t: t, controller: controller, merges: merges}
}

// record runs f on key's state under the lock, and stamps it.
func (q *TrackedQueue) record(key types.NamespacedName, f func(s *queueState, now time.Time)) {
	t := q.t
	t.mu.Lock()
	defer t.mu.Unlock()
	o := queueObject{controller: q.controller, key: key}
	s := t.objs[o]
	if s == nil {
		s = &queueState{}
		t.objs[o] = s
	}
	f(s, t.now())
	t.seq++
	s.seq = t.seq
}

// Added records a request for key that is due now.
func (q *TrackedQueue) Added(key types.NamespacedName) {
	q.record(key, func(s *queueState, _ time.Time) { s.pending = true })
}

// AddedAfter records a request for key due after d: no delay is the
// request of upjet's event handler after an async operation succeeded (no
// other caller adds that way); the poll is not outstanding.
func (q *TrackedQueue) AddedAfter(key types.NamespacedName, d time.Duration) {
	q.record(key, func(s *queueState, now time.Time) {
		switch {
		case d <= 0:
			s.pending = true
			s.immediate++
		case d == q.t.poll:
		case q.merges:
			s.pending = true
		default:
			if due := now.Add(d); s.due.IsZero() || due.Before(s.due) {
				s.due = due
			}
		}
	})
}

// AddedRateLimited records a request for key whose delay a queue that
// merges picks under its own lock. A queue that does not merge is told
// the delay (AddedAfter).
func (q *TrackedQueue) AddedRateLimited(key types.NamespacedName) {
	q.record(key, func(s *queueState, _ time.Time) { s.pending = true })
}

// HandedOut records that the queue handed key out to a reconcile.
func (q *TrackedQueue) HandedOut(key types.NamespacedName) {
	q.record(key, func(s *queueState, now time.Time) {
		s.inFlight++
		s.pending = false
		if q.merges || (!s.due.IsZero() && !now.Before(s.due)) {
			s.due = time.Time{}
		}
	})
}

// Done records that a reconcile of key ended.
func (q *TrackedQueue) Done(key types.NamespacedName) {
	q.record(key, func(s *queueState, _ time.Time) { s.inFlight-- })
}

// QueueState is an object's line of a QueueTracker snapshot.
type QueueState struct {
	Controller string `json:"controller"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// InFlight is the number of reconciles of the object running.
	InFlight int `json:"inFlight"`
	// Outstanding says a request other than the poll waits in the queue.
	Outstanding bool `json:"outstanding"`
	// Immediate counts the requests added with no delay: upjet's after an
	// async operation of the object succeeded.
	Immediate int `json:"immediate"`
	// Seq is the tracker's sequence number of the object's last record.
	Seq uint64 `json:"seq"`
}

// Snapshot returns the state of every object the tracker has seen, sorted.
func (t *QueueTracker) Snapshot() []QueueState {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]QueueState, 0, len(t.objs))
	for o, s := range t.objs {
		out = append(out, QueueState{Controller: o.controller, Namespace: o.key.Namespace, Name: o.key.Name,
			InFlight: s.inFlight, Outstanding: s.pending || !s.due.IsZero(), Immediate: s.immediate, Seq: s.seq})
	}
	slices.SortFunc(out, func(a, b QueueState) int {
		return strings.Compare(a.Controller+"\x00"+a.Namespace+"\x00"+a.Name, b.Controller+"\x00"+b.Namespace+"\x00"+b.Name)
	})
	return out
}

// Serve serves the tracker's Snapshot as JSON on l until ctx ends.
func (t *QueueTracker) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(t.Snapshot())
	})}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("cannot serve the work queues: %w", err)
	}
	return nil
}

// queueServer is the manager.Runnable that Serves a QueueTracker on a unix
// socket.
type queueServer struct {
	t    *QueueTracker
	path string
}

func (s queueServer) Start(ctx context.Context) error {
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot replace the queue socket: %w", err)
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "unix", s.path)
	if err != nil {
		return fmt.Errorf("cannot listen on the queue socket: %w", err)
	}
	return s.t.Serve(ctx, l)
}

// NeedLeaderElection is false: a replica that waits to lead still answers.
func (queueServer) NeedLeaderElection() bool { return false }

// Server returns the manager.Runnable that Serves t on the unix socket at
// path.
func (t *QueueTracker) Server(path string) manager.Runnable { return queueServer{t: t, path: path} }

// WorkQueue is a controller's work queue.
type WorkQueue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// RateLimiter is a controller's rate limiter.
type RateLimiter = workqueue.TypedRateLimiter[reconcile.Request]

// QueueWrapper returns, around inner, the queue controller would have
// used (built with rl), a queue that reports to t.
type QueueWrapper func(t *QueueTracker, controller string, rl RateLimiter, inner WorkQueue) WorkQueue

// QueueManager is a manager.Manager whose Add gives every controller a
// work queue its QueueTracker follows. controller-runtime has no option
// for that a provider's generated Setup would pass on: Add sets the
// controller's NewQueue field, which both lines' controller-runtime
// versions (v0.19, v0.23) export on the controller they add.
type QueueManager struct {
	manager.Manager
	t    *QueueTracker
	wrap QueueWrapper

	mu   sync.Mutex
	next manager.Manager
}

// TrackQueues returns mgr with every controller added through it followed
// by t, its queue wrapped by wrap.
func TrackQueues(mgr manager.Manager, t *QueueTracker, wrap QueueWrapper) *QueueManager {
	return &QueueManager{Manager: mgr, t: t, wrap: wrap, next: mgr}
}

// AddThrough makes Add pass runnables on to next, e.g. a manager that
// holds controllers until the first recovery pass (the adapter's
// HoldUntilRecovered). The adapter finds itself from the manager given to
// its Setup or a held one, not from one wrapping either: give Setup and
// the controllers' setup the QueueManager, and hold through it.
func (m *QueueManager) AddThrough(next manager.Manager) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next = next
}

// Add gives r, when it is a controller, a followed work queue, and passes
// it on.
func (m *QueueManager) Add(r manager.Runnable) error {
	if err := m.follow(r); err != nil {
		return err
	}
	m.mu.Lock()
	next := m.next
	m.mu.Unlock()
	return next.Add(r)
}

// newQueueFunc is the type of a controller's NewQueue.
type newQueueFunc = func(string, RateLimiter) WorkQueue

// follow sets r's NewQueue, when r has one, to wrap the queue it makes.
func (m *QueueManager) follow(r manager.Runnable) error {
	v := reflect.ValueOf(r)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("NewQueue")
	if !f.IsValid() {
		return nil // not a controller
	}
	orig, ok := f.Interface().(newQueueFunc)
	if !ok || !f.CanSet() {
		return fmt.Errorf("cannot follow the work queue of %T: its NewQueue is a %s", r, f.Type())
	}
	f.Set(reflect.ValueOf(newQueueFunc(func(name string, rl RateLimiter) WorkQueue {
		return m.wrap(m.t, name, rl, orig(name, rl))
	})))
	return nil
}

// TrackStandardQueue is the QueueWrapper of client-go's rate-limiting
// queue (controller-runtime v0.19's, the v1 line's). Its AddRateLimited
// asks rl for the delay, as the queue does, to tell the tracker.
func TrackStandardQueue(t *QueueTracker, controller string, rl RateLimiter, inner WorkQueue) WorkQueue {
	return &standardQueue{WorkQueue: inner, rl: rl, q: t.Queue(controller, false)}
}

// standardQueue is a client-go rate-limiting queue that reports to a
// TrackedQueue.
type standardQueue struct {
	WorkQueue
	rl RateLimiter
	q  *TrackedQueue
}

func (s *standardQueue) Add(r reconcile.Request) {
	s.q.Added(r.NamespacedName)
	s.WorkQueue.Add(r)
}

func (s *standardQueue) AddAfter(r reconcile.Request, d time.Duration) {
	s.q.AddedAfter(r.NamespacedName, d)
	s.WorkQueue.AddAfter(r, d)
}

// AddRateLimited does what client-go's does, AddAfter with rl's delay.
func (s *standardQueue) AddRateLimited(r reconcile.Request) {
	s.AddAfter(r, s.rl.When(r))
}

func (s *standardQueue) Get() (reconcile.Request, bool) {
	r, shutdown := s.WorkQueue.Get()
	if !shutdown {
		s.q.HandedOut(r.NamespacedName)
	}
	return r, shutdown
}

func (s *standardQueue) Done(r reconcile.Request) {
	s.q.Done(r.NamespacedName)
	s.WorkQueue.Done(r)
}

// FollowQueues returns, when o.QueueSocket is set, mgr as a QueueManager
// whose controllers' queues wrap makes report to a QueueTracker served on
// the socket; else mgr. Build everything on the returned manager: the
// adapter's Setup too.
func FollowQueues(mgr manager.Manager, o Options, wrap QueueWrapper) (manager.Manager, error) {
	if o.QueueSocket == "" {
		return mgr, nil
	}
	t := NewQueueTracker(o.PollInterval)
	if err := mgr.Add(t.Server(o.QueueSocket)); err != nil {
		return nil, fmt.Errorf("cannot add the queue socket: %w", err)
	}
	return TrackQueues(mgr, t, wrap), nil
}

// HoldControllers returns the manager to set the controllers up on, whose
// controllers hold (the adapter's HoldUntilRecovered): hold(mgr), or, for
// a QueueManager, mgr itself passing controllers on to hold of the manager
// it wraps, which keeps the adapter findable from it.
func HoldControllers(mgr manager.Manager, hold func(manager.Manager) manager.Manager) manager.Manager {
	q, ok := mgr.(*QueueManager)
	if !ok {
		return hold(mgr)
	}
	q.AddThrough(hold(q.Manager))
	return q
}
