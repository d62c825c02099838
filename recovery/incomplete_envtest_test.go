package recovery_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// incomplete creates obj as a process that died between crossplane-runtime's
// pending mark and the create's intent leaves it: external-create-pending
// set at pendingAt, no intent annotation, no external name.
func (e *env) incomplete(ctx context.Context, obj client.Object, pendingAt time.Time) {
	e.t.Helper()
	obj.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: pendingAt.UTC().Format(time.RFC3339)})
	if err := e.client.Create(ctx, obj); err != nil {
		e.t.Fatal(err)
	}
}

// eventually polls cond every interval until it holds, failing t when
// timeout passes first or cond fails.
func eventually(t testing.TB, timeout, interval time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(interval)
	}
}

// TestIncompleteAge: a pass with Options.IncompleteAge (the Recoverer's
// later passes) takes an incomplete create that no intent explains only
// once its pending mark is older than the age, and never one whose owner
// this process's journal names, however old its mark. Without the age
// check the young create would be cleared while its reconcile may still
// run; without the journal check the live create would be cleared as an
// unknown owner's.
func TestIncompleteAge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const age = time.Minute
	old := time.Now().Add(-5 * time.Minute)

	// Left by a process that died: nothing reached the cloud.
	oldRS := newRecordSet("age-old", "zone-age")
	e.incomplete(ctx, oldRS, old)
	// Left by a process that died after the cloud made the Network.
	oldNet := taggedNetwork(t, "age-old-net", "10.9.0.0/16")
	e.incomplete(ctx, oldNet, old)
	made := e.cloud.createNetwork(cloudNetwork{Name: "age-old-net", CIDRBlock: "10.9.0.0/16", Tags: crossplaneTags("Network", "age-old-net")})
	// Written a moment ago: its reconcile may still be running.
	young := newRecordSet("age-young", "zone-age")
	e.incomplete(ctx, young, time.Now())
	// This process's own live create: its journal intent has this
	// process's epoch, the resource has no intent annotation yet (the
	// critical annotation update has not landed), and the mark is old.
	self := journal.Owner{Replica: "provider-0", Epoch: journal.NewEpoch(time.Now())}
	own := newRecordSet("age-own", "zone-age")
	e.incomplete(ctx, own, old)
	if _, err := e.journal.Begin(ctx, journal.Intent{
		Resource: journal.ResourceRef{APIVersion: memGroup + "/" + memVersion, Kind: "RecordSet", Name: own.GetName(), UID: string(own.GetUID())},
		Owner:    self,
	}); err != nil {
		t.Fatal(err)
	}
	before := map[string]map[string]string{
		young.GetName(): e.annotations(ctx, young),
		own.GetName():   e.annotations(ctx, own),
	}

	o := e.options()
	o.Scope = func(in journal.Intent) bool { return in.Owner.Epoch != self.Epoch }
	o.IncompleteAge = age
	rep, err := recovery.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, rep)
	want := map[string][]report.Outcome{
		oldRS.GetName():  {report.OutcomeCleared},
		oldNet.GetName(): {report.OutcomeAdopted},
	}
	if diff := cmp.Diff(want, outcomes(rep)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if got := e.annotations(ctx, oldNet)["crossplane.io/external-name"]; got != made.ID {
		t.Errorf("the old Network's external name is %q, want the cloud object %q", got, made.ID)
	}
	for _, obj := range []client.Object{young, own} {
		if diff := cmp.Diff(before[obj.GetName()], e.annotations(ctx, obj)); diff != "" {
			t.Errorf("%s changed (-before +after):\n%s", obj.GetName(), diff)
		}
	}
	if got := e.state(ctx, own.GetUID()); got != journal.StatePending {
		t.Errorf("the live create's intent is %s, want it left pending", got)
	}

	// Once the young mark is older than the age, a pass takes it.
	o.Now = func() time.Time { return time.Now().Add(age + time.Second) }
	rep, err = recovery.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]report.Outcome{young.GetName(): {report.OutcomeCleared}}, outcomes(rep)); diff != "" {
		t.Errorf("outcomes of the pass after the age (-want +got):\n%s", diff)
	}
}

// TestRecovererLaterPassTakesIncomplete: after its first complete pass, a
// Recoverer with Interval resolves an incomplete create that appeared since
// (a resource whose bucket moved to this replica after the first pass, left
// incomplete by the replica that died holding it) once it is
// IncompleteGrace old; it never touched it while it was younger.
func TestRecovererLaterPassTakesIncomplete(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := e.options()
	o.Scope = nil
	rec := recovery.NewRecoverer(o)
	rec.Interval = 200 * time.Millisecond
	rec.IncompleteGrace = 3 * time.Second
	rec.ReportPath = filepath.Join(t.TempDir(), "report.json")
	go func() { _ = rec.Start(ctx) }()
	select {
	case <-rec.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the first pass did not complete")
	}

	// The mark has a one-second resolution: written at `at`, it may read
	// up to a second earlier.
	at := time.Now()
	rs := newRecordSet("later-rs", "zone-later")
	e.incomplete(ctx, rs, at)
	var clearedAt time.Time
	eventually(t, 60*time.Second, 50*time.Millisecond, "a later pass to clear the incomplete create", func() (bool, error) {
		if _, ok := e.annotations(ctx, rs)[recovery.AnnotationExternalCreatePending]; ok {
			return false, nil
		}
		clearedAt = time.Now()
		return true, nil
	})
	if early := at.Truncate(time.Second).Add(rec.IncompleteGrace); clearedAt.Before(early) {
		t.Errorf("cleared %s after the mark, before IncompleteGrace %s", clearedAt.Sub(at), rec.IncompleteGrace)
	}
	if got := e.annotations(ctx, rs)[recovery.AnnotationRecovered]; got == "" {
		t.Errorf("the clearing patch did not set %s", recovery.AnnotationRecovered)
	}
}
