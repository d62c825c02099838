package recovery

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/intentjournal/intentjournal/recovery/report"
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
	// ModeAdoptOnTags adopts like ModeAdopt, and also on the weak proof of
	// crossplane tags on a resource whose creation time the cloud does not
	// report (ProofTagsUntimed). Choose it per kind, only where no other
	// cluster can hold resources with the same tags in the same account.
	ModeAdoptOnTags Mode = "adopt-on-tags"
)

// Modes lists every mode.
var Modes = []Mode{ModeAdopt, ModeReportOnly, ModeAdoptOnTags}

// Reasons, machine-readable, used in the report and in Events.
const (
	ReasonNothingCreated = "NothingCreated"
	ReasonAdopted        = "Adopted"
	ReasonNotOurs        = "NotOurs"
	ReasonLookAlike      = "LookAlikeNotOurs"
	// ReasonUnseenConflict: the create met "already exists", and the
	// lookup found nothing that holds the key.
	ReasonUnseenConflict = "ConflictNotFound"
	ReasonWeakProof      = "OwnershipNotProven"
	// ReasonArgsDiffer: what a weak proof would have taken for ours
	// differs from what the create sent: someone else's resource holds
	// what the create needs.
	ReasonArgsDiffer = "ArgumentsDiffer"
	// ReasonAbsenceUnproven: the lookup found nothing of this create's,
	// but it could not have seen what the create made (a tag listing for
	// a create that sent no tags, or tags them only after the create
	// call): clearing could make a second resource.
	ReasonAbsenceUnproven = "AbsenceProvesNothing"
	// ReasonAbsenceNotYetProven: the lookup found nothing of this
	// create's, but reads an index that may not show the create's
	// resource yet: the intent waits, its create held, and a later pass
	// looks again once the index's lag has passed.
	ReasonAbsenceNotYetProven = "AbsenceNotYetProven"
	ReasonDuplicate           = "DuplicateOfAdopted"
	ReasonMRDeleted           = "ManagedResourceDeleted"
	ReasonLookupFailed        = "LookupFailed"
	ReasonNoFinder            = "NoFinderForKind"
	ReasonCRDMissing          = "KindNotServed"
	ReasonReportOnly          = "AdoptionDisabledByPolicy"
	// ReasonAPIServerError: reading the managed resource failed after
	// retries.
	ReasonAPIServerError = "APIServerError"
	// ReasonApplyFailed: the decision was made but a patch that carries it
	// out (external name, pause, annotation) failed.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonUnboundCopy: a cloud resource carries what a bound managed
	// resource's lookup finds (its crossplane tags) and no managed
	// resource names it: the first copy of a create that a provider
	// restarted after a crash made again, or someone else's look-alike
	// (intentjournal scan --copies-within).
	ReasonUnboundCopy = "UnboundCopy"
	// ReasonExternalNameUnknown: the resource that would be adopted was
	// found by a tag listing, by its cloud identifier, and nothing
	// observed it (ExternalResource.Listed): its external name is not
	// known, so it cannot be set.
	ReasonExternalNameUnknown = "ExternalNameUnknown"
)

// Reasons lists every reason a report entry or Event can carry; the
// report's JSON schema lists the same ones (reason.examples). A consumer
// should still accept reasons it does not know: new ones may come in any
// minor version (docs/report.md).
var Reasons = []string{
	ReasonNothingCreated, ReasonAdopted, ReasonNotOurs, ReasonLookAlike, ReasonUnseenConflict,
	ReasonWeakProof, ReasonArgsDiffer, ReasonDuplicate, ReasonMRDeleted, ReasonLookupFailed,
	ReasonNoFinder, ReasonCRDMissing, ReasonReportOnly, ReasonAPIServerError, ReasonApplyFailed,
	ReasonAbsenceUnproven, ReasonAbsenceNotYetProven, ReasonUnboundCopy, ReasonExternalNameUnknown,
}

