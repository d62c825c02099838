package testbed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// What the weak-proof tests' someone else puts at our key (issue #29):
// arguments no managed resource of the tests asks for (theirs are TTL 300
// and 192.0.2.10).
const (
	foreignTTL    = 600
	foreignRRData = "203.0.113.66"
)

// weakCreateLatency holds the answer of every create while a weak-proof
// test sets its kill up. The fake cloud commits a create when it arrives
// and answers it this much later, so the provider is killed after its
// create met "already exists" in the cloud and long before the 409 can
// reach it.
const weakCreateLatency = 30 * time.Second

// unchangedFor is how long a weak-proof test watches someone else's record
// after recovery has decided, with the provider running: the bug of #29
// was the reconciler rewriting it right after the adoption.
const unchangedFor = 10 * time.Second

// weakBed is what the weak-proof tests share: a Testbed with no faults
// at start, whose provider runs in journal mode with --delete-orphans and
// a recovery report, and whose first recovery pass (nothing to do) has
// run: creates are let through from then on.
type weakBed struct {
	*Testbed
	// Journal and Report are the provider's journal and report files.
	Journal, Report string
}

// newWeakBed starts a weakBed with the namespaces ns and extra provider
// flags args. The first boot's report is removed, so that the report read
// after the restart is the restarted provider's.
func newWeakBed(t *testing.T, ns []string, args ...string) weakBed {
	t.Helper()
	dir := t.TempDir()
	b := weakBed{Journal: filepath.Join(dir, "intents.db"), Report: filepath.Join(dir, "recovery-report.json")}
	b.Testbed = New(t, BuildBinaries(t), Options{
		ProviderArgs: append([]string{"--max-reconcile-rate=100", "--journal=" + b.Journal,
			"--recovery-report=" + b.Report, "--delete-orphans"}, args...),
		Namespaces: ns,
	})
	b.readReport(t)
	if err := os.Remove(b.Report); err != nil {
		t.Fatalf("cannot remove the first boot's recovery report: %v", err)
	}
	return b
}

// readReport waits for the provider's recovery report and reads it.
func (b weakBed) readReport(t *testing.T) *report.Report {
	t.Helper()
	return waitReport(t, b.Report)
}

// killed checks what the kill must have left for the test to show
// anything: the victim's intent still open in the dead provider's journal
// (no answer to its create recorded: the 409 never reached it) and no
// "already exists" in the provider's log. It returns every unsettled
// intent by UID.
func (b weakBed) killed(t *testing.T, victim types.UID) map[string]journal.Intent {
	t.Helper()
	open := unsettledIntents(t, b.Journal)
	in, ok := open[string(victim)]
	if !ok {
		t.Fatalf("the victim's intent is not open in the killed provider's journal: its create was settled before the kill, and the test shows nothing")
	}
	if in.State != journal.StatePending && in.State != journal.StateDispatched {
		t.Fatalf("the victim's intent is %s (%+v) in the killed provider's journal, want pending or dispatched: the create's answer reached the provider before the kill", in.State, in.Outcome)
	}
	log, err := os.ReadFile(b.Provider.LogPath())
	if err != nil {
		t.Fatalf("cannot read the provider's log: %v", err)
	}
	if i := strings.Index(string(log), "already exists in zone"); i >= 0 {
		t.Fatalf("the provider logged a 409 before the kill: %q", lineAt(string(log), i))
	}
	return open
}

// lineAt returns the line of s that holds index i.
func lineAt(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : i+end]
}

// cloudRecordAt returns the record set at zone and name in the fake cloud.
func cloudRecordAt(t *testing.T, fc *FakeCloud, zone, name string) (fakecloud.RecordSet, bool) {
	t.Helper()
	for _, rs := range fc.Stats(t).Objects.RecordSets {
		if rs.Zone == zone && rs.Name == name {
			return rs, true
		}
	}
	return fakecloud.RecordSet{}, false
}

// createInCloud makes rs directly in the fake cloud, as someone else
// would, and returns the record set that then holds its zone and name.
// The cloud commits a create before its latency, so the record shows in
// the cloud's figures long before the answer: createInCloud returns then
// and abandons the answer. When something else already held the key, the
// record returned is that one: the caller compares.
func createInCloud(t *testing.T, fc *FakeCloud, rs fakecloud.RecordSet) fakecloud.RecordSet {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = fc.Client.CreateRecordSet(ctx, rs) }()
	var got fakecloud.RecordSet
	Eventually(t, time.Minute, 20*time.Millisecond, fmt.Sprintf("a record set at %s/%s in the cloud", rs.Zone, rs.Name), func() (bool, error) {
		var ok bool
		got, ok = cloudRecordAt(t, fc, rs.Zone, rs.Name)
		return ok, nil
	})
	return got
}

// isForeign reports whether rs holds the foreign arguments.
func isForeign(rs fakecloud.RecordSet) bool {
	return rs.TTL == foreignTTL && len(rs.RRDatas) == 1 && rs.RRDatas[0] == foreignRRData
}

