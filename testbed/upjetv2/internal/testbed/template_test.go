package testbed

import (
	"fmt"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
)

// perNamespaceRecord is how many Records each namespace gets, named alike.
const perNamespaceRecord = 10

// TestWrappedProviderCrashTemplate is TestWrappedProviderCrash for the
// observe-by-template strategy: the GCP-like Record (IdentifierFromProvider,
// no tags, an ID composed from its spec), found by the ID its template
// renders from the MR's spec, through the provider's own Observe. The
// provider is SIGKILLed with every create in flight and restarted.
//
// A Record carries no tags. What proves the record at its ID the create's
// own is the key probe (upjetv2.WithVacantKeys): just before the intent
// began, a read found that ID free, so whatever sits there now was created
// after it. That holds only if no other managed resource claims the same
// key, so the test adds twins: a Record of one zone, name and type in
// each of the two namespaces. Both creates race, one meets 409, and which
// made the record cannot be told from what either carries.
//
// The test requires every other in-flight Record adopted on the
// key-vacant proof (or on its recorded ID, when the create's callback had
// recorded it but not settled it at the kill), with no operator, Ready and bound to its own record;
// nothing created twice; no 409 after the restart; and of the twins, at
// most one bound and every other one paused and reported.
func TestWrappedProviderCrashTemplate(t *testing.T) {
	b := newStrategyBed(t)
	cl, fc := b.Cluster, b.FakeCloud
	const (
		unique   = perNamespaceRecord * 2 // one key each
		twinZone = "shared-zone"
		twinName = "twin"
		total    = unique + 2 // the twins: one key between them
		records  = unique + 1 // in the cloud
	)
	for _, ns := range namespaces {
		for i := range perNamespaceRecord {
			Create(t, cl, NewNamespacedRecord(ns, fmt.Sprintf("rec-%02d", i), ns+"-"+zone))
		}
		Create(t, cl, NewNamespacedRecord(ns, twinName, twinZone))
	}
	isTwin := func(mg resource.Managed) bool { return mg.GetName() == twinName }
	kinds := []func() resource.ManagedList{NamespacedRecords}
	killedAt := b.killWhenDispatched(t, kinds...)
	inFlight := map[string]bool{} // by UID: the non-twin MRs with no external name at the kill
	for _, mg := range listAll(t, cl, kinds) {
		if ExternalName(mg) == "" && !isTwin(mg) {
			inFlight[string(mg.GetUID())] = true
		}
	}
	t.Logf("at SIGKILL: %d of %d creates in flight, and the twins", len(inFlight), unique)
	if len(inFlight) == 0 {
		t.Fatal("no create was in flight at SIGKILL: the test shows nothing")
	}
	conflictsAtRestart := b.waitCommitted(t, "recordsets", records)

	b.restart(t)
	// Every MR becomes Ready but the twins, which may be paused.
	Eventually(t, 3*time.Minute, 200*time.Millisecond, "every Record to be Ready, and the twins Ready or paused", func() (bool, error) {
		for _, mg := range listAll(t, cl, kinds) {
			if !IsReady(mg) && !(isTwin(mg) && meta.IsPaused(mg)) {
				return false, nil
			}
		}
		return true, nil
	})
	converged := time.Since(killedAt).Round(time.Second)
	rep := b.readReport(t)
	entries := map[string]*report.Entry{} // by UID
	for _, e := range rep.Entries {
		if e.Resource.Kind == "Record" {
			entries[e.Resource.UID] = e
		}
	}
	if rep.Summary.Unresolved != 0 || rep.Summary.Orphan != 0 {
		t.Errorf("recovery report summary %+v: want nothing unresolved or orphaned", rep.Summary)
	}

	s := fc.Stats(t)
	k := s.Kinds["recordsets"]
	if k.Creates != records || k.Live != records {
		t.Errorf("records: %d creates, %d live; want %d and %d: no create may run twice", k.Creates, k.Live, records, records)
	}
	conflicts := k.Conflicts - conflictsAtRestart
	if conflicts != 0 {
		t.Errorf("%d 409s after the restart, want 0", conflicts)
	}
	adopted, bound, twinsBound, twinsPaused := 0, 0, 0, 0
	proofs := map[string]int{}
	for _, mg := range listAll(t, cl, kinds) {
		r := mg.(*namespacedv1alpha1.Record)
		want := tfprovider.RecordID(*r.Spec.ForProvider.Zone, *r.Spec.ForProvider.Name, *r.Spec.ForProvider.Type)
		uid := string(r.GetUID())
		e, reported := entries[uid]
		if isTwin(r) {
			switch {
			case ExternalName(r) == want && !meta.IsPaused(r):
				twinsBound++
			case meta.IsPaused(r) && reported && e.Outcome == report.OutcomeConflict:
				twinsPaused++
				t.Logf("twin %s: %s (%s): %s", Key(r), e.Outcome, e.Reason, e.Message)
			default:
				t.Errorf("twin %s: bound to %q, paused %t, report %+v; want bound to %q, or paused and reported as a conflict", Key(r), ExternalName(r), meta.IsPaused(r), e, want)
			}
			continue
		}
		if ExternalName(r) != want || meta.IsPaused(r) {
			t.Errorf("%s is bound to %q (paused %t), want %q", Key(r), ExternalName(r), meta.IsPaused(r), want)
			continue
		}
		bound++
		if !inFlight[uid] {
			continue
		}
		// RecordedID: the create's callback had recorded its result in
		// the journal, but not yet settled it, when the kill came.
		if !reported || e.Outcome != report.OutcomeAdopted || len(e.Found) != 1 || e.Found[0].ID != want ||
			(e.Found[0].Proof != string(recovery.ProofKeyVacant) && e.Found[0].Proof != string(recovery.ProofRecordedID)) {
			t.Errorf("%s: in flight at the kill; report %+v; want adopted at %q on the %s (or %s) proof", Key(r), e, want, recovery.ProofKeyVacant, recovery.ProofRecordedID)
			continue
		}
		adopted++
		proofs[e.Found[0].Proof]++
	}
	if twinsBound > 1 || twinsBound+twinsPaused != 2 {
		t.Errorf("twins: %d bound, %d paused; want at most one bound and the rest paused", twinsBound, twinsPaused)
	}
	t.Logf("observe-by-template: %d creates in flight at the kill; %d adopted with no operator (proofs %v); %d/%d MRs bound to their own record, converged %s after SIGKILL; "+
		"twins: %d bound, %d paused and reported; 409s after restart %d; duplicates %d",
		len(inFlight), adopted, proofs, bound, unique, converged, twinsBound, twinsPaused, conflicts, k.Creates-records)
}
