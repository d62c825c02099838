package demo

import (
	"testing"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/recovery"
)

// mr returns a RecordSet MR called name, bound to externalName when set.
func mr(name, externalName string, ready, paused bool) resource.Managed {
	mg := newRecordSet(0)
	mg.SetName(name)
	if externalName != "" {
		meta.SetExternalName(mg, externalName)
	}
	if ready {
		mg.SetConditions(xpv1.Available())
	}
	if paused {
		meta.AddAnnotations(mg, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
	}
	return mg
}

func rs(id, mrName string) fakecloud.RecordSet {
	return fakecloud.RecordSet{ID: id, Tags: map[string]string{tagName: mrName}}
}

func net(id, mrName string) fakecloud.Network {
	return fakecloud.Network{ID: id, Tags: map[string]string{tagName: mrName}}
}

// TestMeasure checks the measurements of a run against hand-built MRs and
// fake cloud objects.
func TestMeasure(t *testing.T) {
	type want struct {
		inFlight                    int
		ready, paused, stuck, dupes int
		unbound                     []string
		conflicts                   int64
	}
	cases := map[string]struct {
		reason string
		mrs    []resource.Managed
		stats  fakecloud.Stats
		want   want
	}{
		"Clean": {
			reason: "Every object bound to its Ready MR: nothing to report.",
			mrs:    []resource.Managed{mr("a", "rs-1", true, false), mr("b", "net-1", true, false)},
			stats: fakecloud.Stats{Objects: fakecloud.StatsObjects{
				RecordSets: []fakecloud.RecordSet{rs("rs-1", "a")},
				Networks:   []fakecloud.Network{net("net-1", "b")},
			}},
			want: want{ready: 2},
		},
		"UnwrappedAfterCrash": {
			reason: "A RecordSet stuck on 409 leaves its object unbound; a Network created twice leaves its first copy unbound.",
			mrs:    []resource.Managed{mr("a", "", false, false), mr("b", "net-2", true, false)},
			stats: fakecloud.Stats{
				Kinds: map[string]fakecloud.KindStats{"recordsets": {Conflicts: 3}, "networks": {}},
				Objects: fakecloud.StatsObjects{
					RecordSets: []fakecloud.RecordSet{rs("rs-1", "a")},
					Networks:   []fakecloud.Network{net("net-1", "b"), net("net-2", "b")},
				},
			},
			want: want{inFlight: 1, ready: 1, stuck: 1, dupes: 1, unbound: []string{"net-1", "rs-1"}, conflicts: 3},
		},
		"Paused": {
			reason: "A paused MR that is not Ready counts as paused, not stuck.",
			mrs:    []resource.Managed{mr("a", "", false, true)},
			want:   want{paused: 1},
		},
		"SameNameAcrossKinds": {
			reason: "A RecordSet and a Network may share a name: one object of each kind is no duplicate.",
			mrs:    []resource.Managed{mr("x", "rs-1", true, false)},
			stats: fakecloud.Stats{Objects: fakecloud.StatsObjects{
				RecordSets: []fakecloud.RecordSet{rs("rs-1", "x")},
				Networks:   []fakecloud.Network{net("net-1", "x")},
			}},
			want: want{ready: 1, unbound: []string{"net-1"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got want
			got.inFlight = inFlight(tc.mrs, tc.stats)
			got.ready, got.paused, got.stuck = states(tc.mrs)
			got.dupes = duplicates(tc.stats)
			got.unbound = unbound(tc.mrs, tc.stats)
			got.conflicts = conflicts(tc.stats)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestReportedOrphans checks which IDs of a recovery report count as
// reported orphans.
func TestReportedOrphans(t *testing.T) {
	rep := recovery.NewReport(recovery.Source{}, time.Unix(0, 0))
	rep.Add(recovery.Entry{Outcome: recovery.OutcomeAdopted, Found: []recovery.Found{{ID: "net-1", Adopted: true}}})
	rep.Add(recovery.Entry{Outcome: recovery.OutcomeOrphan, Found: []recovery.Found{{ID: "net-2"}, {ID: "net-1", Adopted: true}}})
	rep.Add(recovery.Entry{Outcome: recovery.OutcomeOrphan, Found: []recovery.Found{{ID: "net-2"}, {ID: "net-0"}}})
	rep.Add(recovery.Entry{Outcome: recovery.OutcomeConflict, Found: []recovery.Found{{ID: "rs-9"}}})
	want := []string{"net-0", "net-2"}
	if diff := cmp.Diff(want, reportedOrphans(rep)); diff != "" {
		t.Errorf("Only unadopted resources of orphan entries, once each, sorted.\n-want, +got:\n%s", diff)
	}
}

// TestMeetsInvariants checks the demo's pass criterion.
func TestMeetsInvariants(t *testing.T) {
	cases := map[string]struct {
		reason string
		r      Result
		want   bool
	}{
		"Clean":        {reason: "Nothing duplicated, stuck or orphaned.", r: Result{Available: true}, want: true},
		"Reported":     {reason: "Orphans present and reported.", r: Result{Available: true, OrphansPresent: []string{"a"}, OrphansReported: []string{"a"}}, want: true},
		"Unreported":   {reason: "An orphan the report misses.", r: Result{Available: true, OrphansPresent: []string{"a"}}, want: false},
		"Overreported": {reason: "A reported orphan that is bound after all.", r: Result{Available: true, OrphansReported: []string{"a"}}, want: false},
		"Duplicate":    {reason: "A duplicate cloud object.", r: Result{Available: true, Duplicates: 1}, want: false},
		"Stuck":        {reason: "A stuck MR.", r: Result{Available: true, Stuck: 1}, want: false},
		"Unavailable":  {reason: "A run that did not happen proves nothing.", r: Result{}, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.r.MeetsInvariants(); got != tc.want {
				t.Errorf("%s\nMeetsInvariants() = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
