package recovery_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// deletedInFlight is a Network whose create made a cloud network tagged
// with tagsFor(its UID) and which was then deleted while the intent was
// unsettled: what the MR-deleted rows start from.
func (e *env) deletedInFlight(ctx context.Context, name, cidr string, tagsFor func(types.UID) map[string]string) (*unstructured.Unstructured, cloudNetwork) {
	e.t.Helper()
	nw := newNetwork(name, cidr)
	e.begin(ctx, nw, "Network", nil)
	made := e.cloud.createNetwork(cloudNetwork{Name: name, CIDRBlock: cidr, Tags: tagsFor(nw.GetUID())})
	if err := e.client.Delete(ctx, nw); err != nil {
		e.t.Fatal(err)
	}
	return nw, made
}

// TestDecisionTable runs every row of docs/recovery.md against envtest, the
// in-memory cloud and a journal file.
func TestDecisionTable(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	fc := e.cloud
	// Each row makes its own resources (its own names and zones), scopes
	// its pass to them, and ends by checking that a second pass over them
	// finds nothing left, so any row can run alone (-run
	// TestDecisionTable/Name) and no row depends on another.
	var resolved []types.UID // the UIDs the running row resolves
	row := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			resolved = nil
			f(t)
			if t.Failed() {
				return
			}
			if len(resolved) == 0 {
				t.Fatal("the row resolved nothing")
			}
			rep, err := recovery.Run(ctx, e.options(resolved...))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Summary.Total != 0 {
				t.Errorf("a second pass found %d candidates, want 0: %+v", rep.Summary.Total, rep.Entries)
			}
		})
	}

	row("NothingFoundClears", func(t *testing.T) {
		rs := newRecordSet("clear-me", "zone-clear")
		in := e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-clear", "name": "clear-me"})
		resolved = append(resolved, rs.GetUID())
		rep, err := recovery.Run(ctx, e.options(rs.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if diff := cmp.Diff(map[string][]report.Outcome{"clear-me": {report.OutcomeCleared}}, outcomes(rep)); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		a := e.annotations(ctx, rs)
		if _, ok := a[recovery.AnnotationExternalCreatePending]; ok {
			t.Error("external-create-pending is still set: crossplane-runtime would stay stuck on 'cannot determine creation result'")
		}
		if _, ok := a[journal.AnnotationKey]; ok {
			t.Error("the intent annotation is still set")
		}
		if got := e.state(ctx, rs.GetUID()); got != journal.StateCleared {
			t.Errorf("journal state %s, want cleared (intent %s)", got, in.ID)
		}
	})

	row("OneOursAdopts", func(t *testing.T) {
		nw := newNetwork("adopt-me", "10.1.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		resolved = append(resolved, nw.GetUID())
		made := fc.createNetwork(cloudNetwork{Name: "adopt-me", CIDRBlock: "10.1.0.0/16", Tags: crossplaneTags("Network", "adopt-me")})
		rep, err := recovery.Run(ctx, e.options(nw.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if diff := cmp.Diff(map[string][]report.Outcome{"adopt-me": {report.OutcomeAdopted}}, outcomes(rep)); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		a := e.annotations(ctx, nw)
		if a[recovery.AnnotationExternalName] != made.ID {
			t.Errorf("external-name %q, want the adopted %q", a[recovery.AnnotationExternalName], made.ID)
		}
		if _, ok := a[recovery.AnnotationExternalCreatePending]; ok {
			t.Error("external-create-pending is still set after adoption")
		}
		if got := e.state(ctx, nw.GetUID()); got != journal.StateAdopted {
			t.Errorf("journal state %s, want adopted", got)
		}
		// Crossplane tags with a creation time are a weak proof: the
		// report says so, and that the arguments were checked (#29).
		if f := rep.Entries[0].Found; len(f) != 1 || !f[0].Weak || f[0].Arguments != string(recovery.ArgsSame) || f[0].Proof != string(recovery.ProofTags) {
			t.Errorf("found %+v, want one weak CrossplaneTags proof whose arguments match", f)
		}
		if r := e.eventReasons(ctx, "adopt-me"); !slices.Contains(r, recovery.EventAdopted) {
			t.Errorf("events %v, want %s", r, recovery.EventAdopted)
		}
	})

	row("AdoptionEventsLimited", func(t *testing.T) {
		// Three adoptions on a strong proof (the UID tag) in a pass
		// allowed one IntentAdopted Event: one is posted, and the report
		// says two went without. A fourth, on the weak crossplane-tags
		// proof, posts its Event whatever the budget (#29): it is the
		// adoption an operator may want to check.
		names := []string{"evt-adopt-0", "evt-adopt-1", "evt-adopt-2", "evt-adopt-weak"}
		var first *unstructured.Unstructured
		for i, name := range names {
			nw := newNetwork(name, fmt.Sprintf("10.9.%d.0/24", i))
			if first == nil {
				first = nw
			}
			tags := crossplaneTags("Network", name)
			if name == "evt-adopt-weak" {
				e.begin(ctx, nw, "Network", nil)
			} else {
				e.beginUIDTagged(ctx, nw, "Network", nil)
				tags[recovery.TagUID] = string(nw.GetUID())
			}
			resolved = append(resolved, nw.GetUID())
			fc.createNetwork(cloudNetwork{Name: name, CIDRBlock: fmt.Sprintf("10.9.%d.0/24", i), Tags: tags})
		}
		o := e.options(resolved...)
		o.Policy.AdoptionEvents = 1
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if rep.Summary.Adopted != 4 {
			t.Fatalf("summary %+v, want 4 adopted", rep.Summary)
		}
		posted := func() (n int) {
			list, err := e.events.List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatalf("cannot list Events: %v", err)
			}
			for _, ev := range list.Items {
				if slices.Contains(names, ev.InvolvedObject.Name) && ev.Reason == recovery.EventAdopted {
					n++
				}
			}
			return n
		}
		// The pass posted its Events before Run returned, through the
		// recorder whose broadcaster writes them in order: once a sentinel
		// posted after the pass is visible, every earlier Event is too,
		// and the count is final.
		e.recorder.Event(first, corev1.EventTypeNormal, "TestSentinel", "after the pass")
		deadline := time.Now().Add(30 * time.Second)
		for !e.hasEvent(ctx, first.GetName(), "TestSentinel") {
			if time.Now().After(deadline) {
				t.Fatal("the sentinel Event posted after the pass never arrived")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n := posted(); n != 2 {
			t.Errorf("%d %s Events posted for 3 strong adoptions and 1 weak, want 2: 1 (Policy.AdoptionEvents) and the weak one", n, recovery.EventAdopted)
		}
		if !e.hasEvent(ctx, "evt-adopt-weak", recovery.EventAdopted) {
			t.Errorf("the weak adoption's %s Event was withheld", recovery.EventAdopted)
		}
		want := []string{"2 adoptions have no IntentAdopted Event: a pass posts at most 1 (Policy.AdoptionEvents); each is in this report and in its resource's intentjournal.io/recovered annotation"}
		if diff := cmp.Diff(want, rep.Source.Notes); diff != "" {
			t.Errorf("report notes (-want +got):\n%s", diff)
		}
	})

	row("NameKeyedOursAdopts", func(t *testing.T) {
		rs := newRecordSet("www-adopt", "zone-a")
		e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-a", "name": "www-adopt"})
		resolved = append(resolved, rs.GetUID())
		made, err := fc.createRecordSet(cloudRecordSet{Zone: "zone-a", Name: "www-adopt", Type: "A", TTL: 300, RRDatas: []string{"192.0.2.10"}, Tags: crossplaneTags("RecordSet", "www-adopt")})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := recovery.Run(ctx, e.options(rs.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.annotations(ctx, rs)[recovery.AnnotationExternalName]; got != made.ID || rep.Summary.Adopted != 1 {
			t.Errorf("external-name %q (summary %+v), want %q adopted: the 409 must be resolved, not retried", got, rep.Summary, made.ID)
		}
	})

	row("NotOursConflicts", func(t *testing.T) {
		// A same-name record created outside Crossplane: no crossplane tags.
		foreign, err := fc.createRecordSet(cloudRecordSet{Zone: "zone-c", Name: "www-taken", Type: "A", RRDatas: []string{"192.0.2.9"}})
		if err != nil {
			t.Fatal(err)
		}
		rs := newRecordSet("www-taken", "zone-c")
		e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-c", "name": "www-taken"})
		resolved = append(resolved, rs.GetUID())
		rep, err := recovery.Run(ctx, e.options(rs.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if diff := cmp.Diff(map[string][]report.Outcome{"www-taken": {report.OutcomeConflict}}, outcomes(rep)); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		a := e.annotations(ctx, rs)
		if a[recovery.AnnotationPaused] != "true" {
			t.Error("a conflicting MR must be paused")
		}
		if _, ok := a[recovery.AnnotationExternalName]; ok {
			t.Error("a resource that is not ours was adopted")
		}
		if !strings.Contains(rep.Entries[0].Action, foreign.ID) {
			t.Errorf("the action does not name the foreign resource %s: %q", foreign.ID, rep.Entries[0].Action)
		}
		if got := e.state(ctx, rs.GetUID()); got != journal.StateReported {
			t.Errorf("journal state %s, want reported", got)
		}
		if !e.hasEvent(ctx, "www-taken", recovery.EventConflict) {
			t.Errorf("no Event %s on www-taken", recovery.EventConflict)
		}
		if rep.NeedsAttention() != true {
			t.Error("a conflict must need attention (CLI exit code 3)")
		}
	})

	row("WeakProofArgsDifferConflicts", func(t *testing.T) {
		// Issue #29: a network with this MR's crossplane tags, made after
		// its create began (as another cluster's within the clock-skew
		// allowance), with another CIDR. The create sent no UID tag, so
		// only the weak crossplane-tags proof speaks for it, and the
		// arguments differ: someone else's, never adopted or touched.
		nw := newNetwork("weak-differ", "10.5.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		resolved = append(resolved, nw.GetUID())
		theirs := fc.createNetwork(cloudNetwork{Name: "weak-differ", CIDRBlock: "10.99.0.0/16", Tags: crossplaneTags("Network", "weak-differ")})
		rep, err := recovery.Run(ctx, e.options(nw.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if len(rep.Entries) != 1 || rep.Entries[0].Outcome != report.OutcomeConflict || rep.Entries[0].Reason != recovery.ReasonArgsDiffer {
			t.Fatalf("report %+v, want one conflict, %s", rep.Entries, recovery.ReasonArgsDiffer)
		}
		want := []report.Found{{ID: theirs.ID, Tags: theirs.Tags, CreatedAt: theirs.CreatedAt, LookAlike: true, Arguments: string(recovery.ArgsDifferent), ArgumentsDiffer: []string{"cidrBlock"}}}
		if diff := cmp.Diff(want, rep.Entries[0].Found, cmpopts.IgnoreFields(report.Found{}, "NotOurs")); diff != "" {
			t.Errorf("found (-want +got):\n%s", diff)
		}
		a := e.annotations(ctx, nw)
		if a[recovery.AnnotationPaused] != "true" {
			t.Error("the MR must be paused: its reconciler would rewrite the network's CIDR")
		}
		if _, ok := a[recovery.AnnotationExternalName]; ok {
			t.Error("a network that differs from the create was adopted")
		}
		if !e.hasEvent(ctx, "weak-differ", recovery.EventConflict) {
			t.Errorf("no Warning Event %s on weak-differ", recovery.EventConflict)
		}
		if got, err := fc.getNetwork(theirs.ID); err != nil || got.CIDRBlock != "10.99.0.0/16" || !cmp.Equal(got.Tags, theirs.Tags) {
			t.Errorf("their network: %+v, %v; want it untouched", got, err)
		}
		if got := e.state(ctx, nw.GetUID()); got != journal.StateReported {
			t.Errorf("journal state %s, want reported", got)
		}
	})

	row("StrongProofArgsDifferAdopts", func(t *testing.T) {
		// A network carrying this MR's UID tag is its own create's,
		// whatever its arguments: drifted, and the provider corrects it.
		nw := newNetwork("strong-differ", "10.6.0.0/16")
		e.beginUIDTagged(ctx, nw, "Network", nil)
		resolved = append(resolved, nw.GetUID())
		tags := crossplaneTags("Network", "strong-differ")
		tags[recovery.TagUID] = string(nw.GetUID())
		ours := fc.createNetwork(cloudNetwork{Name: "strong-differ", CIDRBlock: "10.66.0.0/16", Tags: tags})
		rep, err := recovery.Run(ctx, e.options(nw.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if diff := cmp.Diff(map[string][]report.Outcome{"strong-differ": {report.OutcomeAdopted}}, outcomes(rep)); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		if f := rep.Entries[0].Found; len(f) != 1 || f[0].Weak || f[0].Proof != string(recovery.ProofUID) {
			t.Errorf("found %+v, want one strong UIDTag proof", f)
		}
		if a := e.annotations(ctx, nw); a[recovery.AnnotationExternalName] != ours.ID {
			t.Errorf("external-name %q, want %s", a[recovery.AnnotationExternalName], ours.ID)
		}
	})

	row("SeveralAdoptsOldestReportsRest", func(t *testing.T) {
		nw := newNetwork("twice", "10.2.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		resolved = append(resolved, nw.GetUID())
		var ids []string
		// Made one after another, a millisecond apart by the cloud's clock.
		first := time.Now()
		for i := range 3 {
			n := fc.createNetwork(cloudNetwork{Name: "twice", CIDRBlock: "10.2.0.0/16", Tags: crossplaneTags("Network", "twice"), CreatedAt: first.Add(time.Duration(i) * time.Millisecond)})
			ids = append(ids, n.ID)
		}
		rep, err := recovery.Run(ctx, e.options(nw.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if got := e.annotations(ctx, nw)[recovery.AnnotationExternalName]; got != ids[0] {
			t.Errorf("adopted %q, want the oldest %q", got, ids[0])
		}
		if rep.Summary.Adopted != 1 || rep.Summary.Orphan != 2 {
			t.Errorf("summary %+v, want 1 adopted and 2 orphans", rep.Summary)
		}
		var orphans []string
		for _, en := range rep.Entries {
			if en.Outcome == report.OutcomeOrphan {
				orphans = append(orphans, en.Found[0].ID)
			}
		}
		// The report is sorted by found ID, not by age: compare as sets.
		slices.Sort(orphans)
		later := slices.Sorted(slices.Values(ids[1:]))
		if diff := cmp.Diff(later, orphans); diff != "" {
			t.Errorf("orphans reported (-want +got):\n%s", diff)
		}
	})

	row("DeletedMRIsOrphan", func(t *testing.T) {
		nw, made := e.deletedInFlight(ctx, "gone", "10.3.0.0/16", func(types.UID) map[string]string { return crossplaneTags("Network", "gone") })
		resolved = append(resolved, nw.GetUID())
		rep, err := recovery.Run(ctx, e.options(nw.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if rep.Summary.Orphan != 1 || rep.Entries[0].Found[0].ID != made.ID {
			t.Fatalf("report %+v, want the network %s reported as an orphan", rep.Summary, made.ID)
		}
		if _, err := fc.getNetwork(made.ID); err != nil {
			t.Errorf("without the delete-orphans policy the orphan must stay: %v", err)
		}
		if got := e.state(ctx, nw.GetUID()); got != journal.StateReported {
			t.Errorf("journal state %s, want reported", got)
		}
	})

	row("DeletedMROrphanDeletedUnderPolicy", func(t *testing.T) {
		nw, made := e.deletedInFlight(ctx, "gone-delete", "10.4.0.0/16", func(uid types.UID) map[string]string { return uidTags("Network", "gone-delete", uid) })
		resolved = append(resolved, nw.GetUID())
		o := e.options(nw.GetUID())
		o.Policy.DeleteOrphans = true
		if _, err := recovery.Run(ctx, o); err != nil {
			t.Fatal(err)
		}
		if _, err := fc.getNetwork(made.ID); !errors.Is(err, errNotFound) {
			t.Errorf("under delete-orphans an orphan proven by its UID tag must be deleted; GetNetwork: %v", err)
		}
	})

	row("DeletedMRTagsOnlyOrphanKept", func(t *testing.T) {
		// Crossplane tags alone never delete: any cluster with the same
		// manifests writes the same ones.
		nw, made := e.deletedInFlight(ctx, "gone-tags-only", "10.14.0.0/16", func(types.UID) map[string]string { return crossplaneTags("Network", "gone-tags-only") })
		resolved = append(resolved, nw.GetUID())
		o := e.options(nw.GetUID())
		o.Policy.DeleteOrphans = true
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Orphan != 1 || rep.Entries[0].Found[0].Proof != string(recovery.ProofTags) {
			t.Errorf("report %+v, want one orphan proven by crossplane tags", rep.Entries)
		}
		if _, err := fc.getNetwork(made.ID); err != nil {
			t.Errorf("an orphan proven by crossplane tags alone was deleted: %v", err)
		}
	})

	row("LookAlikeOnlyNameKeyedConflicts", func(t *testing.T) {
		// Another cluster's RecordSet with this MR's name, zone and
		// crossplane tags, made before the MR existed.
		theirs, err := fc.createRecordSet(cloudRecordSet{Zone: "zone-la", Name: "www-la", Type: "A", RRDatas: []string{"192.0.2.7"}, Tags: crossplaneTags("RecordSet", "www-la")})
		if err != nil {
			t.Fatal(err)
		}
		rs := newRecordSet("www-la", "zone-la")
		e.beginUIDTagged(ctx, rs, "RecordSet", map[string]string{"zone": "zone-la", "name": "www-la"})
		resolved = append(resolved, rs.GetUID())
		o := e.options(rs.GetUID())
		o.Policy.DeleteOrphans = true
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if len(rep.Entries) != 1 || rep.Entries[0].Outcome != report.OutcomeConflict || rep.Entries[0].Reason != recovery.ReasonLookAlike {
			t.Fatalf("entries %+v, want one conflict %s", rep.Entries, recovery.ReasonLookAlike)
		}
		if f := rep.Entries[0].Found; len(f) != 1 || !f[0].LookAlike || f[0].Owned || f[0].NotOurs == "" {
			t.Errorf("found %+v, want the look-alike marked not ours, with why", f)
		}
		if a := rep.Entries[0].Action; !strings.Contains(a, theirs.ID) || !strings.Contains(a, "Do not adopt") {
			t.Errorf("action %q must name the look-alike and warn against adopting it", a)
		}
		a := e.annotations(ctx, rs)
		if a[recovery.AnnotationPaused] != "true" || a[recovery.AnnotationExternalName] != "" {
			t.Errorf("annotations %v: want paused and no external name", a)
		}
		if got, err := fc.getRecordSet(theirs.ID); err != nil || got.ID != theirs.ID {
			t.Errorf("the look-alike was touched: %v", err)
		}
		if !e.hasEvent(ctx, "www-la", recovery.EventConflict) {
			t.Errorf("no Event %s on www-la", recovery.EventConflict)
		}
	})

	row("LookAlikeBesideOursAdoptsOurs", func(t *testing.T) {
		theirs := fc.createNetwork(cloudNetwork{Name: "vpc-la", Tags: crossplaneTags("Network", "vpc-la")})
		nw := newNetwork("vpc-la", "10.6.0.0/16")
		e.beginUIDTagged(ctx, nw, "Network", nil)
		resolved = append(resolved, nw.GetUID())
		ours := fc.createNetwork(cloudNetwork{Name: "vpc-la", Tags: uidTags("Network", "vpc-la", nw.GetUID())})
		o := e.options(nw.GetUID())
		o.Policy.DeleteOrphans = true
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if got := e.annotations(ctx, nw)[recovery.AnnotationExternalName]; got != ours.ID {
			t.Errorf("external-name %q, want our own %s, never the older look-alike %s", got, ours.ID, theirs.ID)
		}
		if diff := cmp.Diff(map[string][]report.Outcome{"vpc-la": {report.OutcomeAdopted}}, outcomes(rep)); diff != "" {
			t.Errorf("report (-want +got): the look-alike is no orphan of ours\n%s", diff)
		}
		look := map[string]bool{}
		for _, f := range rep.Entries[0].Found {
			look[f.ID] = f.LookAlike
		}
		if diff := cmp.Diff(map[string]bool{theirs.ID: true, ours.ID: false}, look); diff != "" {
			t.Errorf("look-alike marks (-want +got):\n%s", diff)
		}
		if _, err := fc.getNetwork(theirs.ID); err != nil {
			t.Errorf("the look-alike was deleted under delete-orphans: %v", err)
		}
		if !e.hasEvent(ctx, "vpc-la", recovery.EventLookAlike) {
			t.Errorf("no Event %s on vpc-la", recovery.EventLookAlike)
		}
	})

	row("LookAlikeOnlyIDKeyedClears", func(t *testing.T) {
		theirs := fc.createNetwork(cloudNetwork{Name: "vpc-la2", Tags: crossplaneTags("Network", "vpc-la2")})
		nw := newNetwork("vpc-la2", "10.7.0.0/16")
		e.beginUIDTagged(ctx, nw, "Network", nil)
		resolved = append(resolved, nw.GetUID())
		rep, err := recovery.Run(ctx, e.options(nw.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string][]report.Outcome{"vpc-la2": {report.OutcomeCleared}}, outcomes(rep)); diff != "" {
			t.Errorf("report (-want +got): a look-alike found by tags must not block our create\n%s", diff)
		}
		a := e.annotations(ctx, nw)
		if a[recovery.AnnotationPaused] != "" || a[recovery.AnnotationExternalName] != "" || a[recovery.AnnotationExternalCreatePending] != "" {
			t.Errorf("annotations %v: want the create free to run, nothing adopted", a)
		}
		if !strings.Contains(rep.Entries[0].Action, theirs.ID) {
			t.Errorf("action %q does not name the look-alike %s", rep.Entries[0].Action, theirs.ID)
		}
		if !e.hasEvent(ctx, "vpc-la2", recovery.EventLookAlike) {
			t.Errorf("no Event %s on vpc-la2", recovery.EventLookAlike)
		}
	})

	row("NoIntentLookAlikeConflictIsRecorded", func(t *testing.T) {
		// Killed before Begin: only crossplane-runtime's pending mark, on an
		// MR whose spec carries its UID tag. The look-alike holding its key
		// is a conflict, and the resource records it as reported, so a pass
		// killed before its report leaves the reason on the resource.
		theirs, err := fc.createRecordSet(cloudRecordSet{Zone: "zone-ni", Name: "www-ni", Type: "A", RRDatas: []string{"192.0.2.5"}, Tags: crossplaneTags("RecordSet", "www-ni")})
		if err != nil {
			t.Fatal(err)
		}
		rs := newRecordSet("www-ni", "zone-ni")
		rs.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: time.Now().Format(time.RFC3339)})
		if err := e.client.Create(ctx, rs); err != nil {
			t.Fatal(err)
		}
		setSpecTags(t, rs, map[string]string{recovery.TagUID: string(rs.GetUID())})
		if err := e.client.Update(ctx, rs); err != nil {
			t.Fatal(err)
		}
		resolved = append(resolved, rs.GetUID())
		rep, err := recovery.Run(ctx, e.options(rs.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Entries) != 1 || rep.Entries[0].Reason != recovery.ReasonLookAlike {
			t.Fatalf("entries %+v, want one %s conflict over %s", rep.Entries, recovery.ReasonLookAlike, theirs.ID)
		}
		a := e.annotations(ctx, rs)
		in, has, err := journal.AnnotationIntent(a)
		if a[recovery.AnnotationPaused] != "true" || !has || err != nil || in.State != journal.StateReported || in.Outcome.Reason != recovery.ReasonLookAlike {
			t.Errorf("annotations %v (intent %+v, %v): want paused, and an intent annotation reported as %s", a, in, err, recovery.ReasonLookAlike)
		}
	})

	row("PreUpgradeIntentOlderLookAlikeConflicts", func(t *testing.T) {
		// An intent from before the UID tag: crossplane tags prove
		// ownership only of a resource created after the create began.
		// Theirs was made a second before it, by the cloud's clock.
		theirs, err := fc.createRecordSet(cloudRecordSet{Zone: "zone-old", Name: "www-old", Type: "A", RRDatas: []string{"192.0.2.8"}, Tags: crossplaneTags("RecordSet", "www-old"), CreatedAt: time.Now().Add(-time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		rs := newRecordSet("www-old", "zone-old")
		e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-old", "name": "www-old"})
		resolved = append(resolved, rs.GetUID())
		o := e.options(rs.GetUID())
		o.Policy.ClockSkew = time.Millisecond
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Entries) != 1 || rep.Entries[0].Reason != recovery.ReasonLookAlike || rep.Entries[0].ExternalName != "" {
			t.Fatalf("entries %+v, want a %s conflict over %s", rep.Entries, recovery.ReasonLookAlike, theirs.ID)
		}
	})

	row("LookupFailedStaysUnresolvedThenResolves", func(t *testing.T) {
		nw := newNetwork("flaky", "10.5.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		resolved = append(resolved, nw.GetUID())
		fc.setFailReads(true)
		o := e.options(nw.GetUID())
		o.Gate = recovery.NewGate()
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if rep.Summary.Unresolved != 1 || rep.Entries[0].Reason != recovery.ReasonLookupFailed {
			t.Fatalf("report %+v %v, want one unresolved LookupFailed", rep.Summary, rep.Entries)
		}
		if err := o.Gate.Allow(nw.GetUID()); !errors.Is(err, recovery.ErrIntentUnresolved) {
			t.Errorf("the gate must stay shut for an unresolved intent: %v", err)
		}
		if err := o.Gate.Allow("some-other-uid"); err != nil {
			t.Errorf("the gate must be open for resources without intents after the scan: %v", err)
		}
		if got := e.state(ctx, nw.GetUID()); got != journal.StateDispatched {
			t.Errorf("journal state %s: an unresolved intent must be kept", got)
		}
		fc.setFailReads(false)
		rep, err = recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Cleared != 1 {
			t.Errorf("after the cloud recovers the retry must resolve it: %+v", rep.Summary)
		}
		if err := o.Gate.Allow(nw.GetUID()); err != nil {
			t.Errorf("the gate must open once resolved: %v", err)
		}
	})

	row("ResolveObjectForTheCreatePath", func(t *testing.T) {
		nw := newNetwork("single", "10.10.0.0/16")
		resolved = append(resolved, nw.GetUID())
		e.begin(ctx, nw, "Network", nil)
		made := fc.createNetwork(cloudNetwork{Name: "single", CIDRBlock: "10.10.0.0/16", Tags: crossplaneTags("Network", "single")})
		r, err := recovery.NewResolver(e.options())
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gkNetwork.WithVersion(memVersion))
		if err := e.client.Get(ctx, client.ObjectKeyFromObject(nw), u); err != nil {
			t.Fatal(err)
		}
		entries, ok, err := r.ResolveObject(ctx, u)
		if err != nil || !ok || len(entries) != 1 || entries[0].Outcome != report.OutcomeAdopted {
			t.Fatalf("ResolveObject = %+v, %v, %v; want one adopted entry", entries, ok, err)
		}
		if diff := cmp.Diff([]string{report.SourceJournal, report.SourceAnnotation, report.SourceIncompleteCreate}[0:1], entries[0].Sources[0:1]); diff != "" {
			t.Errorf("sources (-want +got):\n%s", diff)
		}
		if got := e.annotations(ctx, nw)[recovery.AnnotationExternalName]; got != made.ID {
			t.Errorf("external-name %q, want %q", got, made.ID)
		}
		// The caller's object is resolved in place, to what the API
		// server holds: its metadata from the patch's answer, the rest
		// unchanged by the patch (#34).
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(u.GroupVersionKind())
		if err := e.client.Get(ctx, client.ObjectKeyFromObject(nw), live); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(live.Object, u.Object); diff != "" {
			t.Errorf("the resolved object is not the API server's (-server +resolved):\n%s", diff)
		}
		if _, ok, err := r.ResolveObject(ctx, u); ok || err != nil {
			t.Errorf("a resolved resource has nothing left: ok %v err %v", ok, err)
		}
	})
}

// TestSelectorLimitsAnnotationScan: a label shard's pass sees only its own
// shard's managed resources. Both RecordSets have an incomplete create and
// no intent (annotation-only mode, no journal); only shard a's is resolved,
// and shard b's is left exactly as it was.
func TestSelectorLimitsAnnotationScan(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	objs := map[string]client.Object{}
	for _, shard := range []string{"a", "b"} {
		rs := newRecordSet("sel-"+shard, "zone-sel")
		rs.SetLabels(map[string]string{"intentjournal.io/shard": shard})
		rs.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
		if err := e.client.Create(ctx, rs); err != nil {
			t.Fatal(err)
		}
		objs[shard] = rs
	}
	before := e.annotations(ctx, objs["b"])
	sel, err := labels.Parse("intentjournal.io/shard=a")
	if err != nil {
		t.Fatal(err)
	}
	o := e.options()
	o.Journal, o.Scope, o.Selector = nil, nil, sel
	rep, err := recovery.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, rep)
	want := map[string][]report.Outcome{"sel-a": {report.OutcomeCleared}}
	if diff := cmp.Diff(want, outcomes(rep)); diff != "" {
		t.Errorf("outcomes with selector shard=a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, e.annotations(ctx, objs["b"])); diff != "" {
		t.Errorf("shard b's resource changed (-before +after):\n%s", diff)
	}
	if _, ok := e.annotations(ctx, objs["a"])[recovery.AnnotationExternalCreatePending]; ok {
		t.Errorf("shard a's incomplete create was not cleared")
	}
}
