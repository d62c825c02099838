package journal

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	type step struct {
		op   string // begin, dispatch, settle
		out  Settlement
		want State
		err  error
	}
	cases := map[string]struct {
		reason string
		steps  []step
	}{
		"CreateSucceeds": {"the normal path ends settled, keeping the external name", []step{
			{op: "begin", want: StatePending},
			{op: "dispatch", want: StateDispatched},
			{op: "dispatch", want: StateDispatched},
			{op: "settle", out: Settlement{State: StateSucceeded, ExternalName: "rs-1"}, want: StateSucceeded},
			{op: "settle", out: Settlement{State: StateSucceeded, ExternalName: "rs-1"}, want: StateSucceeded},
			{op: "settle", out: Settlement{State: StateSettled}, want: StateSettled},
		}},
		"ConflictAdopted": {"a 409 is resolved by recovery, not retried", []step{
			{op: "begin", want: StatePending},
			{op: "dispatch", want: StateDispatched},
			{op: "settle", out: Settlement{State: StateFailed, ErrorClass: ErrorClassConflict, Message: "already exists"}, want: StateFailed},
			{op: "settle", out: Settlement{State: StateAdopted, ExternalName: "rs-9", Reason: "AdoptedByTags"}, want: StateAdopted},
		}},
		"NothingCreated": {"recovery clears an intent under which nothing was created", []step{
			{op: "begin", want: StatePending},
			{op: "settle", out: Settlement{State: StateCleared}, want: StateCleared},
			{op: "dispatch", err: ErrInvalidTransition, want: StateCleared},
		}},
		"NoClearAfterSuccess": {"a created resource cannot be cleared: that would leak it", []step{
			{op: "begin", want: StatePending},
			{op: "settle", out: Settlement{State: StateSucceeded, ExternalName: "rs-1"}, want: StateSucceeded},
			{op: "settle", out: Settlement{State: StateCleared}, err: ErrInvalidTransition, want: StateSucceeded},
		}},
		"SettleToPending": {"settle never moves backwards", []step{
			{op: "begin", want: StatePending},
			{op: "settle", out: Settlement{State: StatePending}, err: ErrInvalidTransition, want: StatePending},
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j, _ := openTemp(t)
			uid := "uid-" + name
			var id ID
			for i, s := range tc.steps {
				var err error
				switch s.op {
				case "begin":
					var in Intent
					in, err = j.Begin(ctx, intentFor(uid))
					id = in.ID
				case "dispatch":
					err = j.MarkDispatched(ctx, uid, id)
				case "settle":
					_, err = j.Settle(ctx, uid, id, s.out)
				}
				if !errors.Is(err, s.err) {
					t.Fatalf("%s\nstep %d %s: got error %v, want %v", tc.reason, i, s.op, err, s.err)
				}
				got, err := j.Get(ctx, uid)
				if err != nil {
					t.Fatalf("step %d: Get: %v", i, err)
				}
				if got.State != s.want {
					t.Fatalf("%s\nstep %d %s: state %s, want %s", tc.reason, i, s.op, got.State, s.want)
				}
			}
		})
	}
}

