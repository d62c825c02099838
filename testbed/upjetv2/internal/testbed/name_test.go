package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// perNamespaceBucket is how many Buckets each namespace gets. Bucket names
// are global in the cloud, so each namespace's are its own.
const perNamespaceBucket = 15

// TestWrappedProviderCrashName is TestWrappedProviderCrash for the
// observe-by-name strategy: the S3-like Bucket (ParameterAsIdentifier, so
// the external name is set before the create and is the Terraform ID, and
// the name is global in the cloud), found by the provider's own Observe of
// the intent's external name. The provider is SIGKILLed with creates in
// flight and restarted.
//
// The creates in flight at the kill are the journal's unsettled intents,
// read from the dead provider's journal before the restart: every Bucket
// is bound to its name from the start, so an empty external name cannot
// tell them. Each must be adopted by the recovery pass (its bucket carries
// the MR's intentjournal-uid tag), with nothing created twice, no 409
// after the restart, every MR Ready, unpaused and bound to the bucket
// that carries its own UID.
func TestWrappedProviderCrashName(t *testing.T) {
	b := newStrategyBed(t)
	cl, fc, prov := b.Cluster, b.FakeCloud, b.Provider
	reportPath := b.Report
	const total = perNamespaceBucket * 2
	for _, ns := range namespaces {
		for i := range perNamespaceBucket {
			Create(t, cl, NewNamespacedBucket(ns, fmt.Sprintf("%s-bkt-%02d", ns, i)))
		}
	}
	buckets := []func() resource.ManagedList{NamespacedBuckets}
	killedAt := b.killWhenDispatched(t, buckets...)
	inFlight := unsettledIntents(t, b.Journal)
	t.Logf("at SIGKILL: %d of %d creates in flight (unsettled intents in the journal)", len(inFlight), total)
	if len(inFlight) == 0 {
		t.Fatal("no create was in flight at SIGKILL: the test shows nothing")
	}
	for _, mg := range listAll(t, cl, buckets) {
		in, ok := inFlight[string(mg.GetUID())]
		if !ok {
			continue
		}
		if in.ExternalName != mg.GetName() || ExternalName(mg) != mg.GetName() {
			t.Errorf("%s: intent's external name %q, MR's %q; want both %q: the name is known before the create",
				Key(mg), in.ExternalName, ExternalName(mg), mg.GetName())
		}
	}
	conflictsAtRestart := b.waitCommitted(t, fakecloud.KindBuckets, total)

	// The first boot's report (a pass with nothing to do) goes, so that
	// the report read below is the restarted provider's: a Bucket has its
	// external name before the create, so its MR can be Ready before the
	// pass that adopts it has written its report.
	if err := os.Remove(reportPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cannot remove the first boot's recovery report: %v", err)
	}
	prov.Restart()
	WaitReady(t, cl, 3*time.Minute, total, buckets...)
	converged := time.Since(killedAt).Round(100 * time.Millisecond)

	rep := waitReport(t, reportPath)
	if rep.Summary.Unresolved != 0 || rep.Summary.Conflict != 0 || rep.Summary.Orphan != 0 {
		t.Errorf("recovery report summary %+v: want no unresolved, conflict or orphan", rep.Summary)
	}
	adopted := map[string]*report.Entry{}
	proofs := map[string]int{}
	for _, e := range rep.Entries {
		if e.Resource.Kind != "Bucket" {
			continue
		}
		if e.Outcome != report.OutcomeAdopted {
			t.Errorf("%s/%s: %s/%s (%s), found %+v; want adopted", e.Resource.Namespace, e.Resource.Name, e.Outcome, e.Reason, e.Message, e.Found)
			continue
		}
		adopted[e.Resource.UID] = e
		for _, f := range e.Found {
			if f.Adopted {
				proofs[f.Proof]++
			}
		}
	}
	for uid, in := range inFlight {
		e, ok := adopted[uid]
		if !ok {
			t.Errorf("%s was in flight at the kill, but the recovery pass did not adopt it", in.Resource)
			continue
		}
		if e.ExternalName != in.ExternalName {
			t.Errorf("%s: adopted as %q, want its intended name %q", in.Resource, e.ExternalName, in.ExternalName)
		}
	}

	s := fc.Stats(t)
	k := s.Kinds[fakecloud.KindBuckets]
	if k.Creates != total || k.Live != total {
		t.Errorf("buckets: %d creates, %d live; want %d and %d: no create may run twice", k.Creates, k.Live, total, total)
	}
	conflicts := k.Conflicts - conflictsAtRestart
	if conflicts != 0 {
		t.Errorf("%d 409s after the restart, want 0", conflicts)
	}
	byName := map[string]fakecloud.Bucket{}
	for _, b := range s.Objects.Buckets {
		byName[b.Name] = b
	}
	bound := 0
	for _, mg := range listAll(t, cl, buckets) {
		b, ok := byName[ExternalName(mg)]
		switch {
		case ExternalName(mg) != mg.GetName():
			t.Errorf("%s is bound to %q, want its own name", Key(mg), ExternalName(mg))
		case !ok:
			t.Errorf("%s is bound to %q, which is no bucket in the cloud", Key(mg), ExternalName(mg))
		case b.Tags[recovery.TagUID] != string(mg.GetUID()):
			t.Errorf("%s is bound to bucket %q, whose %s tag is %q, want its own UID %s", Key(mg), b.Name, recovery.TagUID, b.Tags[recovery.TagUID], mg.GetUID())
		case meta.IsPaused(mg):
			t.Errorf("%s is paused", Key(mg))
		default:
			bound++
		}
	}
	t.Logf("observe-by-name: %d creates in flight at the kill; recovery adopted %d (proofs %v), reported %d conflicts and %d unresolved; "+
		"all %d MRs Ready %s after SIGKILL; %d/%d bound to the bucket carrying their UID; 409s after restart %d; duplicates %d",
		len(inFlight), len(adopted), proofs, rep.Summary.Conflict, rep.Summary.Unresolved, total, converged, bound, total, conflicts, k.Creates-total)
}

// unsettledIntents opens the journal at path read-only, as the dead
// provider left it, and returns its unsettled intents by the managed
// resource's UID.
func unsettledIntents(t *testing.T, path string) map[string]journal.Intent {
	t.Helper()
	j, err := journal.Open(path, journal.WithReadOnly())
	if err != nil {
		t.Fatalf("cannot open the killed provider's journal: %v", err)
	}
	defer func() {
		if err := j.Close(); err != nil {
			t.Errorf("cannot close the journal: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	out := map[string]journal.Intent{}
	for in, err := range j.Unsettled(ctx) {
		if err != nil {
			t.Fatalf("cannot read the journal: %v", err)
		}
		out[in.Resource.UID] = in
	}
	return out
}
