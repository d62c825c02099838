package demo

import (
	"slices"
	"strings"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
)

// DNSResult is what a run of a CloudDNS line measured besides Result's
// common fields: the record sets terraform-provider-google overwrote, the
// MRs by state, the zone, and what the provider sent off the machine.
//
// After a kill with every create in flight, the unwrapped provider creates
// each record set again. terraform-provider-google's create reads the
// zone's first list page only: a record set it finds there is deleted and
// added again in one change (an overwrite, silent; the MR ends Ready), and
// one past the first page meets 409 alreadyExists (the MR loops on it). An
// MR whose create the kill caught between crossplane-runtime's pending and
// succeeded marks is stopped at "cannot determine creation result".
type DNSResult struct {
	// PageSize is the fake's default page size of a list.
	PageSize int
	// Overwrites counts the record sets the fake replaced since the kill
	// (in a run with no kill: since the provider's start);
	// OverwritesTotal since the fake's start.
	Overwrites, OverwritesTotal int64
	// Changes counts the changes the fake carried out, in all.
	Changes int64
	// States counts the MRs at the end, by state.
	States DNSStates
	// RRSets is how many record sets the zone holds at the end, its two
	// apex record sets (SOA and NS) included.
	RRSets int
	// Settled is true when every MR reached a state it keeps before
	// ConvergeTimeout: Ready, or in the unwrapped run with a kill, Ready,
	// looping on 409 or stopped.
	Settled bool
	// OffMachine lists where the requests the provider sent off the
	// machine were going, each refused by the demo's guard.
	OffMachine []string
}

// DNSStates counts RecordSet MRs by state.
type DNSStates struct {
	// Ready are Ready and Synced; Bound are those of them whose external
	// name is the ID of their own record set.
	Ready, Bound int
	// Looping are not Synced because their last create met 409
	// alreadyExists: crossplane-runtime retries it, forever.
	Looping int
	// Incomplete are stopped by crossplane-runtime: their last create left
	// its pending mark and no outcome ("cannot determine creation result"),
	// and it does not create again until someone removes the mark.
	Incomplete int
	// Converging are none of these: still on their way.
	Converging int
}

// dnsState is the state of one RecordSet MR, in DNSStates' terms.
type dnsState int

const (
	dnsConverging dnsState = iota
	dnsReady
	dnsLooping
	dnsIncomplete
)

// Messages of the Synced condition that name a state. terraform-provider-
// google's 409 carries Google's reason, alreadyExists; crossplane-runtime
// v2 stops a create it cannot account for with errCreateIncomplete.
const (
	msgAlreadyExists    = "alreadyExists"
	msgCreateIncomplete = "cannot determine creation result"
)

// dnsStateOf returns m's state. A Synced condition that is not True and
// says alreadyExists is a loop whatever Ready says (a Ready MR whose later
// reconcile failed keeps Ready), as testbed/gcpdns/e2e counts it.
func dnsStateOf(m managed) dnsState {
	switch {
	case !m.Synced && strings.Contains(m.SyncedMessage, msgAlreadyExists):
		return dnsLooping
	case m.Ready && m.Synced:
		return dnsReady
	case !m.Synced && strings.Contains(m.SyncedMessage, msgCreateIncomplete):
		return dnsIncomplete
	}
	return dnsConverging
}

// boundToOwn reports whether m's external name is the ID of its own
// record set, the one its name gives (dnsRecordSet).
func boundToOwn(m managed) bool { return m.ExternalName == recordSetID(dnsName(m.Ref.Name), "A") }

// countDNS counts mrs by state.
func countDNS(mrs []managed) DNSStates {
	var s DNSStates
	for _, m := range mrs {
		switch dnsStateOf(m) {
		case dnsReady:
			s.Ready++
			if boundToOwn(m) {
				s.Bound++
			}
		case dnsLooping:
			s.Looping++
		case dnsIncomplete:
			s.Incomplete++
		default:
			s.Converging++
		}
	}
	return s
}

