package crashmatrix

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// invariants lists every invariant, in the order of docs/reliability.md.
var invariants = []string{InvBoundOrReported, InvLookAlikeUntouched, InvNotBoundToOlder, InvNotStuck, InvOneConflict, InvJournal, InvReport}

// Table renders results as Markdown: pass counts per crash point and kind,
// how often the planned crash happened, the trials with look-alikes, the
// trials that broke each invariant, and the seeds that failed.
func Table(mode Mode, seed uint64, results []TrialResult, took time.Duration) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Mode %s, %d trials from seed %d, %s.\n\n", mode, len(results), seed, took.Round(time.Second))
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

func TestTable(t *testing.T) {
	plain := Plan{Seed: 1, Point: AfterBegin, RecordSets: 2, Networks: 2, KillOnHit: 1}
	la := Plan{Seed: 2, Point: AfterBegin, RecordSets: 2, Networks: 2, KillOnHit: 1, LookAlikeRecordSets: 1, LookAlikeNetworks: 2}
	laNet := Plan{Seed: 3, Point: DuringCreate, Networks: 4, KillOnHit: 1, LookAlikeNetworks: 1}
	results := []TrialResult{
		{Plan: plain, Fired: true, InFlight: 1, Duration: 10 * time.Second,
			Violations: []Violation{{KindNetwork, InvNotStuck, "a"}, {KindNetwork, InvNotStuck, "b"}}},
		{Plan: la, Fired: true, Duration: 20 * time.Second},
		{Plan: laNet, Fired: true, InFlight: 2, Duration: 30 * time.Second,
			Violations: []Violation{{KindNetwork, InvLookAlikeUntouched, "c"}, {KindNetwork, InvNotBoundToOlder, "d"}}},
	}
	want := `Mode journal, 3 trials from seed 1, 1m0s.

| crash point | RecordSet passed | Network passed | crash at the point | MRs in flight at the crash |
|---|---|---|---|---|
| before-begin | 0/0 | 0/0 | 0/0 | 0 |
| after-begin | 2/2 | 1/2 | 2/2 | 1 |
| during-create | 0/0 | 0/1 | 1/1 | 2 |
| after-create | 0/0 | 0/0 | 0/0 | 0 |
| after-settle | 0/0 | 0/0 | 0/0 | 0 |
| during-recovery | 0/0 | 0/0 | 0/0 | 0 |

Look-alikes (issue #15): 2 of 3 trials met them (1 RecordSets and 3 Networks had one); 1 of 2 passed for every kind they create.

| invariant | trials that broke it | of them with look-alikes |
|---|---|---|
| bound-or-reported | 0 | 0 |
| look-alike-untouched | 1 | 1 |
| not-bound-to-older | 1 | 1 |
| not-stuck | 1 | 0 |
| one-conflict | 0 | 0 |
| journal-verifies | 0 | 0 |
| report-validates | 0 | 0 |

Mean trial: 20s.

Trials with violations:
- seed 1 (after-begin): 2 violations; first: Network: not-stuck: a
- seed 3 (during-create, look-alikes rs:0 net:1): 2 violations; first: Network: look-alike-untouched: c
`
	if diff := cmp.Diff(want, Table(ModeJournal, 1, results, time.Minute)); diff != "" {
		t.Errorf("Table(): a trial counts once per invariant it broke, and a look-alike trial passes only when every kind it creates passed.\n-want, +got:\n%s", diff)
	}
}
