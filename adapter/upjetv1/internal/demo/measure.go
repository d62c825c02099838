package demo

import (
	"slices"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// inFlight counts the MRs with no external name whose object the cloud has
// made: creates a crash interrupted after the cloud committed them.
func inFlight(mrs []resource.Managed, s fakecloud.Stats) int {
	made := map[string]bool{}
	for _, o := range s.Objects.All() {
		made[o.Tags[tagName]] = true
	}
	n := 0
	for _, mg := range mrs {
		if meta.GetExternalName(mg) == "" && made[mg.GetName()] {
			n++
		}
	}
	return n
}

// conflicts sums the 409s of every kind.
func conflicts(s fakecloud.Stats) int64 { return s.Total().Conflicts }

// states counts the MRs that are Ready, paused (and not Ready), and
// neither: stuck.
func states(mrs []resource.Managed) (ready, paused, stuck int) {
	for _, mg := range mrs {
		switch {
		case isReady(mg):
			ready++
		case meta.IsPaused(mg):
			paused++
		default:
			stuck++
		}
	}
	return ready, paused, stuck
}

// duplicates counts the cloud objects beyond one per MR: objects of a kind
// that carry the same crossplane-name tag.
func duplicates(s fakecloud.Stats) int {
	per := map[[2]string]int{}
	for _, o := range s.Objects.All() {
		if o.Tags[tagName] != "" {
			per[[2]string{o.Kind, o.Tags[tagName]}]++
		}
	}
	n := 0
	for _, c := range per {
		n += max(0, c-1)
	}
	return n
}

// unbound returns, sorted, the IDs of cloud objects that no MR's
// crossplane.io/external-name names.
func unbound(mrs []resource.Managed, s fakecloud.Stats) []string {
	bound := map[string]bool{}
	for _, mg := range mrs {
		if en := meta.GetExternalName(mg); en != "" {
			bound[en] = true
		}
	}
	var out []string
	for _, o := range s.Objects.All() {
		if !bound[o.ID] {
			out = append(out, o.ID)
		}
	}
	slices.Sort(out)
	return out
}

// reportedOrphans returns, sorted and without repeats, the IDs of the cloud
// resources that rep's orphan entries list and did not adopt.
func reportedOrphans(rep *recovery.Report) []string {
	var out []string
	for _, e := range rep.Entries {
		if e.Outcome != recovery.OutcomeOrphan {
			continue
		}
		for _, f := range e.Found {
			if !f.Adopted {
				out = append(out, f.ID)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sameSet reports whether a and b, both sorted, hold the same IDs.
func sameSet(a, b []string) bool { return slices.Equal(a, b) }

// ComputedReport returns an orphan report built from what a run measured,
// for when the provider wrote none: one orphan entry per cloud object bound
// to no MR, with a note that says so.
func ComputedReport(r Result, now time.Time) *recovery.Report {
	rep := recovery.NewReport(recovery.Source{Owner: journal.Owner{Replica: "intentjournal-demo"}}, now)
	rep.AddNote("computed by intentjournal demo from the fake cloud's objects and the managed resources' external names: the provider wrote no recovery report")
	for _, id := range r.OrphansPresent {
		rep.Add(recovery.Entry{
			Found:   []recovery.Found{{ID: id}},
			Outcome: recovery.OutcomeOrphan,
			Reason:  "UnboundCloudObject",
			Message: "No managed resource's crossplane.io/external-name names this cloud object.",
		})
	}
	rep.Sort()
	return rep
}
