package scan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// The scan's policy. The recovery pass's Decide makes every decision, from
// the same proofs and absence rules as in a provider; the scan then says
// what of it is done, since a stock provider has no Gate to hold a create
// and no journal to settle:
//
//	Decide's decision                  the scan's entry                  scan --apply
//	adopted, on a strong proof         adopted                           sets crossplane.io/external-name, removes the pending mark
//	ours on a weak proof (one or       unresolved,                       pauses (the provider would create again); an
//	  several: ambiguous)                AdoptionDisabledByPolicy          adopt command per resource, never run
//	conflict                           conflict                          pauses (a loop stops)
//	unresolved (a lookup failed, ...)  unresolved                        pauses
//	cleared, pending mark set          unresolved, NothingCreated        nothing: crossplane-runtime holds the create; the
//	                                                                       command that removes the mark, never run
//	cleared otherwise                  cleared                           nothing: the provider creates again by itself
//	orphan (a duplicate of what a      orphan                            nothing: scan never deletes
//	  strong proof adopts)
//
// A pause is never set on a managed resource whose create
// crossplane-runtime holds already (ReasonCreatePending), nor on one
// adopted. Every entry that needs an operator carries the exact kubectl
// commands, in its action and in Scan.Actions.

// policy turns the entries a recovery resolver gave for one candidate into
// the scan's: sources ["scan"], the reasons and evidence, the outcome the
// policy gives, and the actions with their commands, none applied yet.
// Each entry's Action holds, until finish, the part of Decide's action
// that still applies.
func (s *scanner) policy(w work, tg target, in []report.Entry) []report.Entry {
	reasons := make([]string, len(w.finding.Reasons))
	for i, r := range w.finding.Reasons {
		reasons[i] = string(r)
	}
	out := make([]report.Entry, 0, len(in))
	for _, e := range in {
		e.Sources = []string{report.SourceScan}
		e.Scan = &report.Scan{Reasons: slices.Clone(reasons), Evidence: slices.Clone(w.finding.Evidence)}
		if e.Outcome == report.OutcomeOrphan {
			ids := make([]string, len(e.Found))
			for i, f := range e.Found {
				ids[i] = f.ID
			}
			e.Action = fmt.Sprintf("check and delete the cloud resource %s where it was made: scan never deletes", strings.Join(ids, ", "))
			out = append(out, e)
			continue
		}
		s.decideMain(w, tg, &e)
		out = append(out, e)
	}
	return out
}

// decideMain applies the policy to the entry of the managed resource
// itself.
func (s *scanner) decideMain(w work, tg target, e *report.Entry) {
	held := w.finding.Held
	loop := w.finding.Has(ReasonAlreadyExistsLoop)
	base := strings.ReplaceAll(e.Action, "intentjournal recover", "intentjournal scan")
	switch {
	case e.Outcome == report.OutcomeCleared && held:
		e.Outcome = report.OutcomeUnresolved
		e.Message = "no cloud resource of its create exists, but crossplane-runtime holds the managed resource (\"cannot determine creation result\") until crossplane.io/external-create-pending is removed, which scan never does"
		base = ""
	case e.Reason == recovery.ReasonReportOnly:
		e.Message = weakMessage(e)
		base = ""
	case e.Reason == recovery.ReasonWeakProof:
		// Decide's action points at recover's --policy-kind: scan's adopt
		// commands replace it.
		base = ""
	}

	pause := !held && (e.Outcome == report.OutcomeConflict || e.Outcome == report.OutcomeUnresolved || (loop && e.Outcome != report.OutcomeAdopted))
	var actions []report.ScanAction
	if pause {
		note := "holds the create, which the provider would run again, until an operator has decided"
		if loop {
			note = "stops the loop on \"already exists\""
		}
		actions = append(actions, report.ScanAction{Type: report.ScanActionPause, Commands: []string{tg.pauseCommand()}, Note: note})
	}
	own := w.obj.GetAnnotations()[recovery.AnnotationExternalName]
	var boundElsewhere, listed []string
	offered, differing := adoptable(e)
	for _, f := range offered {
		names := externalNames(f.ID, f.Listed)
		if anyIn(s.bound, names) && !slices.Contains(names, own) && e.Outcome != report.OutcomeAdopted {
			// Another managed resource is bound to it: a same-named
			// managed resource of another namespace, whose tags are the
			// same.
			boundElsewhere = append(boundElsewhere, f.ID)
			continue
		}
		if f.Listed {
			// Its ID is the cloud's identifier, no external name: a
			// command setting it would point the provider at nothing.
			l := f.ID
			if len(names) > 1 {
				l += " (its external name likely one of " + strings.Join(names[1:], ", ") + ")"
			}
			listed = append(listed, l)
			continue
		}
		cmds := []string{tg.adoptCommand(f.ID, held)}
		if pause {
			cmds = append(cmds, tg.unpauseCommand())
		}
		actions = append(actions, report.ScanAction{Type: report.ScanActionAdopt, ExternalName: f.ID, Commands: cmds, Note: adoptNote(e, f)})
	}
	if e.Outcome == report.OutcomeUnresolved && e.Reason == recovery.ReasonNothingCreated {
		actions = append(actions, report.ScanAction{Type: report.ScanActionRemovePending, Commands: []string{tg.removePendingCommand()},
			Note: "nothing of its create was found: removing the mark lets crossplane-runtime create it again; scan --apply never clears a mark"})
	}
	for _, f := range differing {
		e.Message += fmt.Sprintf(" (%s holds the key, but its arguments differ from the managed resource's (%s): adopting it would let the provider change it, so no adopt command is offered)",
			f.ID, strings.Join(f.ArgumentsDiffer, ", "))
	}
	if len(boundElsewhere) > 0 {
		e.Message += fmt.Sprintf(" (%s: bound to another managed resource, not offered for adoption)", strings.Join(boundElsewhere, ", "))
	}
	if len(listed) > 0 {
		e.Message += fmt.Sprintf(" (%s: listed by its cloud identifier, so no adopt command is offered: which external name the provider observes it at, only the provider can confirm)", strings.Join(listed, "; "))
	}
	e.Scan.Actions = actions
	e.Action = base
}

