package demo

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/intentjournal/intentjournal/internal/tabular"
)

// WriteDNSTable prints the runs of a CloudDNS line side by side, one row
// each, under a heading that says what ran, and a line that says how many
// requests the providers sent off the machine. The runs with a kill time
// their convergence from the kill, the runs with no kill from the
// provider's start; the wrapped row shows its time as a multiple of the
// wrapped no-kill run's.
//
// Columns: MRS, the RecordSets (one record set each, in one zone); IN
// FLIGHT AT KILL, the MRs bound to no record set although the fake had
// made theirs; OVERWRITES AFTER (RE)START/TOTAL, the record sets the fake
// replaced (deleted and added in one change) since the kill, or the
// provider's start, and since the fake's start; 409S AFTER (RE)START, the
// alreadyExists answers it served; MRS LOOPING ON 409 and MRS STOPPED
// (CREATE INCOMPLETE), the MRs in those states at the end (see
// DNSStates); MRS READY ON OWN RECORD SET, the MRs Ready whose external
// name is their own record set's ID; RECORD SETS IN ZONE, the zone's
// record sets, N plus its two apex ones; REPORT ENTRIES (ADOPTED), the
// recovery report's entries and how many of them adopted a record set. It
// prints nothing when there are no results.
func WriteDNSTable(out io.Writer, results []Result) error {
	if len(results) == 0 {
		return nil
	}
	fmt.Fprint(out, dnsHeading(results))
	var noKill Result
	if k := slices.IndexFunc(results, func(r Result) bool { return r.Mode == ModeNoKill }); k >= 0 {
		noKill = results[k]
	}
	t := tabular.New(out, "RUN", "MRS", "IN FLIGHT AT KILL", "OVERWRITES AFTER (RE)START/TOTAL", "409S AFTER (RE)START",
		"MRS LOOPING ON 409", "MRS STOPPED (CREATE INCOMPLETE)", "MRS READY ON OWN RECORD SET", "RECORD SETS IN ZONE",
		"REPORT ENTRIES (ADOPTED)", "TIME TO CONVERGE")
	var off []string
	for _, r := range results {
		if !r.Available || r.DNS == nil {
			t.Row(r.Mode.RowName(), "", "", "", "", "", "", "", "", "", "unavailable: the provider has no --journal flag")
			continue
		}
		d := r.DNS
		off = append(off, d.OffMachine...)
		inFlight := strconv.Itoa(r.InFlight)
		if !r.Mode.Kills() {
			inFlight = "-"
		}
		t.Row(r.Mode.RowName(),
			strconv.Itoa(r.Total()),
			inFlight,
			fmt.Sprintf("%d/%d", d.Overwrites, d.OverwritesTotal),
			strconv.FormatInt(r.Conflicts, 10),
			strconv.Itoa(d.States.Looping),
			strconv.Itoa(d.States.Incomplete),
			strconv.Itoa(d.States.Bound),
			strconv.Itoa(d.RRSets),
			reportCell(r),
			dnsConvergeCell(r, noKill))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nrequests the providers sent off the machine (to a local guard, which refused them): %d\n", len(off))
	for _, o := range off[:min(len(off), 5)] {
		fmt.Fprintf(out, "  %s\n", o)
	}
	if len(off) > 5 {
		fmt.Fprintf(out, "  ... and %d more\n", len(off)-5)
	}
	return nil
}

// dnsHeading is the line above the table of results, at least one: the
// line, the size, the page size and the fake's changes.create latencies.
func dnsHeading(results []Result) string {
	r := results[0]
	if k := slices.IndexFunc(results, func(r Result) bool { return r.Mode.Kills() }); k >= 0 {
		r = results[k]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "crash-and-recover, line %s, terraform-provider-google against the fake Cloud DNS: %d RecordSets per run in one zone", r.Line, r.PerKind)
	if l, err := LineFor(r.Line); err == nil && l.Namespaced() {
		fmt.Fprintf(&b, " (%s in %s)", l.Group, strings.Join(l.Namespaces, ", "))
	}
	if r.DNS != nil {
		fmt.Fprintf(&b, ", list page size %d", r.DNS.PageSize)
	}
	if r.Mode.Kills() {
		fmt.Fprintf(&b, "; changes.create answered %s after it is carried out until SIGKILL, at once after; provider restarted at once; converge timed from the SIGKILL", r.CreateLatency)
	}
	if slices.ContainsFunc(results, func(r Result) bool { return !r.Mode.Kills() }) {
		b.WriteString("; no kill: no latency, converge timed from the provider's start")
	}
	b.WriteString("\n\n")
	return b.String()
}

// reportCell renders the recovery report's entries and adoptions: "-" for
// the unwrapped provider, which has no recovery pass, and "none written"
// for a wrapped provider that wrote none.
func reportCell(r Result) string {
	switch {
	case !r.Mode.Wrapped():
		return "-"
	case r.Report == nil:
		return "none written"
	}
	return fmt.Sprintf("%d (%d adopted)", len(r.Report.Entries), r.Report.Summary.Adopted)
}

// dnsConvergeCell renders a run's time to converge: with the wrapped run's
// ratio to noKill's; for a run that did not converge, when it settled or
// that it gave up.
func dnsConvergeCell(r, noKill Result) string {
	switch {
	case r.Converged:
		s := tabular.Age(r.ConvergeTime)
		if ratio, ok := r.Ratio(noKill); ok && r.Mode == ModeWrapped {
			s += fmt.Sprintf(" (%.1fx no kill)", ratio)
		}
		return s
	case r.DNS != nil && r.DNS.Settled:
		return "never (settled after " + tabular.Age(r.ConvergeTime) + ")"
	}
	return "never (gave up after " + tabular.Age(r.ConvergeTimeout) + ")"
}
