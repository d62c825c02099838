package testbed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/intentjournal/intentjournal/recovery/report"
)

// TestWrappedProviderCrash is TestProviderCrashDuringAsyncCreate with the
// provider wrapped (--journal): the same SIGKILL with every create of both
// scopes in flight, and MRs of the same names in two namespaces. After the
// restart every MR must be Ready and bound to the one cloud object its
// create made, with no duplicate and no 409 after the restart, and the
// recovery report must account for every in-flight create. Addresses go
// through upjet's framework connector, wrapped like the SDK kinds.
//
// The Deterministic row sets crossplane-runtime's
// WithDeterministicExternalName. Under it the managed reconciler does not
// stop at an incomplete create ("cannot determine creation result"): it
// goes ahead and calls Create again. The Gate and the intent are then all
// that stands between the crash and a repeat create.
func TestWrappedProviderCrash(t *testing.T) {
	bins := BuildBinaries(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{name: "Default"},
		{name: "Deterministic", args: []string{"--deterministic-external-name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Longer than the strategy tests' createLatency: 60 MRs of
			// both scopes take up to 2.5 s to all be dispatched here (the
			// framework-served Addresses last, about 20 a second), and
			// at 3 s the first creates then often ended before the last
			// was dispatched: on a quiet machine, 4 of 12 subtest runs of
			// 0c5ec11 killed the provider with no cluster-scoped create
			// in flight.
			const createLatency = 8 * time.Second
			dir := t.TempDir()
			reportPath := filepath.Join(dir, "recovery-report.json")
			tb := New(t, bins, Options{
				FakeCloudArgs: []string{fmt.Sprintf(`--faults={"latency":{"create":%q}}`, createLatency)},
				ProviderArgs: append([]string{"--max-reconcile-rate=100", "--journal=" + filepath.Join(dir, "intents.db"),
					"--recovery-report=" + reportPath}, tc.args...),
				Namespaces: namespaces,
			})
			cl, fc, prov := tb.Cluster, tb.FakeCloud, tb.Provider

			createResources(t, cl)
			all := allKinds()
			Eventually(t, time.Minute, 50*time.Millisecond, "every async create to be dispatched", func() (bool, error) {
				for _, mg := range listAll(t, cl, all) {
					if meta.GetExternalCreateSucceeded(mg).IsZero() {
						return false, nil
					}
				}
				return true, nil
			})
			prov.Kill()
			killedAt := time.Now()
			inFlight, namespaced := 0, 0
			unbound := map[string]bool{} // by UID: the MRs with no external name at the kill
			for _, mg := range listAll(t, cl, all) {
				if ExternalName(mg) == "" {
					unbound[string(mg.GetUID())] = true
					inFlight++
					if mg.GetNamespace() != "" {
						namespaced++
					}
				}
			}
			t.Logf("at SIGKILL: %d of %d creates in flight (%d namespaced)", inFlight, totalMRs, namespaced)
			if namespaced == 0 || inFlight == namespaced {
				t.Fatalf("creates of both scopes must be in flight at SIGKILL for the test to show anything")
			}
			Eventually(t, 2*createLatency, 100*time.Millisecond, "the fake cloud to commit every create", func() (bool, error) {
				s := fc.Stats(t)
				return s.Kinds["recordsets"].Creates == perKind && s.Kinds["networks"].Creates == perKind &&
					s.Kinds["addresses"].Creates == perAddress, nil
			})
			conflictsAtRestart := fc.Stats(t).Kinds["recordsets"].Conflicts

			// The restarted boot's report replaces the killed one's only
			// once its pass has patched every MR it decided for.
			if err := os.Remove(reportPath); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("cannot remove the killed boot's recovery report: %v", err)
			}
			prov.Restart()
			WaitReady(t, cl, 3*time.Minute, perKind, recordSets...)
			WaitReady(t, cl, 3*time.Minute, perKind, networks...)
			WaitReady(t, cl, 3*time.Minute, perAddress, addresses...)
			converged := time.Since(killedAt).Round(time.Second)

			s := fc.Stats(t)
			duplicates := int64(0)
			for kind, want := range map[string]int64{"recordsets": perKind, "networks": perKind, "addresses": perAddress} {
				k := s.Kinds[kind]
				if k.Creates != want || k.Live != want {
					t.Errorf("%s: %d creates, %d live; want %d and %d: no create may run twice", kind, k.Creates, k.Live, want, want)
				}
				duplicates += k.Creates - want
			}
			conflicts := s.Kinds["recordsets"].Conflicts - conflictsAtRestart
			if conflicts != 0 {
				t.Errorf("%d RecordSet 409s after the restart, want 0", conflicts)
			}
			mrs := listAll(t, cl, all)
			byMR := idsByMR(mrs, slices.Concat(cloudRecordSets(s), cloudNetworks(s), cloudAddresses(s)))
			unboundAfter := 0
			for _, mg := range mrs {
				ids := byMR[scopeKey(mg)]
				if len(ids) != 1 || ids[0] != ExternalName(mg) {
					unboundAfter++
					t.Errorf("%s is bound to %q; its cloud objects are %v: want exactly one, and bound", scopeKey(mg), ExternalName(mg), ids)
				}
			}

			rep := waitReport(t, reportPath)
			// Every create in flight at the kill is either adopted by the
			// recovery pass or settled by the create path's own conflict
			// handling before it; none is left open.
			if rep.Summary.Unresolved != 0 || rep.Summary.Conflict != 0 || rep.Summary.Orphan != 0 {
				t.Errorf("recovery report summary %+v: want no unresolved, conflict or orphan", rep.Summary)
			}
			t.Logf("%s: converged %s after SIGKILL; %d creates in flight at the kill; recovery adopted %d, cleared %d; "+
				"409s after restart %d; duplicates %d; unbound %d",
				tc.name, converged, inFlight, rep.Summary.Adopted, rep.Summary.Cleared, conflicts, duplicates, unboundAfter)
			// Every MR with no external name at the kill had its create in
			// flight, and the recovery pass must adopt it. A kill between the
			// callback's external-name patch and its final settle leaves an
			// MR bound with its intent still open: the pass adopts that one
			// too (it sets the name, then settles), so the pass may adopt
			// more than inFlight, but only MRs of this test.
			adopted := map[string]bool{}
			for _, e := range rep.Entries {
				if e.Outcome == report.OutcomeAdopted {
					adopted[e.Resource.UID] = true
				}
			}
			for uid := range unbound {
				if !adopted[uid] {
					t.Errorf("the MR with UID %s had no external name at the kill, but the recovery pass did not adopt it", uid)
				}
			}
			// The provider's pass reads each journal candidate from the
			// manager's cache (#34): no miss, and a live read only for a
			// decision made again from a copy that proved stale.
			if tm := rep.Summary.Timings; tm == nil || tm.CacheReadCount == 0 || tm.CacheReadCount+tm.RereadCount != tm.ReadCount {
				t.Errorf("recovery timings %v: want every read of a journal candidate served by the cache, bar rereads", tm)
			}
			if rep.Summary.Adopted < inFlight || rep.Summary.Adopted > totalMRs {
				t.Errorf("the recovery pass adopted %d, want every one of the %d creates in flight at the kill and at most the %d MRs", rep.Summary.Adopted, inFlight, totalMRs)
			}
		})
	}
}
