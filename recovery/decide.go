package recovery

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Mode is the per-kind recovery policy.
type Mode string

// Modes.
const (
	// ModeAdopt adopts resources proven ours (the default).
	ModeAdopt Mode = "adopt"
	// ModeReportOnly never adopts: a resource that would be adopted is
	// reported as unresolved, and its create stays blocked, so a human
	// decides. Clearing (nothing was created) and pausing on a conflict
	// still happen.
	ModeReportOnly Mode = "report-only"
)

// Reasons, machine-readable, used in the report and in Events.
const (
	ReasonNothingCreated  = "NothingCreated"
	ReasonAdopted         = "Adopted"
	ReasonNotOurs         = "NotOurs"
	ReasonDuplicate       = "DuplicateOfAdopted"
	ReasonMRDeleted       = "ManagedResourceDeleted"
	ReasonLookupFailed    = "LookupFailed"
	ReasonNoFinder        = "NoFinderForKind"
	ReasonCRDMissing      = "KindNotServed"
	ReasonReportOnly      = "AdoptionDisabledByPolicy"
	ReasonUnreadable      = "IntentUnreadable"
	ReasonAlreadyResolved = "AlreadyResolved"
)

// Decision is what to do with one candidate. Decide makes it; the resolver
// carries it out.
type Decision struct {
	Outcome Outcome
	Reason  string
	Message string
	// Action is the concrete step that resolves an entry needing attention.
	Action string
	// Adopt is the resource to bind to the managed resource (adopted).
	Adopt *ExternalResource
	// Orphans are proven-ours resources bound to no managed resource.
	Orphans []ExternalResource
	// Found is every resource the lookup returned, with ownership marked.
	Found []Found
}

// Decide applies the decision table of docs/recovery.md to a candidate and
// what its lookup returned. It is a pure function.
//
//	found                          outcome
//	lookup failed                  unresolved: keep the intent, keep the create blocked, retry
//	nothing                        cleared: remove the pending marks so the create may run
//	one or more proven ours        adopted: the oldest; any others are orphans
//	only resources not ours        conflict: never adopt; pause the MR and report
//	MR deleted, ours found         orphan: report (delete only under the delete-orphans policy)
//	MR deleted, nothing ours       cleared
func Decide(c *Candidate, found []ExternalResource, lookupErr error, mode Mode) Decision {
	ref := c.Intent.Resource
	if lookupErr != nil {
		return Decision{
			Outcome: OutcomeUnresolved,
			Reason:  ReasonLookupFailed,
			Message: fmt.Sprintf("cannot look up the cloud resources of %s: %v", ref, lookupErr),
			Action:  "check the provider's connectivity and permissions, then rerun: intentjournal recover",
		}
	}
	var owned, foreign []ExternalResource
	d := Decision{}
	for _, r := range found {
		if Owned(c, r) != "" {
			owned = append(owned, r)
		} else {
			foreign = append(foreign, r)
		}
	}
	// The oldest proven copy is the one to keep: later copies are what a
	// restarted provider created again.
	slices.SortStableFunc(owned, func(a, b ExternalResource) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	switch {
	case c.Deleted() && len(owned) > 0:
		d.Outcome, d.Reason = OutcomeOrphan, ReasonMRDeleted
		d.Orphans = owned
		d.Message = fmt.Sprintf("%s was deleted while its create was in flight; %d cloud resource(s) it created remain", ref, len(owned))
		d.Action = fmt.Sprintf("delete the cloud resource(s) %s, or recreate the managed resource with crossplane.io/external-name set to adopt one", ids(owned))
	case len(owned) == 0 && len(foreign) == 0, c.Deleted():
		d.Outcome, d.Reason = OutcomeCleared, ReasonNothingCreated
		// A constant: a pass over 100,000 intents keeps every entry, and
		// the entry names the resource already.
		d.Message = "no cloud resource of this managed resource exists; its create may run again"
	case len(owned) == 0:
		d.Outcome, d.Reason = OutcomeConflict, ReasonNotOurs
		d.Message = fmt.Sprintf("%d cloud resource(s) with the natural key of %s exist but are not proven ours (no matching crossplane tags or intent ID)", len(foreign), ref)
		d.Action = fmt.Sprintf("inspect %s; to adopt, set the annotation crossplane.io/external-name=%s on %s/%s and remove crossplane.io/paused; otherwise delete or rename the cloud resource and remove crossplane.io/paused",
			ids(foreign), foreign[0].ID, strings.ToLower(ref.Kind), ref.Name)
	case mode == ModeReportOnly:
		d.Outcome, d.Reason = OutcomeUnresolved, ReasonReportOnly
		d.Message = fmt.Sprintf("%s's cloud resource %s exists and is ours, but this kind's policy is report-only", ref, owned[0].ID)
		d.Action = fmt.Sprintf("set the annotation crossplane.io/external-name=%s on %s/%s, or rerun intentjournal recover with the adopt policy", owned[0].ID, strings.ToLower(ref.Kind), ref.Name)
	default:
		d.Outcome, d.Reason = OutcomeAdopted, ReasonAdopted
		d.Adopt = &owned[0]
		d.Orphans = owned[1:]
		d.Message = fmt.Sprintf("adopted cloud resource %s (%s)", owned[0].ID, Owned(c, owned[0]))
		if len(d.Orphans) > 0 {
			d.Message += fmt.Sprintf("; %d later duplicate(s) %s are orphans", len(d.Orphans), ids(d.Orphans))
		}
	}
	for _, r := range found {
		f := Found{ID: r.ID, Tags: cloneTags(r.Tags), CreatedAt: r.CreatedAt, Owned: Owned(c, r) != ""}
		f.Adopted = d.Adopt != nil && d.Adopt.ID == r.ID
		d.Found = append(d.Found, f)
	}
	slices.SortFunc(d.Found, func(a, b Found) int { return cmp.Compare(a.ID, b.ID) })
	return d
}

func ids(rs []ExternalResource) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.ID
	}
	return strings.Join(s, ", ")
}
