package crashmatrix

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// invariants lists every invariant, in the order of docs/reliability.md.
var invariants = []string{InvBoundOrReported, InvLookAlikeUntouched, InvNotBoundToOlder, InvNotStuck, InvOneConflict, InvJournal, InvReport}

// Table renders results as Markdown: pass counts per crash point and kind,
// how often the planned crash happened, the trials with look-alikes, the
// trials that broke each invariant, and the seeds that failed.
func Table(line string, mode Mode, seed uint64, results []TrialResult, took time.Duration) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Line %s, mode %s, %d trials from seed %d, %s.\n\n", line, mode, len(results), seed, took.Round(time.Second))
	fmt.Fprintf(&sb, "| crash point | RecordSet passed | Network passed | crash at the point | MRs in flight at the crash |\n|---|---|---|---|---|\n")
	var failed []string
	for _, pt := range Points {
		var pass, total [2]int
		fired, n, inflight := 0, 0, 0
		for _, r := range results {
			if r.Plan.Point != pt {
				continue
			}
			n++
			inflight += r.InFlight
			if r.Fired {
				fired++
			}
			for i, k := range []string{KindRecordSet, KindNetwork} {
				if !containsKind(r.Plan.Kinds(), k) {
					continue
				}
				total[i]++
				if r.Passed(k) {
					pass[i]++
				}
			}
		}
		fmt.Fprintf(&sb, "| %s | %d/%d | %d/%d | %d/%d | %d |\n", pt, pass[0], total[0], pass[1], total[1], fired, n, inflight)
	}

	var la, laPassed, laRS, laNet int
	broke := map[string][2]int{} // per invariant: trials, look-alike trials
	for _, r := range results {
		withLookAlikes := r.Plan.LookAlikes() > 0
		if withLookAlikes {
			la++
			laRS += r.Plan.LookAlikeRecordSets
			laNet += r.Plan.LookAlikeNetworks
			if !slices.ContainsFunc(r.Plan.Kinds(), func(k string) bool { return !r.Passed(k) }) {
				laPassed++
			}
		}
		seen := map[string]bool{}
		for _, v := range r.Violations {
			if seen[v.Invariant] {
				continue
			}
			seen[v.Invariant] = true
			b := broke[v.Invariant]
			b[0]++
			if withLookAlikes {
				b[1]++
			}
			broke[v.Invariant] = b
		}
	}
	fmt.Fprintf(&sb, "\nLook-alikes (issue #15): %d of %d trials met them (%d RecordSets and %d Networks had one); %d of %d passed for every kind they create.\n",
		la, len(results), laRS, laNet, laPassed, la)
	fmt.Fprintf(&sb, "\n| invariant | trials that broke it | of them with look-alikes |\n|---|---|---|\n")
	for _, inv := range invariants {
		fmt.Fprintf(&sb, "| %s | %d | %d |\n", inv, broke[inv][0], broke[inv][1])
	}

	var sumDur time.Duration
	for _, r := range results {
		sumDur += r.Duration
		if n := len(r.Violations); n > 0 {
			what := string(r.Plan.Point)
			if r.Plan.LookAlikes() > 0 {
				what += fmt.Sprintf(", look-alikes rs:%d net:%d", r.Plan.LookAlikeRecordSets, r.Plan.LookAlikeNetworks)
			}
			failed = append(failed, fmt.Sprintf("- seed %d (%s): %d violations; first: %s", r.Plan.Seed, what, n, r.Violations[0]))
		}
	}
	if len(results) > 0 {
		fmt.Fprintf(&sb, "\nMean trial: %s.\n", (sumDur / time.Duration(len(results))).Round(100*time.Millisecond))
	}
	if len(failed) > 0 {
		fmt.Fprintf(&sb, "\nTrials with violations:\n%s\n", strings.Join(failed, "\n"))
	}
	return sb.String()
}

func containsKind(ks []string, k string) bool { return slices.Contains(ks, k) }
