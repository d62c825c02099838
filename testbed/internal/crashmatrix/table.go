package crashmatrix

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// invariants lists every invariant, in the order of docs/reliability.md.
var invariants = []string{InvBoundOrReported, InvLookAlikeUntouched, InvLookAlikeUnchanged, InvNotBoundToOlder, InvNotStuck, InvOneConflict, InvJournal, InvReport}

// Table renders results as Markdown: pass counts per crash point and kind
// (Records only when a trial created some), how often the planned crash
// happened, the trials with look-alikes and with issue #29's variants, the
// trials that broke each invariant, and the seeds that failed.
func Table(line string, mode Mode, seed uint64, results []TrialResult, took time.Duration) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Line %s, mode %s, %d trials from seed %d, %s.\n\n", line, mode, len(results), seed, took.Round(time.Second))
	kinds := []string{KindRecordSet, KindNetwork}
	if slices.ContainsFunc(results, func(r TrialResult) bool { return r.Records > 0 }) {
		kinds = append(kinds, KindRecord)
	}
	sb.WriteString("| crash point |")
	for _, k := range kinds {
		fmt.Fprintf(&sb, " %s passed |", k)
	}
	sb.WriteString(" crash at the point | MRs in flight at the crash |\n|---|" + strings.Repeat("---|", len(kinds)) + "---|---|\n")
	var failed []string
	for _, pt := range Points {
		pass, total := make([]int, len(kinds)), make([]int, len(kinds))
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
			for i, k := range kinds {
				if !containsKind(r.Kinds(), k) {
					continue
				}
				total[i]++
				if r.Passed(k) {
					pass[i]++
				}
			}
		}
		fmt.Fprintf(&sb, "| %s |", pt)
		for i := range kinds {
			fmt.Fprintf(&sb, " %d/%d |", pass[i], total[i])
		}
		fmt.Fprintf(&sb, " %d/%d | %d |\n", fired, n, inflight)
	}

	var la, laPassed, laRS, laNet int
	var skew, skewWeak, skewPassed, rec, recs, made, recPassed, healed, healedPassed, sup, supPassed int
	broke := map[string][2]int{} // per invariant: trials, look-alike trials
	for _, r := range results {
		withLookAlikes := r.Plan.LookAlikes() > 0
		if withLookAlikes {
			la++
			laRS += r.Plan.LookAlikeRecordSets
			laNet += r.Plan.LookAlikeNetworks
			if r.passedAll() {
				laPassed++
			}
		}
		if withLookAlikes && r.Plan.LookAlikesWithinSkew {
			skew++
			if r.Weak {
				skewWeak++
			}
			if r.passedAll() {
				skewPassed++
			}
		}
		if r.Plan.LookAlikesSuperset && (withLookAlikes && r.Plan.LookAlikesWithinSkew || r.Records > 0) {
			sup++
			if r.passedAll() {
				supPassed++
			}
		}
		if r.Healed {
			healed++
			if r.passedAll() {
				healedPassed++
			}
		}
		if r.Records > 0 {
			rec++
			recs += r.Records
			made += r.Foreign
			if r.passedAll() {
				recPassed++
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
	fmt.Fprintf(&sb, "\nLook-alikes within the skew allowance, arguments of their own (issue #29): %d trials; the provider sent no UID tag in %d of them; %d of %d passed.\n",
		skew, skewWeak, skewPassed, skew)
	fmt.Fprintf(&sb, "Foreign records (issue #29): %d trials created %d Records; the harness made %d of %d foreign records between the key probe and the create (the Record's own create won the other races); %d of %d trials passed.\n",
		rec, recs, made, recs, recPassed, rec)
	fmt.Fprintf(&sb, "Superset look-alikes (our spec and tags plus a tag of their own; a foreign record with TTL 600 where the Record left the default): %d trials; %d of %d passed.\n",
		sup, supPassed, sup)
	fmt.Fprintf(&sb, "Healed: %d trials converged only after the harness stopped the cloud failing, past the converge window; %d of %d passed.\n",
		healed, healedPassed, healed)
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
				if r.Plan.LookAlikesWithinSkew {
					what += " within the skew allowance"
				}
				if r.Plan.LookAlikesSuperset {
					what += ", supersets"
				}
			}
			if r.Weak {
				what += ", no UID tag"
			}
			if r.Records > 0 {
				what += fmt.Sprintf(", foreign records %d of %d", r.Foreign, r.Records)
			}
			if r.Healed {
				what += ", past the converge window with the cloud healthy"
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

// passedAll reports whether every kind the trial created passed.
func (r TrialResult) passedAll() bool {
	return !slices.ContainsFunc(r.Kinds(), func(k string) bool { return !r.Passed(k) })
}
