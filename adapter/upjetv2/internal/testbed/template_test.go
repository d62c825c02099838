package testbed

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	namespacedv1alpha1 "github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/apis/namespaced/v1alpha1"
	"github.com/intentjournal/intentjournal/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/recovery"
)

// perNamespaceRecord is how many Records each namespace gets, named alike.
const perNamespaceRecord = 10

// TestWrappedProviderCrashTemplate is TestWrappedProviderCrash for the
// observe-by-template strategy: the GCP-like Record (IdentifierFromProvider,
// no tags, an ID composed from its spec), found by the ID its template
// renders from the MR's spec, through the provider's own Observe. The
// provider is SIGKILLed with every create in flight and restarted.
//
// A Record carries no tags, so nothing in the cloud can prove that the
// record at its ID is the one its create made rather than another
// cluster's: recovery must not adopt it. It must find exactly that one
// record and report it, pausing the MR, with nothing created twice and no
// 409 after the restart. The test then does what the report's action
// tells an operator, sets crossplane.io/external-name to the reported ID
// and unpauses, and requires every MR Ready and bound to its own record.
func TestWrappedProviderCrashTemplate(t *testing.T) {
	bins := BuildBinaries(t)
	const createLatency = 3 * time.Second
	dir := t.TempDir()
	report := filepath.Join(dir, "recovery-report.json")
	tb := New(t, bins, Options{
		FakeCloudArgs: []string{fmt.Sprintf(`--faults={"latency":{"create":%q}}`, createLatency)},
		ProviderArgs: []string{"--max-reconcile-rate=100", "--journal=" + filepath.Join(dir, "intents.db"),
			"--recovery-report=" + report},
		Namespaces: namespaces,
	})
	cl, fc, prov := tb.Cluster, tb.FakeCloud, tb.Provider
	const total = perNamespaceRecord * 2
	for _, ns := range namespaces {
		for i := range perNamespaceRecord {
			Create(t, cl, NewNamespacedRecord(ns, fmt.Sprintf("rec-%02d", i), ns+"-"+zone))
		}
	}
	records := []func() resource.ManagedList{NamespacedRecords}
	Eventually(t, time.Minute, 50*time.Millisecond, "every async create to be dispatched", func() (bool, error) {
		for _, mg := range listAll(t, cl, records) {
			if meta.GetExternalCreateSucceeded(mg).IsZero() {
				return false, nil
			}
		}
		return true, nil
	})
	prov.Kill()
	killedAt := time.Now()
	inFlight := map[string]bool{} // by UID: the MRs with no external name at the kill
	for _, mg := range listAll(t, cl, records) {
		if ExternalName(mg) == "" {
			inFlight[string(mg.GetUID())] = true
		}
	}
	t.Logf("at SIGKILL: %d of %d creates in flight", len(inFlight), total)
	if len(inFlight) == 0 {
		t.Fatal("no create was in flight at SIGKILL: the test shows nothing")
	}
	Eventually(t, 2*createLatency, 100*time.Millisecond, "the fake cloud to commit every create", func() (bool, error) {
		return fc.Stats(t).Kinds["recordsets"].Creates == total, nil
	})
	conflictsAtRestart := fc.Stats(t).Kinds["recordsets"].Conflicts

	prov.Restart()
	// Every in-flight MR is paused by the recovery pass (its record is
	// found and not proven its), every other one becomes Ready.
	Eventually(t, 3*time.Minute, 200*time.Millisecond, "every Record to be Ready or paused", func() (bool, error) {
		for _, mg := range listAll(t, cl, records) {
			if !IsReady(mg) && !meta.IsPaused(mg) {
				return false, nil
			}
		}
		return true, nil
	})
	recovered := time.Since(killedAt).Round(time.Second)
	rep, err := recovery.ReadReportFile(report)
	if err != nil {
		t.Fatalf("the recovery report: %v", err)
	}
	if rep.Summary.Unresolved != 0 || rep.Summary.Adopted != 0 || rep.Summary.Orphan != 0 {
		t.Errorf("recovery report summary %+v: want nothing unresolved, adopted or orphaned for a kind with no tags", rep.Summary)
	}
	reported := map[string]string{} // by UID: the one ID the lookup found
	for _, e := range rep.Entries {
		if e.Resource.Kind != "Record" {
			continue
		}
		if e.Outcome != recovery.OutcomeConflict || e.Reason != recovery.ReasonNotOurs || len(e.Found) != 1 {
			t.Errorf("%s/%s: %s/%s, found %+v; want a conflict (NotOurs) naming the one record at its ID", e.Resource.Namespace, e.Resource.Name, e.Outcome, e.Reason, e.Found)
			continue
		}
		reported[e.Resource.UID] = e.Found[0].ID
	}

	// The operator's step, as the report's action says.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, mg := range listAll(t, cl, records) {
		r := mg.(*namespacedv1alpha1.Record)
		want := tfprovider.RecordID(*r.Spec.ForProvider.Zone, *r.Spec.ForProvider.Name, *r.Spec.ForProvider.Type)
		uid := string(r.GetUID())
		if !inFlight[uid] {
			continue
		}
		if reported[uid] != want {
			t.Errorf("%s: the report names %q, want the record its spec renders, %q", Key(r), reported[uid], want)
			continue
		}
		if !meta.IsPaused(r) {
			t.Errorf("%s: in flight at the kill and found, but not paused", Key(r))
		}
		meta.SetExternalName(r, reported[uid])
		meta.RemoveAnnotations(r, meta.AnnotationKeyReconciliationPaused)
		if err := cl.Client.Update(ctx, r); err != nil {
			t.Fatalf("cannot adopt %s as the report says: %v", Key(r), err)
		}
	}
	WaitReady(t, cl, 3*time.Minute, total, records...)
	converged := time.Since(killedAt).Round(time.Second)

	s := fc.Stats(t)
	k := s.Kinds["recordsets"]
	if k.Creates != total || k.Live != total {
		t.Errorf("records: %d creates, %d live; want %d and %d: no create may run twice", k.Creates, k.Live, total, total)
	}
	conflicts := k.Conflicts - conflictsAtRestart
	if conflicts != 0 {
		t.Errorf("%d 409s after the restart, want 0", conflicts)
	}
	bound := 0
	for _, mg := range listAll(t, cl, records) {
		r := mg.(*namespacedv1alpha1.Record)
		want := tfprovider.RecordID(*r.Spec.ForProvider.Zone, *r.Spec.ForProvider.Name, *r.Spec.ForProvider.Type)
		if ExternalName(r) != want || meta.IsPaused(r) {
			t.Errorf("%s is bound to %q (paused %t), want %q", Key(r), ExternalName(r), meta.IsPaused(r), want)
			continue
		}
		bound++
	}
	t.Logf("observe-by-template: %d creates in flight at the kill; recovery reported %d (found at the rendered ID, not provable: no tags) and adopted %d; "+
		"paused MRs reached %s after SIGKILL; after the operator's adoption %d/%d MRs bound to their own record, converged %s; 409s after restart %d; duplicates %d",
		len(inFlight), len(reported), rep.Summary.Adopted, recovered, bound, total, converged, conflicts, k.Creates-total)
}
