package crashmatrix

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Invariants, as named in violations and tables.
const (
	InvBoundOrReported    = "bound-or-reported"
	InvLookAlikeUntouched = "look-alike-untouched"
	InvLookAlikeUnchanged = "look-alike-unchanged"
	InvNotBoundToOlder    = "not-bound-to-older"
	InvNotStuck           = "not-stuck"
	InvOneConflict        = "one-conflict"
	InvJournal            = "journal-verifies"
	InvReport             = "report-validates"
)

// MR is what the invariants need of a managed resource.
type MR struct {
	Kind, Name, UID string
	ExternalName    string
	Ready, Paused   bool
	// IntentState is the state in the intent annotation, "" without one.
	IntentState string
	// Status summarises the conditions, for messages.
	Status string
	// CreatedAt is the creationTimestamp, which the API server keeps to
	// the second, rounded down.
	CreatedAt time.Time
}

// CloudObject is a live fake cloud object.
type CloudObject struct {
	// Kind is the managed kind the object is of: RecordSet, Network, or
	// Record for an untagged record set in the trials' zone.
	Kind string
	// ID is the fake cloud's own ID.
	ID string
	// ExternalName is what a managed resource bound to the object holds
	// as its external name, where that is not ID: a Record's Terraform
	// ID, composed from its zone, name and type. Reports name the object
	// by it too.
	ExternalName string
	// MR is the name of the managed resource the object is for: the
	// crossplane-name tag, or a Record's name.
	MR   string
	Tags map[string]string
	// Attrs are the object's arguments as the cloud holds them, by their
	// Terraform names: a record set's zone, name, type, ttl and rrdatas, a
	// network's name and cidrBlock.
	Attrs     map[string]string
	CreatedAt time.Time
}

// key is the name a managed resource binds the object by.
func (c CloudObject) key() string {
	if c.ExternalName != "" {
		return c.ExternalName
	}
	return c.ID
}

// name names the object in messages: its ID, and its external name
// where that differs.
func (c CloudObject) name() string {
	if c.ExternalName != "" {
		return c.ID + " (" + c.ExternalName + ")"
	}
	return c.ID
}

// Observation is what a trial left behind once the provider converged.
type Observation struct {
	MRs []MR
	// Cloud holds the trial's live cloud objects (those tagged with the
	// name of one of its managed resources), look-alikes included.
	Cloud []CloudObject
	// LookAlikes are the objects the harness made, as the cloud answered
	// their creates: before the managed resources, with their names and
	// crossplane tags but not their UID (issue #15), older or within the
	// clock-skew allowance; and the foreign records it raced into a
	// Record's key between the key probe and the create (issue #29). They
	// belong to no managed resource of the trial: recovery must not adopt,
	// delete, retag or change them, and no report need list them.
	LookAlikes []CloudObject
	// Reports are the recovery reports the provider wrote, as read from
	// disk, one per incarnation that wrote one.
	Reports [][]byte
	// Conflicts counts, per managed resource name, the creates the
	// provider settled as a 409 conflict (from its logs).
	Conflicts map[string]int
	// CloudConflicts counts the 409s the fake cloud answered during the
	// trial, per kind of cloud object: under KindRecordSet those of every
	// record set, the Records' included.
	CloudConflicts map[string]int64
	// Journal is the journal's verify report; nil in annotation-only mode.
	Journal    *journal.VerifyReport
	JournalErr error
}

// Violation is one broken invariant. Kind is "" for a violation of the
// whole trial (the journal, a report).
type Violation struct {
	Kind      string
	Invariant string
	Detail    string
}

func (v Violation) String() string {
	k := v.Kind
	if k == "" {
		k = "trial"
	}
	return fmt.Sprintf("%s: %s: %s", k, v.Invariant, v.Detail)
}