// adoptable returns the found resources an adopt action is offered for:
// the one Decide adopted; else those proven ours; else, for a conflict,
// those that hold the key, are no look-alike (an operator may know them to
// be this managed resource's), and whose arguments were not found to
// differ from the managed resource's (differing). A look-alike is never
// offered: another managed resource manages it; nor is a resource whose
// arguments differ: adopting it would let the provider change it.
func adoptable(e *report.Entry) (offered, differing []report.Found) {
	if e.Outcome == report.OutcomeAdopted {
		for _, f := range e.Found {
			if f.Adopted {
				return []report.Found{f}, nil
			}
		}
		return nil, nil
	}
	var owned, holding []report.Found
	for _, f := range e.Found {
		switch {
		case f.LookAlike:
		case f.Owned:
			owned = append(owned, f)
		case f.Arguments == string(recovery.ArgsDifferent):
			differing = append(differing, f)
		default:
			holding = append(holding, f)
		}
	}
	if len(owned) > 0 {
		return owned, nil
	}
	if e.Outcome == report.OutcomeConflict {
		return holding, differing
	}
	return nil, nil
}

// adoptNote says why an adopt action is offered, and whether --apply may
// carry it out.
func adoptNote(e *report.Entry, f report.Found) string {
	switch {
	case f.Adopted && recovery.Proof(f.Proof).Strong():
		return fmt.Sprintf("proven this create's by %s, a strong proof: scan --apply adopts it", f.Proof)
	case f.Owned:
		return fmt.Sprintf("proven this create's only by %s, a weak proof: scan --apply adopts only on a strong proof (IntentID, RecordedID or UIDTag); adopt it yourself if you know it is this managed resource's", f.Proof)
	}
	why := f.NotOurs
	if why == "" {
		why = "it carries none of this managed resource's tags"
	}
	if f.Arguments == string(recovery.ArgsSame) {
		return fmt.Sprintf("holds the key and matches every argument the managed resource sets, so adopting it changes nothing, but is not proven this managed resource's (%s): adopt it only if you know it is", strings.TrimSuffix(why, "."))
	}
	return fmt.Sprintf("holds the key but is not proven this managed resource's (%s): adopt it only if you know it is", strings.TrimSuffix(why, "."))
}

// weakMessage is the message of an entry whose adoption the policy
// refused: what was found, on which weak proofs, and that scan chooses
// none when several are.
func weakMessage(e *report.Entry) string {
	var owned []string
	for _, f := range e.Found {
		if f.Owned {
			owned = append(owned, fmt.Sprintf("%s (%s)", f.ID, f.Proof))
		}
	}
	const policy = "scan adopts only on a strong proof (IntentID, RecordedID or UIDTag), which a stock provider's create never leaves"
	switch len(owned) {
	case 0:
		return fmt.Sprintf("%s: %s", e.Message, policy)
	case 1:
		return fmt.Sprintf("%s's cloud resource %s is proven its create's only weakly: someone else's resource with the same proof could not be told apart, and %s",
			e.Resource, owned[0], policy)
	}
	return fmt.Sprintf("%d cloud resources are proven %s's create's only weakly: %s. Ambiguous: they cannot be told apart, and scan chooses none; %s",
		len(owned), e.Resource, strings.Join(owned, ", "), policy)
}

// finish writes the entry's action: what is left of Decide's, then each
// action that was not applied, with its commands.
func finish(e *report.Entry) {
	if e.Scan == nil {
		return
	}
	var parts []string
	if e.Action != "" {
		parts = append(parts, e.Action)
	}
	for _, a := range e.Scan.Actions {
		if a.Applied {
			continue
		}
		cmds := strings.Join(a.Commands, " && ")
		switch a.Type {
		case report.ScanActionPause:
			parts = append(parts, fmt.Sprintf("to pause it (%s): %s", a.Note, cmds))
		case report.ScanActionAdopt:
			if e.Outcome == report.OutcomeAdopted {
				parts = append(parts, fmt.Sprintf("scan --apply adopts %s, as does: %s", a.ExternalName, cmds))
			} else {
				parts = append(parts, fmt.Sprintf("if %s is this managed resource's, adopt it: %s", a.ExternalName, cmds))
			}
		case report.ScanActionRemovePending:
			parts = append(parts, fmt.Sprintf("once you are sure nothing was created, let it create again: %s", cmds))
		}
	}
	e.Action = strings.Join(parts, "; ")
}