// Decision is what to do with one candidate. Decide makes it; the resolver
// carries it out.
type Decision struct {
	Outcome report.Outcome
	Reason  string
	Message string
	// Action is the concrete step that resolves an entry needing attention,
	// or that an operator should take about a look-alike.
	Action string
	// Adopt is the resource to bind to the managed resource (adopted).
	Adopt *ExternalResource
	// Orphans are resources bound to no managed resource that the report
	// lists one entry each: proven ours, or, for a deleted managed
	// resource, what a weak proof would take for its create's but whose
	// arguments differ (not proven ours: never deleted, as deletion needs
	// a strong proof).
	Orphans []ExternalResource
	// LookAlikes are resources that carry this managed resource's
	// crossplane tags but are proven not to be its. They are reported and
	// never touched.
	LookAlikes []ExternalResource
	// Found is every resource the lookup returned, with ownership marked.
	Found []report.Found
}

// Rules are what Decide applies to one candidate's kind.
type Rules struct {
	// Mode is the kind's policy; empty means ModeAdopt.
	Mode Mode
	// ClockSkew is the allowance Judge gives the cloud's clock; zero means
	// DefaultClockSkew.
	ClockSkew time.Duration
	// AbsenceUnproven, when set, says why the candidate's lookup finding
	// nothing of its create's proves nothing (the Finder's
	// AbsenceUnproven): what would be cleared is reported instead.
	AbsenceUnproven string
	// AbsenceProvenAt, when after Now, is when the lookup's finding
	// nothing will prove the create made nothing (the Finder's
	// AbsenceProvenAt, an index's lag): until then what would be cleared
	// stays unresolved, its create held, and a later pass looks again.
	AbsenceProvenAt, Now time.Time
}

// judged is a found resource with Judge's verdict.
type judged struct {
	r ExternalResource
	v Verdict
}