// Check returns the invariants o breaks, in a stable order.
func Check(o Observation) []Violation {
	var out []Violation
	reps, orphans, reported := decodeReports(o.Reports, &out)

	byExt := map[string][]string{}
	kindOf := map[string]string{}
	for _, m := range o.MRs {
		kindOf[m.Name] = m.Kind
		if m.ExternalName != "" {
			byExt[m.ExternalName] = append(byExt[m.ExternalName], m.Name)
		}
	}
	theirs := map[string]bool{}
	for _, la := range o.LookAlikes {
		theirs[la.ID] = true
	}
	live := map[string]CloudObject{}  // by ID
	bound := map[string]CloudObject{} // by the name a managed resource binds it by
	for _, c := range o.Cloud {
		live[c.ID] = c
		bound[c.key()] = c
		if theirs[c.ID] {
			continue // not ours: see look-alike-untouched
		}
		switch n := byExt[c.key()]; {
		case len(n) == 1:
		case len(n) > 1:
			out = append(out, Violation{c.Kind, InvBoundOrReported, fmt.Sprintf("%s %s is bound to %d managed resources: %s", c.Kind, c.name(), len(n), strings.Join(n, ", "))})
		case !orphans[c.key()]:
			out = append(out, Violation{c.Kind, InvBoundOrReported, fmt.Sprintf("%s %s (for %q) is bound to no managed resource and in no report", c.Kind, c.name(), c.MR)})
		}
	}

	for _, la := range o.LookAlikes {
		c, ok := live[la.ID]
		if !ok {
			out = append(out, Violation{la.Kind, InvLookAlikeUntouched, fmt.Sprintf("the look-alike %s %s of %s is gone", la.Kind, la.name(), la.MR)})
		}
		// A Record's key names whatever record sits there: a managed
		// resource holding it is bound to the look-alike only while the
		// look-alike lives. A cloud ID is never reused.
		if n := byExt[la.key()]; len(n) > 0 && (ok || la.ExternalName == "") {
			out = append(out, Violation{la.Kind, InvLookAlikeUntouched, fmt.Sprintf("the look-alike %s %s of %s is bound to %s", la.Kind, la.name(), la.MR, strings.Join(n, ", "))})
		}
		if !ok {
			continue
		}
		if !maps.Equal(c.Tags, la.Tags) {
			out = append(out, Violation{la.Kind, InvLookAlikeUnchanged, fmt.Sprintf("the look-alike %s %s of %s was retagged: %v, was %v", la.Kind, la.name(), la.MR, c.Tags, la.Tags)})
		}
		if d := attrsChanged(la.Attrs, c.Attrs); d != "" {
			out = append(out, Violation{la.Kind, InvLookAlikeUnchanged, fmt.Sprintf("the look-alike %s %s of %s was changed: %s", la.Kind, la.name(), la.MR, d)})
		}
	}

	for _, m := range o.MRs {
		if c, ok := bound[m.ExternalName]; ok && m.ExternalName != "" && c.CreatedAt.Before(m.CreatedAt) {
			out = append(out, Violation{m.Kind, InvNotBoundToOlder, fmt.Sprintf("%s is bound to %s %s, made at %s, before the managed resource at %s",
				m.Name, c.Kind, c.ID, c.CreatedAt.UTC().Format(time.RFC3339Nano), m.CreatedAt.UTC().Format(time.RFC3339))})
		}
	}

	for _, m := range o.MRs {
		switch {
		case m.Ready:
		case m.Paused && (reported[m.Name] || m.IntentState == string(journal.StateReported)):
		case m.Paused:
			out = append(out, Violation{m.Kind, InvNotStuck, fmt.Sprintf("%s is paused but no report names it (%s)", m.Name, m.Status)})
		default:
			out = append(out, Violation{m.Kind, InvNotStuck, fmt.Sprintf("%s is neither Ready nor paused (%s)", m.Name, m.Status)})
		}
	}

	perKind := map[string]int{}
	for _, m := range o.MRs {
		// The cloud counts a Record's 409s with the record sets'.
		k := m.Kind
		if k == KindRecord {
			k = KindRecordSet
		}
		perKind[k]++
	}
	for _, name := range sortedKeys(o.Conflicts) {
		if n := o.Conflicts[name]; n > 1 {
			out = append(out, Violation{kindOf[name], InvOneConflict, fmt.Sprintf("%s met %d conflicts", name, n)})
		}
	}
	for _, k := range sortedKeys(o.CloudConflicts) {
		if n := o.CloudConflicts[k]; n > int64(perKind[k]) {
			what := fmt.Sprintf("%d %ss", perKind[k], k)
			if k == KindRecordSet && slices.ContainsFunc(o.MRs, func(m MR) bool { return m.Kind == KindRecord }) {
				what = fmt.Sprintf("%d RecordSets and Records", perKind[k])
			}
			out = append(out, Violation{k, InvOneConflict, fmt.Sprintf("the cloud answered %d 409s for %s", n, what)})
		}
	}

	if o.JournalErr != nil {
		out = append(out, Violation{"", InvJournal, o.JournalErr.Error()})
	} else if o.Journal != nil && !o.Journal.OK() {
		out = append(out, Violation{"", InvJournal, fmt.Sprintf("%+v", *o.Journal)})
	}
	if reps == 0 {
		out = append(out, Violation{"", InvReport, "the provider wrote no recovery report"})
	}
	return out
}

// decodeReports validates and decodes every report. It returns how many
// validated, the IDs of the cloud objects they list as unadopted orphans,
// and the managed resources their entries name.
func decodeReports(raws [][]byte, out *[]Violation) (n int, orphans, named map[string]bool) {
	orphans, named = map[string]bool{}, map[string]bool{}
	for i, b := range raws {
		if err := report.ValidateJSON(b); err != nil {
			*out = append(*out, Violation{"", InvReport, fmt.Sprintf("report %d: %v", i, err)})
			continue
		}
		rep, err := report.Decode(b)
		if err != nil {
			*out = append(*out, Violation{"", InvReport, fmt.Sprintf("report %d: %v", i, err)})
			continue
		}
		n++
		for _, e := range rep.Entries {
			if e.Outcome.NeedsAttention() {
				named[e.Resource.Name] = true
			}
			for _, f := range e.Found {
				if !f.Adopted && (e.Outcome == report.OutcomeOrphan || e.Outcome == report.OutcomeConflict) {
					orphans[f.ID] = true
				}
			}
		}
	}
	return n, orphans, named
}

// attrsChanged describes how the arguments got differ from was, "" when
// they are the same: "ttl 600 -> 300, rrdatas 203.0.113.66 -> 192.0.2.10".
func attrsChanged(was, got map[string]string) string {
	var d []string
	for _, k := range sortedKeys(mergeKeys(was, got)) {
		w, wok := was[k]
		g, gok := got[k]
		switch {
		case wok && gok && w != g:
			d = append(d, fmt.Sprintf("%s %s -> %s", k, w, g))
		case wok && !gok:
			d = append(d, fmt.Sprintf("%s %s -> (none)", k, w))
		case !wok && gok:
			d = append(d, fmt.Sprintf("%s (none) -> %s", k, g))
		}
	}
	return strings.Join(d, ", ")
}

// mergeKeys returns a set of the keys of a and b.
func mergeKeys(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}
