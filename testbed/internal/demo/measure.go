package demo

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"strings"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// inFlight counts the MRs with no external name whose object the cloud has
// made: creates a crash interrupted after the cloud committed them. Objects
// are matched to MRs by kind and crossplane-name tag; where same-named MRs
// of several namespaces share that key, each unbound object counts for at
// most one MR with no external name.
func inFlight(mrs []managed, s fakecloud.Stats) int {
	bound := boundIDs(mrs)
	made := map[objectKey]int{}
	for _, o := range s.Objects.All() {
		if !bound[o.ID] {
			made[keyOf(o)]++
		}
	}
	waiting := map[objectKey]int{}
	for _, m := range mrs {
		if m.ExternalName == "" {
			waiting[m.key()]++
		}
	}
	n := 0
	for k, w := range waiting {
		n += min(w, made[k])
	}
	return n
}

// keyOf returns the kind and the crossplane-name tag of o.
func keyOf(o fakecloud.Object) objectKey {
	return objectKey{Kind: o.Kind, Name: o.Tags[recovery.TagCrossplaneName]}
}

// boundIDs returns the IDs that MRs' crossplane.io/external-name name.
func boundIDs(mrs []managed) map[string]bool {
	bound := map[string]bool{}
	for _, m := range mrs {
		if m.ExternalName != "" {
			bound[m.ExternalName] = true
		}
	}
	return bound
}

// conflicts sums the 409s of every kind.
func conflicts(s fakecloud.Stats) int64 { return s.Total().Conflicts }

// states counts the MRs that are Ready, paused (and not Ready), and
// neither: stuck.
func states(mrs []managed) (ready, paused, stuck int) {
	for _, m := range mrs {
		switch {
		case m.Ready:
			ready++
		case m.Paused:
			paused++
		default:
			stuck++
		}
	}
	return ready, paused, stuck
}

// duplicates counts the cloud objects beyond one per MR: per kind and
// crossplane-name tag, the objects beyond the MRs of that kind and name
// (one per namespace on the v2 line).
func duplicates(mrs []managed, s fakecloud.Stats) int {
	want := map[objectKey]int{}
	for _, m := range mrs {
		want[m.key()]++
	}
	per := map[objectKey]int{}
	for _, o := range s.Objects.All() {
		if k := keyOf(o); k.Name != "" {
			per[k]++
		}
	}
	n := 0
	for k, c := range per {
		n += max(0, c-max(1, want[k]))
	}
	return n
}

// unbound returns, sorted by ID, the cloud objects that no MR's
// crossplane.io/external-name names, each with the MR its tags name.
func unbound(mrs []managed, s fakecloud.Stats) []Orphan {
	bound := boundIDs(mrs)
	var out []Orphan
	for _, o := range s.Objects.All() {
		if !bound[o.ID] {
			out = append(out, Orphan{ID: o.ID, Kind: o.Kind, Resource: ownerOf(mrs, o)})
		}
	}
	slices.SortFunc(out, func(a, b Orphan) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// ownerOf returns the MR whose kind and name o's crossplane tags carry, in
// the namespace of its crossplane-namespace tag when it has one. Of several
// (same-named MRs of two namespaces, tagged without a namespace) it prefers
// one with no external name, whose create the crash lost, then the first by
// namespace. The zero ResourceRef when none matches.
func ownerOf(mrs []managed, o fakecloud.Object) journal.ResourceRef {
	ns, hasNS := o.Tags[recovery.TagCrossplaneNamespace]
	var found []managed
	for _, m := range mrs {
		if m.key() == keyOf(o) && (!hasNS || m.Ref.Namespace == ns) {
			found = append(found, m)
		}
	}
	if len(found) == 0 {
		return journal.ResourceRef{}
	}
	return slices.MinFunc(found, func(a, b managed) int {
		return cmp.Or(cmp.Compare(boolRank(a.ExternalName != ""), boolRank(b.ExternalName != "")),
			strings.Compare(a.Ref.Namespace, b.Ref.Namespace))
	}).Ref
}

// boolRank orders false before true.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ids returns the IDs of orphans, in their order; nil when there are none,
// as reportedOrphans returns.
func ids(orphans []Orphan) []string {
	var out []string
	for _, o := range orphans {
		out = append(out, o.ID)
	}
	return out
}

// reportedOrphans returns, sorted and without repeats, the IDs of the cloud
// resources that rep's orphan entries list and did not adopt.
func reportedOrphans(rep *report.Report) []string {
	var out []string
	for _, e := range rep.Entries {
		if e.Outcome != report.OutcomeOrphan {
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
// to no MR, with a note that says so. It validates against the report
// schema (docs/report.schema.json), which asks every entry for a resource
// and a source:
//   - the resource is the MR whose kind and name the object's crossplane
//     tags carry (Orphan.Resource); an object whose tags name no MR is
//     listed under its own kind and ID, with UID "unknown", and a note;
//   - the source is incomplete-create: no intent was read, and what the
//     entry records is a create the cloud completed and crossplane-runtime
//     never recorded.
func ComputedReport(r Result, now time.Time) *report.Report {
	rep := report.New(report.Source{Owner: journal.Owner{Replica: "intentjournal-demo"}}, now)
	rep.AddNote("computed by intentjournal demo from the fake cloud's objects and the managed resources' external names: the provider wrote no recovery report")
	untagged := 0
	for _, o := range r.Unbound {
		res := o.Resource
		if res.UID == "" {
			res = journal.ResourceRef{Kind: o.Kind, Name: o.ID, UID: unknownUID}
			untagged++
		}
		rep.Add(report.Entry{
			Resource: res,
			Sources:  []string{report.SourceIncompleteCreate},
			Found:    []report.Found{{ID: o.ID}},
			Outcome:  report.OutcomeOrphan,
			Reason:   "UnboundCloudObject",
			Message:  "No managed resource's crossplane.io/external-name names this cloud object.",
		})
	}
	if untagged > 0 {
		rep.AddNote(fmt.Sprintf("%d cloud objects carry the crossplane tags of no managed resource: each is listed under its own kind and ID, with UID %q", untagged, unknownUID))
	}
	rep.Sort()
	return rep
}

// unknownUID stands for the UID of the managed resource of a cloud object
// whose tags name none.
const unknownUID = "unknown"