func TestBeginRefusesUnsettled(t *testing.T) {
	ctx := context.Background()
	j, _ := openTemp(t)
	first, err := j.Begin(ctx, intentFor("u1"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Begin(ctx, intentFor("u1"))
	var ue *UnsettledError
	if !errors.As(err, &ue) || ue.Existing.ID != first.ID {
		t.Fatalf("second Begin on an unsettled UID: got %v, want *UnsettledError naming %s", err, first.ID)
	}
	if _, err := j.Settle(ctx, "u1", first.ID, Settlement{State: StateCleared}); err != nil {
		t.Fatal(err)
	}
	second, err := j.Begin(ctx, intentFor("u1"))
	if err != nil {
		t.Fatalf("Begin after the earlier intent was cleared: %v", err)
	}
	if second.Attempt != 2 || second.ID == first.ID {
		t.Errorf("second intent: attempt %d id %s; want attempt 2 and a new id", second.Attempt, second.ID)
	}
	// A late callback for the first intent must not touch the second.
	if _, err := j.Settle(ctx, "u1", first.ID, Settlement{State: StateSucceeded, ExternalName: "late"}); !errors.Is(err, ErrStale) {
		t.Errorf("Settle with a superseded intent id: got %v, want ErrStale", err)
	}
	if _, err := j.Settle(ctx, "nope", first.ID, Settlement{State: StateSettled}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Settle of an unknown uid: got %v, want ErrNotFound", err)
	}
	if _, err := j.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of an unknown uid: got %v, want ErrNotFound", err)
	}
}

func TestBeginStoresWhatItReturns(t *testing.T) {
	ctx := context.Background()
	j, _ := openTemp(t, WithClock(func() time.Time { return t0 }))
	want := intentFor("u1")
	want.ExternalName = "www.example.com"
	got, err := j.Begin(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	want.SchemaVersion, want.ID, want.State, want.Attempt, want.CreatedAt, want.UpdatedAt = SchemaVersion, got.ID, StatePending, 1, t0, t0
	stored, err := j.Get(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, stored); diff != "" {
		t.Errorf("Get after Begin (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Intent{}, "SchemaVersion")); diff != "" {
		t.Errorf("Begin's return value (-want +got):\n%s", diff)
	}
}

func TestUnsettledStreamsAndAllowsWrites(t *testing.T) {
	ctx := context.Background()
	j, _ := openTemp(t)
	const n = 3*scanPage + 17 // several pages
	ids := map[string]ID{}
	wantUnsettled := map[string]bool{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			uid := fmt.Sprintf("uid-%05d", i)
			in, err := j.Begin(ctx, intentFor(uid))
			if err != nil {
				t.Error(err)
				return
			}
			if i%3 == 0 {
				if _, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateCleared}); err != nil {
					t.Error(err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			ids[uid] = in.ID
			wantUnsettled[uid] = i%3 != 0
		}()
	}
	wg.Wait()
	got := map[string]bool{}
	for in, err := range j.Unsettled(ctx) {
		if err != nil {
			t.Fatalf("Unsettled: %v", err)
		}
		got[in.Resource.UID] = true
		// Settling inside the loop must not deadlock: no transaction is
		// held while the loop body runs.
		if _, err := j.Settle(ctx, in.Resource.UID, in.ID, Settlement{State: StateReported}); err != nil {
			t.Fatalf("Settle inside the iteration: %v", err)
		}
	}
	for uid, u := range wantUnsettled {
		if u != got[uid] {
			t.Errorf("uid %s: yielded %v, want %v", uid, got[uid], u)
		}
	}
	for range j.Unsettled(ctx) {
		t.Fatal("after settling every yielded intent, Unsettled still yields")
	}
	// Breaking out early is fine.
	count := 0
	for range j.All(ctx) {
		count++
		if count == 3 {
			break
		}
	}
	if count != 3 {
		t.Errorf("All with an early break visited %d, want 3", count)
	}
}

func TestUnsettledHonoursContext(t *testing.T) {
	j, _ := openTemp(t)
	for i := range 5 {
		if _, err := j.Begin(context.Background(), intentFor(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var last error
	for _, err := range j.Unsettled(ctx) {
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Errorf("Unsettled with a cancelled context ended with %v, want context.Canceled", last)
	}
}

func TestCompact(t *testing.T) {
	ctx := context.Background()
	now := t0
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	j, _ := openTemp(t, WithClock(clock))
	settle := func(uid string, s State) {
		in, err := j.Begin(ctx, intentFor(uid))
		if err != nil {
			t.Fatal(err)
		}
		if s != StatePending {
			if _, err := j.Settle(ctx, uid, in.ID, Settlement{State: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	settle("old-cleared", StateCleared)
	settle("old-reported", StateReported)
	settle("old-pending", StatePending)
	settle("old-failed", StateFailed)
	clockMu.Lock()
	now = t0.Add(48 * time.Hour)
	clockMu.Unlock()
	settle("new-cleared", StateCleared)
	n, err := j.Compact(ctx, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("Compact deleted %d records, want 2 (the old terminal ones)", n)
	}
	var left []string
	for in, err := range j.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		left = append(left, in.Resource.UID)
	}
	if diff := cmp.Diff([]string{"new-cleared", "old-failed", "old-pending"}, left); diff != "" {
		t.Errorf("records after Compact (-want +got):\n%s", diff)
	}
}

func TestGroupCommitSharesCommits(t *testing.T) {
	ctx := context.Background()
	var commits, writes atomic.Int64
	j, _ := openTemp(t, WithCommitObserver(func(_ time.Duration, n int, err error) {
		commits.Add(1)
		writes.Add(int64(n))
	}))
	commits.Store(0)
	writes.Store(0)
	const g = 64
	var wg sync.WaitGroup
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 8 {
				if _, err := j.Begin(ctx, intentFor(fmt.Sprintf("g%d-%d", i, k))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d Begins in %d commits", writes.Load(), commits.Load())
	if writes.Load() != g*8 {
		t.Fatalf("observer saw %d writes, want %d", writes.Load(), g*8)
	}
	if commits.Load() >= writes.Load()/2 {
		t.Errorf("%d concurrent Begins took %d commits: they are not sharing fsyncs", writes.Load(), commits.Load())
	}
}

// TestGroupCommitIsolatesFailures holds the commit goroutine inside one
// commit so that the next group is known to hold several writes, one of
// them a duplicate Begin: only the duplicate fails.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	ctx := context.Background()
	// commits records every commit after the blocker's began: its size and
	// whether it failed.
	type commit struct {
		writes int
		failed bool
	}
	var (
		mu      sync.Mutex
		record  atomic.Bool
		commits []commit
	)
	j, _ := openTemp(t, WithCommitObserver(func(_ time.Duration, writes int, err error) {
		if record.Load() {
			mu.Lock()
			commits = append(commits, commit{writes: writes, failed: err != nil})
			mu.Unlock()
		}
	}))
	release := make(chan struct{})
	var held atomic.Bool
	entered := make(chan struct{})
	j.testHookBeforeCommit = func() error {
		if held.CompareAndSwap(false, true) {
			close(entered)
			<-release
		}
		return nil
	}
	record.Store(true)
	go func() { _, _ = j.Begin(ctx, intentFor("blocker")) }()
	<-entered
	results := make(chan error, 5)
	for _, uid := range []string{"a", "b", "dup", "dup", "c"} {
		go func() { _, err := j.Begin(ctx, intentFor(uid)); results <- err }()
	}
	// Wait until all five are queued behind the held commit, so that they
	// form one group.
	for queued := 0; queued < 5; {
		j.qmu.Lock()
		queued = len(j.pending)
		j.qmu.Unlock()
		runtime.Gosched()
	}
	close(release)
	var ok, unsettled int
	for range 5 {
		err := <-results
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrUnsettled):
			unsettled++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 4 || unsettled != 1 {
		t.Errorf("got %d ok and %d ErrUnsettled, want 4 and 1", ok, unsettled)
	}
	// The duplicate refused its own write (reject): its group of five
	// committed in one transaction, with no failed commit and no retries.
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]commit{{writes: 1}, {writes: 5}}, commits, cmp.AllowUnexported(commit{})); diff != "" {
		t.Errorf("commits after the blocker (-want, +got):\n%s", diff)
	}
}

// TestFailedCommitLeavesNothing injects a failure at the last moment of the
// write transaction: Begin must fail and nothing may be on disk.
func TestFailedCommitLeavesNothing(t *testing.T) {
	ctx := context.Background()
	j, path := openTemp(t)
	injected := errors.New("injected: no space left on device")
	j.testHookBeforeCommit = func() error { return injected }
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := j.Begin(ctx, intentFor(fmt.Sprint(i))); !errors.Is(err, injected) {
				t.Errorf("Begin during a failing commit: got %v, want the injected error", err)
			}
		}()
	}
	wg.Wait()
	j.testHookBeforeCommit = nil
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	for in, err := range j2.All(ctx) {
		t.Errorf("record after failed commits: %v %v", in.Resource, err)
	}
	r, err := j2.Verify(ctx)
	if err != nil || !r.OK() || r.Records != 0 {
		t.Errorf("Verify after failed commits: %+v, %v; want a clean empty journal", r, err)
	}
}

func TestClosedAndReadOnly(t *testing.T) {
	ctx := context.Background()
	j, path := openTemp(t)
	in, err := j.Begin(ctx, intentFor("u1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := j.Begin(ctx, intentFor("u2")); !errors.Is(err, ErrClosed) {
		t.Errorf("Begin after Close: got %v, want ErrClosed", err)
	}
	if _, err := j.Get(ctx, "u1"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: got %v, want ErrClosed", err)
	}
	ro, err := Open(path, WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Get(ctx, "u1")
	if err != nil || got.ID != in.ID {
		t.Errorf("read-only Get = %v, %v; want the intent", got.ID, err)
	}
	if _, err := ro.Begin(ctx, intentFor("u3")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Begin on a read-only journal: got %v, want ErrReadOnly", err)
	}
	if r, err := ro.Verify(ctx); err != nil || !r.OK() || r.Unsettled != 1 {
		t.Errorf("read-only Verify = %+v, %v", r, err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(""); !errors.Is(err, ErrInvalid) {
		t.Errorf("Open(\"\"): got %v, want ErrInvalid", err)
	}
	if _, err := Open(t.TempDir() + "/missing/dir/journal.db"); err == nil {
		t.Error("Open in a missing directory succeeded")
	}
	if _, err := Open(t.TempDir()+"/absent.db", WithReadOnly()); err == nil {
		t.Error("read-only Open of a missing file succeeded")
	}
}

func TestBeginHonoursCancelledContext(t *testing.T) {
	j, _ := openTemp(t)
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	j.testHookBeforeCommit = func() error {
		once.Do(func() { close(entered); <-release })
		return nil
	}
	defer close(release)
	go func() { _, _ = j.Begin(context.Background(), intentFor("blocker")) }()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := j.Begin(ctx, intentFor("u1")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Begin whose context expires while queued: got %v, want DeadlineExceeded", err)
	}
}
