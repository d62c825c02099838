package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// metricValues returns the adapter's metrics gathered from a registry of
// their own, by name, summed over labels.
func metricValues(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			out[mf.GetName()] += mt.GetCounter().GetValue() + mt.GetGauge().GetValue()
		}
	}
	return out
}

// TestCreateBeginsBeforeDispatch: the wrapped Create runs only once the
// intent is durable (in the journal, or without one on the API server's
// copy of the resource), with the create lock held, and the in-memory
// resource carries the same intent for crossplane-runtime to persist.
func TestCreateBeginsBeforeDispatch(t *testing.T) {
	// atDispatch is what the wrapped Create sees when it runs.
	type atDispatch struct {
		Durable    journal.State // the durable record's state, "" for none
		SameIntent bool          // the durable record and mg's annotation name one intent
		LocksHeld  int
	}
	for name, annotationOnly := range map[string]bool{"Journal": false, "AnnotationOnly": true} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mg := newRecord("www")
			locks := &lockCounter{}
			h := newHarness(t, harnessConfig{annotationOnly: annotationOnly, async: true, locker: locks, objects: []client.Object{mg.DeepCopy()}})
			// durable reads the record a crash at this moment would leave.
			durable := func() (journal.Intent, bool) {
				if h.j != nil {
					return h.intent(t, mg)
				}
				in, has, err := journal.AnnotationIntent(h.stored(t, mg).GetAnnotations())
				if err != nil {
					t.Fatalf("the stored intent annotation does not decode: %v", err)
				}
				return in, has
			}
			var seen []atDispatch
			h.cloud.during = func(context.Context) {
				d, has := durable()
				mem, memHas, _ := journal.AnnotationIntent(mg.GetAnnotations())
				seen = append(seen, atDispatch{Durable: d.State, SameIntent: has && memHas && d.ID == mem.ID, LocksHeld: locks.held()})
			}

			if err := h.create(ctx, mg); err != nil {
				t.Fatalf("Create(): %v", err)
			}

			if diff := cmp.Diff([]atDispatch{{Durable: journal.StatePending, SameIntent: true, LocksHeld: 1}}, seen); diff != "" {
				t.Errorf("what the wrapped Create saw (-want +got):\n%s", diff)
			}
			in, _ := durable()
			want := map[string]any{"attempt": 1, "owner": h.a.Owner(), "args-generation": int64(1), "lookup-name": "www",
				"in-flight": true, "locks-held": 1, "begun": 1.0}
			got := map[string]any{"attempt": in.Attempt, "owner": in.Owner, "args-generation": in.Args.Generation, "lookup-name": in.LookupKeys[recovery.TagCrossplaneName],
				"in-flight": h.k.inFlight(client.ObjectKeyFromObject(mg), mg.GetUID()), "locks-held": locks.held(), "begun": metricValues(t, h.a.metrics)["intentjournal_intents_begun_total"]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after an async create was dispatched (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateDispatchOutcomes: how Create records what the wrapped Create
// returned. A synchronous client's answer settles at once; an async
// client's is the callback's to settle, unless upjet refused to start the
// operation, after which no callback comes.
func TestCreateDispatchOutcomes(t *testing.T) {
	type outcome struct {
		State     journal.State
		Class     journal.ErrorClass
		InFlight  bool
		LocksHeld int
		// Annotated: the in-memory resource still carries the intent.
		Annotated bool
	}
	cases := map[string]struct {
		reason       string
		async        bool
		externalName string // set on the resource before the create
		err          error
		want         outcome
	}{
		"SyncNamed": {reason: "A synchronous create that named its resource is settled, and its annotation dropped.",
			externalName: "rec-1", want: outcome{State: journal.StateSettled}},
		"SyncUnnamed": {reason: "A synchronous create with no name yet stays for Observe to settle.",
			want: outcome{State: journal.StatePending, Annotated: true}},
		"SyncConflict": {reason: "A 409 is recorded as a conflict, for the next attempt to resolve.",
			err: errors.New(`record "www" already exists`), want: outcome{State: journal.StateFailed, Class: journal.ErrorClassConflict, Annotated: true}},
		"SyncRejected": {reason: "A 400 made nothing.",
			err: errors.New("InvalidParameterValue: ttl out of range (400)"), want: outcome{State: journal.StateFailed, Class: journal.ErrorClassRejected, Annotated: true}},
		"SyncAmbiguous": {reason: "A reset connection may have created: ambiguous.",
			err: errors.New("read tcp: connection reset by peer"), want: outcome{State: journal.StateFailed, Class: journal.ErrorClassAmbiguous, Annotated: true}},
		"AsyncStarted": {reason: "An async create is in flight, its lock held until the callback.",
			async: true, want: outcome{State: journal.StatePending, InFlight: true, LocksHeld: 1, Annotated: true}},
		"AsyncPreviousError": {reason: "upjet returns the previous operation's error although it started this one: the callback settles it.",
			async: true, err: errors.New("async create failed: earlier failure"), want: outcome{State: journal.StatePending, InFlight: true, LocksHeld: 1, Annotated: true}},
		"AsyncNotStarted": {reason: "upjet refused to start: no callback will come, so the intent is settled rejected and the lock released at once.",
			async: true, err: fmt.Errorf("cannot create: %w", errNotStarted), want: outcome{State: journal.StateFailed, Class: journal.ErrorClassRejected, Annotated: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mg := newRecord("www")
			if tc.externalName != "" {
				mg.SetAnnotations(map[string]string{recovery.AnnotationExternalName: tc.externalName})
			}
			locks := &lockCounter{}
			h := newHarness(t, harnessConfig{async: tc.async, locker: locks, objects: []client.Object{mg.DeepCopy()}})
			h.cloud.err = tc.err

			err := h.create(context.Background(), mg)

			if !errors.Is(err, tc.err) {
				t.Errorf("%s\nCreate() = %v, want the wrapped Create's own error %v", tc.reason, err, tc.err)
			}
			in, _ := h.intent(t, mg)
			got := outcome{State: in.State, Class: in.Outcome.ErrorClass, InFlight: h.k.inFlight(client.ObjectKeyFromObject(mg), mg.GetUID()),
				LocksHeld: locks.held(), Annotated: mg.GetAnnotations()[journal.AnnotationKey] != ""}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
			if n := h.cloud.dispatched(); n != 1 {
				t.Errorf("%s\nthe wrapped Create ran %d times, want once", tc.reason, n)
			}
		})
	}
}

// TestCreateInFlight: while an async create of a resource is in flight, a
// second Create of it dispatches nothing; once its callback has recorded
// the cloud's refusal, the next Create runs.
func TestCreateInFlight(t *testing.T) {
	ctx := context.Background()
	mg := newRecord("www")
	locks := &lockCounter{}
	h := newHarness(t, harnessConfig{async: true, locker: locks, objects: []client.Object{mg.DeepCopy()}})
	if err := h.create(ctx, mg); err != nil {
		t.Fatalf("Create(): %v", err)
	}
	first, _ := h.intent(t, mg)

	if err := h.create(ctx, mg.DeepCopy()); err == nil || err.Error() != errInFlight {
		t.Errorf("a second Create while the first is in flight = %v, want %q", err, errInFlight)
	}
	if n, held := h.cloud.dispatched(), locks.held(); n != 1 || held != 1 {
		t.Errorf("after the second Create: %d dispatched, %d locks held; want 1 and 1 (the first create's)", n, held)
	}
	if in, _ := h.intent(t, mg); in.ID != first.ID || in.State != journal.StatePending {
		t.Errorf("the second Create touched the first's intent: %s %s, want %s pending", in.ID, in.State, first.ID)
	}

	h.k.Created(ctx, client.ObjectKeyFromObject(mg), errors.New("InvalidParameterValue: ttl out of range (400)"))
	if err := h.create(ctx, mg); err != nil {
		t.Fatalf("Create() after the callback: %v", err)
	}
	in, _ := h.intent(t, mg)
	if diff := cmp.Diff([]any{2, 2, journal.StatePending}, []any{h.cloud.dispatched(), in.Attempt, in.State}); diff != "" {
		t.Errorf("dispatches, attempt and state after the callback (-want +got):\n%s", diff)
	}
}

// TestCreateAgainAfterARejection: an intent this process saw rejected (by
// the cloud, or by upjet before it started) is settled and the create
// runs again; one rejected under an earlier process is resolved instead,
// for this process did not see what became of it.
func TestCreateAgainAfterARejection(t *testing.T) {
	rejected := journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassRejected, Message: "InvalidParameterValue (400)"}
	cases := map[string]struct {
		reason       string
		async        bool
		first        error // the first attempt's error, from the wrapped Create
		earlier      bool  // instead, an earlier process's attempt was rejected
		wantErr      string
		wantDispatch int
		wantAttempt  int
		wantState    journal.State
	}{
		"RejectedByTheCloud": {reason: "A 400 made nothing: run again.",
			first: errors.New("InvalidParameterValue: ttl out of range (400)"), wantDispatch: 2, wantAttempt: 2, wantState: journal.StatePending},
		"NotStarted": {reason: "upjet never started the first: run again.",
			async: true, first: errNotStarted, wantDispatch: 2, wantAttempt: 2, wantState: journal.StatePending},
		"EarlierProcess": {reason: "Another epoch's rejection is resolved, not trusted.",
			earlier: true, wantErr: fmt.Sprintf(errResolved, report.OutcomeCleared), wantDispatch: 0, wantAttempt: 1, wantState: journal.StateCleared},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mg := newRecord("www")
			h := newHarness(t, harnessConfig{async: tc.async, objects: []client.Object{mg.DeepCopy()}})
			if tc.earlier {
				in := h.earlierIntent(t, mg)
				if _, err := h.j.Settle(ctx, in.Resource.UID, in.ID, rejected); err != nil {
					t.Fatal(err)
				}
			} else {
				h.cloud.err = tc.first
				if err := h.create(ctx, mg); !errors.Is(err, tc.first) {
					t.Fatalf("first Create() = %v, want %v", err, tc.first)
				}
				h.cloud.err = nil
			}

			err := h.create(ctx, mg)

			if (tc.wantErr == "" && err != nil) || (tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr))) {
				t.Errorf("%s\nCreate() = %v, want %q", tc.reason, err, tc.wantErr)
			}
			in, _ := h.intent(t, mg)
			if diff := cmp.Diff([]any{tc.wantDispatch, tc.wantAttempt, tc.wantState}, []any{h.cloud.dispatched(), in.Attempt, in.State}); diff != "" {
				t.Errorf("%s\ndispatches, attempt and state (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCreateAfterRecovery: once the recovery pass is over for good, a
// resource the gate still blocks is resolved by the create path itself,
// never created over; what the resolution leaves is observed afresh.
func TestCreateAfterRecovery(t *testing.T) {
	cases := map[string]struct {
		reason    string
		cfg       harnessConfig
		setup     func(t *testing.T, h *harness, mg *unstructured.Unstructured)
		wantErr   string
		wantState journal.State
		// wantOpen: the gate lets the resource create again.
		wantOpen bool
	}{
		"NothingLeft": {reason: "Nothing is unsettled any more: the gate opens, and this reconcile observes afresh.",
			wantErr: errNothingEarlier, wantOpen: true},
		"EarlierIntent": {reason: "An earlier process's intent is resolved here (nothing found: cleared), which opens the gate; this reconcile observes afresh.",
			setup:   func(t *testing.T, h *harness, mg *unstructured.Unstructured) { h.earlierIntent(t, mg) },
			wantErr: fmt.Sprintf(errResolved, report.OutcomeCleared), wantState: journal.StateCleared, wantOpen: true},
		"LivePeer": {reason: "A live peer's intent is never resolved here: the gate stays shut.",
			cfg: harnessConfig{scope: func(in journal.Intent) bool { return in.Owner.Replica == "replica-0" }},
			setup: func(t *testing.T, _ *harness, mg *unstructured.Unstructured) {
				mg.SetAnnotations(peerAnnotation(t, mg))
			},
			wantErr: "cannot create: the earlier create intent belongs to replica-1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mg := newRecord("www")
			tc.cfg.recovered = true
			tc.cfg.objects = []client.Object{mg.DeepCopy()}
			h := newHarness(t, tc.cfg)
			if tc.setup != nil {
				tc.setup(t, h, mg)
			}
			h.a.Gate().Block(mg.GetUID(), "left unresolved")

			err := h.create(context.Background(), mg)

			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%s\nCreate() = %v, want %q", tc.reason, err, tc.wantErr)
			}
			open := h.a.Gate().Allow(mg.GetUID()) == nil
			if diff := cmp.Diff([]any{0, tc.wantState, tc.wantOpen}, []any{h.cloud.dispatched(), h.state(t, string(mg.GetUID())), open}); diff != "" {
				t.Errorf("%s\ndispatches, journal state and gate (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCreateBeginTimeout: a Begin whose context ends while its write
// waits in the commit queue dispatches nothing, although its write may
// commit afterwards; the next Create finds that intent and resolves it
// rather than create over it.
func TestCreateBeginTimeout(t *testing.T) {
	ctx := context.Background()
	var block atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	committed := make(chan struct{}, 1)
	observer := func(time.Duration, int, error) {
		if block.CompareAndSwap(true, false) {
			close(entered)
			<-release
			return
		}
		select {
		case committed <- struct{}{}:
		default:
		}
	}
	mg := newRecord("www")
	h := newHarness(t, harnessConfig{objects: []client.Object{mg.DeepCopy()}, journalOpts: []journal.Option{journal.WithCommitObserver(observer)}})

	// Another create's commit holds the journal's commit lead.
	block.Store(true)
	other := newRecord("other")
	in, err := BuildIntent(other, IntentInput{GVK: testGVK, Owner: h.a.Owner()}, fakeLine{})
	if err != nil {
		t.Fatal(err)
	}
	otherDone := make(chan error, 1)
	go func() {
		_, err := h.j.Begin(ctx, in)
		otherDone <- err
	}()
	<-entered

	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	err = h.create(expired, mg)
	if err == nil || !strings.HasPrefix(err.Error(), errBegin) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Create() with its deadline passed in the commit queue = %v, want %q wrapping %v", err, errBegin, context.DeadlineExceeded)
	}
	if n := h.cloud.dispatched(); n != 0 {
		t.Errorf("a Begin that gave up dispatched %d creates", n)
	}

	// The queued write commits after all: a durable intent for a create
	// that was never dispatched.
	close(release)
	if err := <-otherDone; err != nil {
		t.Fatalf("the other Begin: %v", err)
	}
	<-committed
	if got := h.state(t, string(mg.GetUID())); got != journal.StatePending {
		t.Fatalf("the abandoned Begin left %q, want a pending intent", got)
	}

	err = h.create(ctx, mg)
	if want := fmt.Sprintf(errResolved, report.OutcomeCleared); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Create() over the abandoned intent = %v, want %q", err, want)
	}
	if n, st := h.cloud.dispatched(), h.state(t, string(mg.GetUID())); n != 0 || st != journal.StateCleared {
		t.Errorf("after the next Create: %d dispatched, intent %q; want 0 and cleared", n, st)
	}
}