// Decide applies the decision table of docs/recovery.md to a candidate and
// what its lookup returned. It is a pure function.
//
//	found                               outcome
//	lookup failed                       unresolved: keep the intent, keep the create blocked, retry
//	nothing, or only look-alikes        cleared: remove the pending marks so the create may run
//	  matched by tags alone
//	the same, but the lookup could not  conflict (AbsenceProvesNothing): pause the MR and report
//	  see what the create made (tags      (unresolved when the MR was deleted)
//	  not sent, or set after create)
//	one or more proven ours             adopted: the strongest proof, then the first created
//	                                    after the create began; any others are orphans
//	best proof is weak (tags, no        unresolved: reported, create kept blocked, unless the
//	  creation time)                    kind's mode is adopt-on-tags
//	what a weak proof (vacant key,      conflict (ArgumentsDiffer): someone else made it; never
//	  crossplane tags) would take for     adopt or touch it; pause the MR and report, even when
//	  ours differs from the create's      it was found by tags alone
//	  arguments
//	best proof is weak and nobody       unresolved: reported, create kept blocked
//	  compared the arguments
//	only resources not ours, one        conflict: never adopt; pause the MR and report
//	  holding the natural key
//	the create met "already exists"     conflict, as above: a look-alike found by tags holds
//	  and nothing of ours is found        the key, or something the lookup cannot see does
//	MR deleted, ours found              orphan: report (delete only on a strong proof, under
//	                                    the delete-orphans policy)
//	MR deleted, what a weak proof       orphan (ArgumentsDiffer): report it, never touch it; not
//	  would take for ours differs         proven absent, so never cleared
//	MR deleted, nothing ours            cleared
//	nothing of ours, from an index that unresolved (AbsenceNotYetProven): the create held; a
//	  lags the cloud, before its lag has   later pass lists again
//	  passed since the create's latest
//	  possible moment (Candidate.DeadBy)
//
// Look-alikes, whatever the outcome, are named in the message and action
// and never adopted, deleted or imported.
func Decide(c *Candidate, found []ExternalResource, lookupErr error, rules Rules) Decision {
	ref := c.Intent.Resource
	if lookupErr != nil {
		return Decision{
			Outcome: report.OutcomeUnresolved,
			Reason:  ReasonLookupFailed,
			Message: fmt.Sprintf("cannot look up the cloud resources of %s: %v", ref, lookupErr),
			Action:  "check the provider's connectivity and permissions, then rerun: intentjournal recover",
		}
	}
	skew := rules.ClockSkew
	if skew <= 0 {
		skew = DefaultClockSkew
	}
	all := make([]judged, len(found))
	var owned []judged
	var blocking []ExternalResource
	// A create the cloud refused as a duplicate proves something holds
	// the natural key: a resource found by tags alone blocks it too, and
	// so does what no lookup finds (a tag lister cannot see a look-alike
	// without our tags). Clearing would only meet the 409 again.
	conflicted := c.metConflict()
	d := Decision{}
	for i, r := range found {
		all[i] = judged{r: r, v: Judge(c, r, skew)}
		switch v := all[i].v; {
		case v.Proof != "":
			owned = append(owned, all[i])
		default:
			if v.LookAlike {
				d.LookAlikes = append(d.LookAlikes, r)
			}
			// A resource a weak proof would have taken for ours, but whose
			// arguments differ, blocks even when found by tags alone: it may
			// be our own create's, changed by someone (an operator decides),
			// and clearing would then make a second one.
			if !r.MatchedByTags || conflicted || v.Differs {
				blocking = append(blocking, r)
			}
		}
	}
	began := c.NotBefore()
	slices.SortStableFunc(owned, func(a, b judged) int { return preferred(a, b, began, skew) })
	best := func() Proof { return owned[0].v.Proof }
	switch {
	case c.Deleted() && len(owned) > 0:
		d.Outcome, d.Reason = report.OutcomeOrphan, ReasonMRDeleted
		d.Orphans = resources(owned)
		d.Message = fmt.Sprintf("%s was deleted while its create was in flight; %d cloud resource(s) it created remain", ref, len(owned))
		d.Action = fmt.Sprintf("delete the cloud resource(s) %s, or recreate the managed resource with crossplane.io/external-name set to adopt one", ids(d.Orphans))
	case len(owned) == 0 && len(blocking) == 0 && conflicted && !c.Deleted():
		d.Outcome, d.Reason = report.OutcomeConflict, ReasonUnseenConflict
		d.Message = fmt.Sprintf("the cloud refused the create of %s as already existing, but the lookup finds nothing holding its key", ref)
		d.Action = fmt.Sprintf("find the cloud resource that holds the key of %s (the kind's finder cannot see it: it carries none of this managed resource's tags); adopt it by setting crossplane.io/external-name on %s/%s, or delete or rename it; then remove crossplane.io/paused",
			ref, strings.ToLower(ref.Kind), ref.Name)
	case len(owned) == 0 && (len(blocking) == 0 || c.Deleted()) && rules.AbsenceUnproven != "":
		// Nothing of ours was found, but the lookup could not have seen
		// it: clearing would let the create run again and make a second
		// resource. An operator looks.
		d.Reason = ReasonAbsenceUnproven
		d.Message = fmt.Sprintf("the lookup found no cloud resource of %s, which proves nothing: %s", ref, rules.AbsenceUnproven)
		if c.Deleted() {
			d.Outcome = report.OutcomeUnresolved
			d.Action = fmt.Sprintf("look in the cloud for a %s its create may have made after %s (untagged, or without its crossplane tags) and delete it if it is there; the intent stays until a lookup can decide",
				ref.Kind, c.NotBefore().UTC().Format(time.RFC3339))
			break
		}
		d.Outcome = report.OutcomeConflict
		d.Action = fmt.Sprintf("look in the cloud for a %s created after %s without its crossplane tags: if it is there, set the annotation crossplane.io/external-name=<its ID> on %s/%s to adopt it; then, or if nothing is there, remove crossplane.io/paused (with no external name set, the create runs again)",
			ref.Kind, c.NotBefore().UTC().Format(time.RFC3339), strings.ToLower(ref.Kind), ref.Name)
	case len(owned) == 0 && (len(blocking) == 0 || c.Deleted()) && rules.Now.Before(rules.AbsenceProvenAt):
		// An index that lags the cloud found nothing: not yet a proof.
		d.Outcome, d.Reason = report.OutcomeUnresolved, ReasonAbsenceNotYetProven
		d.Message = fmt.Sprintf("the lookup found no cloud resource of %s, but it reads an index that may not show a resource made as late as %s until %s",
			ref, c.DeadBy.UTC().Format(time.RFC3339), rules.AbsenceProvenAt.UTC().Format(time.RFC3339))
		d.Action = fmt.Sprintf("none: the create stays held, and recovery looks again after %s", rules.AbsenceProvenAt.UTC().Format(time.RFC3339))
	case c.Deleted() && len(differing(all, blocking)) > 0:
		// What a weak proof would take for the create's differs from what
		// it sent: someone else's, or the create's own changed since. It
		// is not proven absent, so the intent is not cleared silently:
		// the entry names it for an operator, and nothing touches it.
		differ := differing(all, blocking)
		d.Outcome, d.Reason = report.OutcomeOrphan, ReasonArgsDiffer
		d.Message = fmt.Sprintf("%s was deleted while its create was in flight; %s, which a weak proof would take for its create's, remains, but %s: it may be someone else's, or the create's own changed since. It was left untouched",
			ref, ids(differ), argsDiffer(differ))
		d.Action = fmt.Sprintf("inspect %s: if %s's create made it, delete it; otherwise leave it to whoever made it", ids(differ), ref)
		d.Orphans = differ
		d.LookAlikes = slices.DeleteFunc(d.LookAlikes, func(r ExternalResource) bool {
			return slices.ContainsFunc(differ, func(x ExternalResource) bool { return x.ID == r.ID })
		})
	case len(owned) == 0 && len(blocking) == 0, c.Deleted():
		d.Outcome, d.Reason = report.OutcomeCleared, ReasonNothingCreated
		// A constant: a pass over 100,000 intents keeps every entry, and
		// the entry names the resource already.
		d.Message = "no cloud resource of this managed resource exists; its create may run again"
	case len(owned) == 0:
		d.Outcome, d.Reason = report.OutcomeConflict, ReasonNotOurs
		d.Message = fmt.Sprintf("%d cloud resource(s) with the natural key of %s exist but are not proven ours (%s)", len(blocking), ref, notOurs(all, blocking))
		d.Action = fmt.Sprintf("inspect %s; to adopt, set the annotation crossplane.io/external-name=%s on %s/%s and remove crossplane.io/paused; otherwise delete or rename the cloud resource and remove crossplane.io/paused",
			ids(blocking), blocking[0].ID, strings.ToLower(ref.Kind), ref.Name)
		if differ := differing(all, blocking); len(differ) > 0 {
			// Someone else's resource is where ours would be, and differs
			// from what the create sent: adopting it would let the
			// provider rewrite it to this managed resource's spec.
			d.Reason = ReasonArgsDiffer
			d.Message = fmt.Sprintf("%s's create may have met %s, which a weak proof would take for its own, but %s: someone else made it. It was left untouched, and the managed resource is paused so that the provider never rewrites it",
				ref, ids(differ), argsDiffer(differ))
			d.Action = fmt.Sprintf("inspect %s: if it is not this managed resource's, delete or rename it where it was made, or give %s/%s another name or key; if it is (its arguments were changed after the create), set the annotation crossplane.io/external-name=%s on %s/%s; then remove crossplane.io/paused",
				ids(differ), strings.ToLower(ref.Kind), ref.Name, differ[0].ID, strings.ToLower(ref.Kind), ref.Name)
			d.LookAlikes = slices.DeleteFunc(d.LookAlikes, func(r ExternalResource) bool {
				return slices.ContainsFunc(differ, func(x ExternalResource) bool { return x.ID == r.ID })
			})
		} else if len(blocking) == len(d.LookAlikes) {
			// Every resource in the way is proven another's: adopting
			// one would bind this managed resource to it.
			d.Reason = ReasonLookAlike
			d.Message = fmt.Sprintf("%s's natural key is taken by %s, which carries its crossplane tags but is not its (%s); it was left untouched",
				ref, ids(blocking), notOurs(all, blocking))
			d.Action = fmt.Sprintf("find who made %s (another cluster pointed at this account, a cluster rebuilt from the same manifests, or a person): give this managed resource another name, or delete %s there; then remove crossplane.io/paused from %s/%s. Do not adopt it: another managed resource manages it",
				ids(blocking), ids(blocking), strings.ToLower(ref.Kind), ref.Name)
			d.LookAlikes = nil // named already
		}
	case best().OnlyOnTagsPolicy() && rules.Mode != ModeAdoptOnTags:
		d.Outcome, d.Reason = report.OutcomeUnresolved, ReasonWeakProof
		d.Message = fmt.Sprintf("%s's cloud resource %s carries its crossplane tags, but the cloud reports no creation time and the create sent no UID tag: another cluster with the same manifests could have made it", ref, owned[0].r.ID)
		d.Action = fmt.Sprintf("if %s is this cluster's, set the annotation crossplane.io/external-name=%s on %s/%s; to adopt on crossplane tags alone for this kind, rerun intentjournal recover with --policy-kind %s=%s",
			owned[0].r.ID, owned[0].r.ID, strings.ToLower(ref.Kind), ref.Name, c.GVK.GroupKind(), ModeAdoptOnTags)
	case best().Weak() && owned[0].r.Args != ArgsSame:
		d.Outcome, d.Reason = report.OutcomeUnresolved, ReasonWeakProof
		d.Message = fmt.Sprintf("%s's cloud resource %s is proven its own only weakly (%s), and the lookup did not compare it with what the create sent: someone else's resource with the same proof cannot be told apart", ref, owned[0].r.ID, best())
		if why := c.argsUnknown(); why != "" {
			d.Message = fmt.Sprintf("%s's cloud resource %s is proven its own only weakly (%s), and %s", ref, owned[0].r.ID, best(), why)
		}
		d.Action = fmt.Sprintf("if %s is this managed resource's, set the annotation crossplane.io/external-name=%s on %s/%s; otherwise delete or rename it where it was made",
			owned[0].r.ID, owned[0].r.ID, strings.ToLower(ref.Kind), ref.Name)
	case owned[0].r.Listed:
		d.Outcome, d.Reason = report.OutcomeUnresolved, ReasonExternalNameUnknown
		d.Message = fmt.Sprintf("%s's cloud resource %s is its own (%s), but a tag listing found it by its cloud identifier and nothing observed it: which external name the provider observes it at is not known", ref, owned[0].r.ID, best())
		d.Action = fmt.Sprintf("find the external name of %s (for most kinds the last part of the identifier) and set the annotation crossplane.io/external-name to it on %s/%s",
			owned[0].r.ID, strings.ToLower(ref.Kind), ref.Name)
	case rules.Mode == ModeReportOnly:
		d.Outcome, d.Reason = report.OutcomeUnresolved, ReasonReportOnly
		d.Message = fmt.Sprintf("%s's cloud resource %s exists and is ours, but this kind's policy is report-only", ref, owned[0].r.ID)
		d.Action = fmt.Sprintf("set the annotation crossplane.io/external-name=%s on %s/%s, or rerun intentjournal recover with the adopt policy", owned[0].r.ID, strings.ToLower(ref.Kind), ref.Name)
	default:
		d.Outcome, d.Reason = report.OutcomeAdopted, ReasonAdopted
		adopt := owned[0].r
		d.Adopt = &adopt
		d.Orphans = resources(owned[1:])
		d.Message = fmt.Sprintf("adopted cloud resource %s (%s)", adopt.ID, best())
		if best().Weak() {
			d.Message = fmt.Sprintf("adopted cloud resource %s (%s, a weak proof: its arguments were checked and match what the create sent)", adopt.ID, best())
		}
		if len(d.Orphans) > 0 {
			d.Message += fmt.Sprintf("; %d later duplicate(s) %s are orphans", len(d.Orphans), ids(d.Orphans))
		}
	}
	if len(d.LookAlikes) > 0 {
		d.Message += fmt.Sprintf("; %d look-alike(s) %s carry its crossplane tags but are not its (%s) and were left untouched",
			len(d.LookAlikes), ids(d.LookAlikes), notOurs(all, d.LookAlikes))
		if d.Action != "" {
			d.Action += "; "
		}
		d.Action += fmt.Sprintf("find who made %s (another cluster pointed at this account, a cluster rebuilt from the same manifests, or a person) and delete it there or rename its managed resource: intentjournal never adopts, imports or deletes it", ids(d.LookAlikes))
	}
	for _, j := range all {
		f := report.Found{ID: j.r.ID, Listed: j.r.Listed, Tags: cloneTags(j.r.Tags), CreatedAt: j.r.CreatedAt, Owned: j.v.Proof != "",
			Proof: string(j.v.Proof), Weak: j.v.Proof.Weak(), LookAlike: j.v.LookAlike, NotOurs: j.v.NotOurs,
			Arguments: string(j.r.Args), ArgumentsDiffer: slices.Clone(j.r.ArgsDiffer), ArgumentsNotCompared: slices.Clone(j.r.ArgsNotCompared)}
		f.Adopted = d.Adopt != nil && d.Adopt.ID == j.r.ID
		d.Found = append(d.Found, f)
	}
	slices.SortFunc(d.Found, func(a, b report.Found) int { return cmp.Compare(a.ID, b.ID) })
	return d
}

