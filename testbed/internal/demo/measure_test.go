package demo

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// mr returns a managed resource of kind in namespace ns (empty: cluster
// scope) called name, bound to externalName when set.
func mr(kind, ns, name, externalName string, ready, paused bool) managed {
	return managed{
		Ref:          journal.ResourceRef{APIVersion: "fakecloud.m.intentjournal.io/v1alpha1", Kind: kind, Namespace: ns, Name: name, UID: "uid-" + ns + "-" + name},
		ExternalName: externalName, CreateSucceeded: true, Ready: ready, Paused: paused,
	}
}

func rs(id, mrName string) fakecloud.RecordSet {
	return fakecloud.RecordSet{ID: id, Tags: map[string]string{recovery.TagCrossplaneName: mrName}}
}

func network(id, mrName string, ns ...string) fakecloud.Network {
	tags := map[string]string{recovery.TagCrossplaneName: mrName}
	for _, n := range ns {
		tags[recovery.TagCrossplaneNamespace] = n
	}
	return fakecloud.Network{ID: id, Tags: tags}
}

// TestMeasure checks the measurements of a run against hand-built MRs and
// fake cloud objects.
func TestMeasure(t *testing.T) {
	type want struct {
		inFlight                    int
		ready, paused, stuck, dupes int
		unbound                     []Orphan
		conflicts                   int64
	}
	ref := func(kind, ns, name string) journal.ResourceRef { return mr(kind, ns, name, "", false, false).Ref }
	cases := map[string]struct {
		reason string
		mrs    []managed
		stats  fakecloud.Stats
		want   want
	}{
		"Clean": {
			reason: "Every object bound to its Ready MR: nothing to report.",
			mrs:    []managed{mr("RecordSet", "", "a", "rs-1", true, false), mr("Network", "", "b", "net-1", true, false)},
			stats: fakecloud.Stats{Objects: fakecloud.StatsObjects{
				RecordSets: []fakecloud.RecordSet{rs("rs-1", "a")},
				Networks:   []fakecloud.Network{network("net-1", "b")},
			}},
			want: want{ready: 2},
		},
		"UnwrappedAfterCrash": {
			reason: "A RecordSet stuck on 409 leaves its object unbound; a Network created twice leaves its first copy unbound.",
			mrs:    []managed{mr("RecordSet", "", "a", "", false, false), mr("Network", "", "b", "net-2", true, false)},
			stats: fakecloud.Stats{
				Kinds: map[string]fakecloud.KindStats{"recordsets": {Conflicts: 3}, "networks": {}},
				Objects: fakecloud.StatsObjects{
					RecordSets: []fakecloud.RecordSet{rs("rs-1", "a")},
					Networks:   []fakecloud.Network{network("net-1", "b"), network("net-2", "b")},
				},
			},
			want: want{inFlight: 1, ready: 1, stuck: 1, dupes: 1, conflicts: 3, unbound: []Orphan{
				{ID: "net-1", Kind: "Network", Resource: ref("Network", "", "b")},
				{ID: "rs-1", Kind: "RecordSet", Resource: ref("RecordSet", "", "a")},
			}},
		},
		"Paused": {
			reason: "A paused MR that is not Ready counts as paused, not stuck.",
			mrs:    []managed{mr("RecordSet", "", "a", "", false, true)},
			want:   want{paused: 1},
		},
		"SameNameAcrossKinds": {
			reason: "A RecordSet and a Network may share a name: one object of each kind is no duplicate.",
			mrs:    []managed{mr("RecordSet", "", "x", "rs-1", true, false), mr("Network", "", "x", "", false, false)},
			stats: fakecloud.Stats{Objects: fakecloud.StatsObjects{
				RecordSets: []fakecloud.RecordSet{rs("rs-1", "x")},
				Networks:   []fakecloud.Network{network("net-1", "x")},
			}},
			want: want{inFlight: 1, ready: 1, stuck: 1, unbound: []Orphan{{ID: "net-1", Kind: "Network", Resource: ref("Network", "", "x")}}},
		},
		"SameNameAcrossNamespaces": {
			reason: "team-a/n and team-b/n, tagged without a namespace as upjet v2.3.0 tags them: two objects are no duplicate; one unbound object is one create in flight, not two, and belongs to the MR with no external name.",
			mrs:    []managed{mr("Network", "team-a", "n", "net-1", true, false), mr("Network", "team-b", "n", "", false, false)},
			stats: fakecloud.Stats{Objects: fakecloud.StatsObjects{
				Networks: []fakecloud.Network{network("net-1", "n"), network("net-2", "n")},
			}},
			want: want{inFlight: 1, ready: 1, stuck: 1, unbound: []Orphan{{ID: "net-2", Kind: "Network", Resource: ref("Network", "team-b", "n")}}},
		},
		"SameNameAcrossNamespacesTagged": {
			reason: "The wrapped provider tags the namespace: an unbound object names its own MR, not the first same-named one; a third object is a duplicate.",
			mrs:    []managed{mr("Network", "team-a", "n", "net-1", true, false), mr("Network", "team-b", "n", "net-2", true, false)},
			stats: fakecloud.Stats{Objects: fakecloud.StatsObjects{
				Networks: []fakecloud.Network{network("net-1", "n", "team-a"), network("net-2", "n", "team-b"), network("net-3", "n", "team-b")},
			}},
			want: want{ready: 2, dupes: 1, unbound: []Orphan{{ID: "net-3", Kind: "Network", Resource: ref("Network", "team-b", "n")}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got want
			got.inFlight = inFlight(tc.mrs, tc.stats)
			got.ready, got.paused, got.stuck = states(tc.mrs)
			got.dupes = duplicates(tc.mrs, tc.stats)
			got.unbound = unbound(tc.mrs, tc.stats)
			got.conflicts = conflicts(tc.stats)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestReportedOrphans checks which IDs of a recovery report count as
// reported orphans.
func TestReportedOrphans(t *testing.T) {
	rep := report.New(report.Source{}, time.Unix(0, 0))
	rep.Add(report.Entry{Outcome: report.OutcomeAdopted, Found: []report.Found{{ID: "net-1", Adopted: true}}})
	rep.Add(report.Entry{Outcome: report.OutcomeOrphan, Found: []report.Found{{ID: "net-2"}, {ID: "net-1", Adopted: true}}})
	rep.Add(report.Entry{Outcome: report.OutcomeOrphan, Found: []report.Found{{ID: "net-2"}, {ID: "net-0"}}})
	rep.Add(report.Entry{Outcome: report.OutcomeConflict, Found: []report.Found{{ID: "rs-9"}}})
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