// waitReadyExcept waits until every MR of kinds but the one with UID
// except is Ready. On timeout it fails the test naming those that are not.
func waitReadyExcept(t *testing.T, c *Cluster, kinds []func() resource.ManagedList, except types.UID) {
	t.Helper()
	const timeout = 3 * time.Minute
	deadline := time.Now().Add(timeout)
	for {
		var waiting []resource.Managed
		for _, mg := range listAll(t, c, kinds) {
			if mg.GetUID() != except && !IsReady(mg) {
				waiting = append(waiting, mg)
			}
		}
		if len(waiting) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s, these MRs are not Ready:\n%s", timeout, Describe(waiting))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// entriesByUID returns the report's entries by the managed resource's UID.
func entriesByUID(rep *report.Report) map[string]*report.Entry {
	out := map[string]*report.Entry{}
	for _, e := range rep.Entries {
		out[e.Resource.UID] = e
	}
	return out
}

// foundByID returns the entry's found resource with id.
func foundByID(e *report.Entry, id string) (report.Found, bool) {
	for _, f := range e.Found {
		if f.ID == id {
			return f, true
		}
	}
	return report.Found{}, false
}

// checkAdopted checks that e adopted id: on a strong proof, or on a weak
// one flagged weak with its arguments found to match. It reports whether
// the proof was weak.
func checkAdopted(t *testing.T, what string, e *report.Entry, id string) (weak bool) {
	t.Helper()
	f, ok := foundByID(e, id)
	switch {
	case e.Outcome != report.OutcomeAdopted || e.ExternalName != id:
		t.Errorf("%s: %s/%s (%s) bound to %q, found %+v; want adopted, bound to %q", what, e.Outcome, e.Reason, e.Message, e.ExternalName, e.Found, id)
	case !ok || !f.Adopted:
		t.Errorf("%s: adopted, but found %+v does not name %q adopted", what, e.Found, id)
	case recovery.Proof(f.Proof).Strong():
		if f.Weak {
			t.Errorf("%s: adopted on the strong proof %s, but flagged weak", what, f.Proof)
		}
	case !f.Weak || f.Arguments != string(recovery.ArgsSame):
		t.Errorf("%s: adopted on proof %q with weak=%t arguments=%q; a weak proof must be flagged weak and adopt only arguments %q", what, f.Proof, f.Weak, f.Arguments, recovery.ArgsSame)
	default:
		return true
	}
	return false
}

// checkRefused checks that e is the conflict of a weak proof refused on
// the arguments of id, someone else's resource: outcome conflict, reason
// ArgumentsDiffer, id named in found with arguments "differ", not adopted.
func checkRefused(t *testing.T, what string, e *report.Entry, id string) {
	t.Helper()
	if e == nil {
		t.Errorf("%s: the recovery report has no entry", what)
		return
	}
	if e.Outcome != report.OutcomeConflict || e.Reason != recovery.ReasonArgsDiffer {
		t.Errorf("%s: %s/%s (%s); want %s/%s", what, e.Outcome, e.Reason, e.Message, report.OutcomeConflict, recovery.ReasonArgsDiffer)
	}
	f, ok := foundByID(e, id)
	if !ok || f.Adopted || f.Arguments != string(recovery.ArgsDifferent) {
		t.Errorf("%s: found %+v; want %q named with arguments %q, not adopted", what, e.Found, id, recovery.ArgsDifferent)
	}
	if !strings.Contains(e.Message, id) {
		t.Errorf("%s: the message %q does not name %q", what, e.Message, id)
	}
}

// waitEvent waits for an Event of type typ and reason on the object with
// uid, in any namespace (a cluster-scoped object's are in default), and
// returns it. When none comes in a minute it fails the test and returns
// false.
func waitEvent(t *testing.T, c *Cluster, uid types.UID, typ, reason string) (corev1.Event, bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		var l corev1.EventList
		err := c.Client.List(ctx, &l)
		cancel()
		if err != nil {
			t.Fatalf("cannot list Events: %v", err)
		}
		for _, e := range l.Items {
			if e.InvolvedObject.UID == uid && e.Type == typ && e.Reason == reason {
				return e, true
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("no %s Event %s on %s after a minute", typ, reason, uid)
			return corev1.Event{}, false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkUnchanged watches the record set want for unchangedFor and fails
// the test the moment it is gone or differs from want in any argument or
// tag.
func checkUnchanged(t *testing.T, fc *FakeCloud, want fakecloud.RecordSet) {
	t.Helper()
	deadline := time.Now().Add(unchangedFor)
	for {
		got, ok := cloudRecordAt(t, fc, want.Zone, want.Name)
		if !ok {
			t.Errorf("someone else's record set %s (%s/%s) was deleted", want.ID, want.Zone, want.Name)
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("someone else's record set %s changed (-before +now):\n%s", want.ID, diff)
			return
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}