// preferred orders proven resources: the strongest proof first; among
// equal proofs those created after the create began (less skew) before
// those created earlier, and those with no creation time last; then the
// first created, which a restarted provider's later copies follow; then
// by ID.
func preferred(a, b judged, began time.Time, skew time.Duration) int {
	if c := cmp.Compare(a.v.Proof.rank(), b.v.Proof.rank()); c != 0 {
		return c
	}
	class := func(r ExternalResource) int {
		switch {
		case r.CreatedAt.IsZero():
			return 2
		case !began.IsZero() && r.CreatedAt.Before(began.Add(-skew)):
			return 1
		}
		return 0
	}
	// A resource whose arguments were checked comes before one whose
	// were not: only the first can adopt on a weak proof.
	checked := func(r ExternalResource) int {
		if r.Args == ArgsSame {
			return 0
		}
		return 1
	}
	if c := cmp.Compare(checked(a.r), checked(b.r)); c != 0 {
		return c
	}
	if c := cmp.Compare(class(a.r), class(b.r)); c != 0 {
		return c
	}
	if c := a.r.CreatedAt.Compare(b.r.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.r.ID, b.r.ID)
}

// foundByID returns the report's record of the found resource id, with the
// proof Decide judged it by.
func (d *Decision) foundByID(id string) report.Found {
	for _, f := range d.Found {
		if f.ID == id {
			return f
		}
	}
	return report.Found{ID: id}
}