// Settled reports whether s, the states of all of a run's total MRs, is
// one the run waits for: every MR Ready, or in the unwrapped run with a
// kill (ModeUnwrapped), every MR Ready, looping or stopped.
func (s DNSStates) Settled(m Mode, total int) bool {
	if m == ModeUnwrapped {
		return s.Converging == 0 && s.Ready+s.Looping+s.Incomplete == total
	}
	return s.Ready == total
}

// Reason is a message that MRs of one state carry, and how many carry it.
type Reason struct {
	Message string
	Count   int
}

// maxReasonLen bounds a Reason's message: the start of an error says
// which it is.
const maxReasonLen = 160

// convergingReasons returns, most frequent first, the Synced messages of
// the MRs still converging, each cut at maxReasonLen, at most limit of
// them: what a run that gave up waiting logs, to say why.
func convergingReasons(mrs []managed, limit int) []Reason {
	counts := map[string]int{}
	for _, m := range mrs {
		if dnsStateOf(m) != dnsConverging {
			continue
		}
		msg := m.SyncedMessage
		if msg == "" {
			msg = "(no Synced message)"
		}
		if len(msg) > maxReasonLen {
			msg = msg[:maxReasonLen] + "..."
		}
		counts[msg]++
	}
	out := make([]Reason, 0, len(counts))
	for m, n := range counts {
		out = append(out, Reason{Message: m, Count: n})
	}
	slices.SortFunc(out, func(a, b Reason) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Message, b.Message)
	})
	return out[:min(len(out), limit)]
}

// dnsZoneOf returns the demo's zone in s; the zero ZoneStats when the fake
// holds none.
func dnsZoneOf(s fakeclouddns.Stats) fakeclouddns.ZoneStats {
	return s.Zones[dnsProject+"/"+dnsZone]
}

// inFlightDNS counts the MRs not bound to their own record set although
// the zone holds it: creates a crash interrupted after the fake carried
// out their change.
func inFlightDNS(mrs []managed, z fakeclouddns.ZoneStats) int {
	exists := map[string]bool{}
	for _, rr := range z.RRSets {
		exists[recordSetID(rr.Name, rr.Type)] = true
	}
	n := 0
	for _, m := range mrs {
		if !boundToOwn(m) && exists[recordSetID(dnsName(m.Ref.Name), "A")] {
			n++
		}
	}
	return n
}

// unboundDNS returns, sorted by ID, the zone's record sets that no MR's
// crossplane.io/external-name names, each with the MR its name gives; the
// apex record sets, the zone's own, are not listed.
func unboundDNS(mrs []managed, z fakeclouddns.ZoneStats) []Orphan {
	bound := boundIDs(mrs)
	byName := map[string]journal.ResourceRef{}
	for _, m := range mrs {
		byName[dnsName(m.Ref.Name)] = m.Ref
	}
	var out []Orphan
	for _, rr := range z.RRSets {
		id := recordSetID(rr.Name, rr.Type)
		if rr.Name == z.DNSName || bound[id] {
			continue
		}
		out = append(out, Orphan{ID: id, Kind: kindRecordSet, Resource: byName[rr.Name]})
	}
	slices.SortFunc(out, func(a, b Orphan) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// reportComplete reports whether rep accounts for every create in flight
// at the kill: inFlight adopted, and no conflict, orphan or unresolved
// entry. Cleared entries (a create that never reached the cloud) are
// allowed.
func reportComplete(rep *report.Report, inFlight int) bool {
	if rep == nil {
		return false
	}
	s := rep.Summary
	return s.Adopted == inFlight && s.Conflict == 0 && s.Orphan == 0 && s.Unresolved == 0
}

// Meets reports whether r, a run of a CloudDNS line whose DNS d is, left
// what the wrapped provider promises: every MR Ready and bound to its own
// record set, no record set overwritten, none looping on 409, a recovery
// report that adopted every create in flight and names exactly the
// orphans present, and nothing sent off the machine.
func (d DNSResult) Meets(r Result) bool {
	return r.Converged && d.OverwritesTotal == 0 && d.States.Looping == 0 && d.States.Bound == r.Total() &&
		reportComplete(r.Report, r.InFlight) && sameSet(r.OrphansPresent, r.OrphansReported) && len(d.OffMachine) == 0
}