// argsDiffer says which arguments of rs differ from the create's.
func argsDiffer(rs []ExternalResource) string {
	if len(rs) == 1 {
		if len(rs[0].ArgsDiffer) == 0 {
			return "its arguments differ from what the create sent"
		}
		return fmt.Sprintf("its arguments differ from what the create sent (%s)", strings.Join(rs[0].ArgsDiffer, ", "))
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.ID
		if len(r.ArgsDiffer) > 0 {
			parts[i] += ": " + strings.Join(r.ArgsDiffer, ", ")
		}
	}
	return fmt.Sprintf("their arguments differ from what the create sent (%s)", strings.Join(parts, "; "))
}

// differing returns those of rs that Judge found someone else's because
// their arguments differ from the create's.
func differing(all []judged, rs []ExternalResource) []ExternalResource {
	var out []ExternalResource
	for _, r := range rs {
		if slices.ContainsFunc(all, func(j judged) bool { return j.r.ID == r.ID && j.v.Differs }) {
			out = append(out, r)
		}
	}
	return out
}

func resources(js []judged) []ExternalResource {
	out := make([]ExternalResource, len(js))
	for i, j := range js {
		out[i] = j.r
	}
	return out
}

// notOurs joins the reasons why each of rs is not ours.
func notOurs(all []judged, rs []ExternalResource) string {
	var s []string
	for _, r := range rs {
		for _, j := range all {
			if j.r.ID == r.ID && j.v.NotOurs != "" {
				s = append(s, r.ID+": "+j.v.NotOurs)
				break
			}
		}
	}
	if len(s) == 0 {
		return "no matching UID tag, crossplane tags or intent ID"
	}
	return strings.Join(s, "; ")
}

func ids(rs []ExternalResource) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.ID
	}
	return strings.Join(s, ", ")
}
