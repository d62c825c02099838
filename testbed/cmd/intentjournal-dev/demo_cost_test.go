package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/testbed/internal/demo"
)

// costRuns are hand-built results of the two runs with no kill, 200 MRs of
// each kind: the wrapped one 5% slower, 10% more CPU and as many writes.
func costRuns() (wrapped, unwrapped demo.Result) {
	unwrapped = demo.Result{
		Line: demo.LineV2, Mode: demo.ModeUnwrappedNoKill, Available: true, PerKind: 200, CreateLatency: time.Second, RestartLatency: time.Second,
		Ready: 400, ReportSource: "none", Converged: true, ConvergeTime: 20 * time.Second, ConvergeTimeout: 3 * time.Minute,
		Cost: &demo.Cost{PerKind: 200, CPU: 8 * time.Second, PeakRSS: 96 << 20,
			Requests: map[string]int64{"GET": 410, "LIST": 6, "WATCH": 2, "CREATE": 410, "UPDATE": 1200, "PATCH": 800}},
	}
	wrapped = demo.Result{
		Line: demo.LineV2, Mode: demo.ModeNoKill, Available: true, PerKind: 200, CreateLatency: time.Second, RestartLatency: time.Second,
		Ready: 400, ReportSource: "recovery report", Converged: true, ConvergeTime: 21 * time.Second, ConvergeTimeout: 3 * time.Minute,
		Cost: &demo.Cost{PerKind: 200, CPU: 8800 * time.Millisecond, PeakRSS: 104 << 20,
			Requests: map[string]int64{"GET": 830, "LIST": 8, "CREATE": 410, "UPDATE": 1200, "PATCH": 800}},
	}
	return wrapped, unwrapped
}

// TestCostTable checks the cost table against golden files.
func TestCostTable(t *testing.T) {
	wrapped, unwrapped := costRuns()
	timedOut := unwrapped
	timedOut.Converged, timedOut.Ready, timedOut.Stuck, timedOut.ConvergeTime = false, 390, 10, 3*time.Minute
	dirty := unwrapped
	dirty.Duplicates = 3
	noWrites := unwrapped
	noWrites.Cost = &demo.Cost{PerKind: 200, CPU: time.Second, PeakRSS: 1 << 20, Requests: map[string]int64{"GET": 3}}
	killed := demo.Result{Line: demo.LineV2, Mode: demo.ModeWrapped, Available: true, PerKind: 200, Converged: true, ConvergeTime: 30 * time.Second}
	cases := map[string]struct {
		reason  string
		results []demo.Result
	}{
		"demo-cost.txt": {
			reason:  "Both runs with no kill, and the wrapped one's figures as multiples of the unwrapped one's; a run with a kill has no cost row.",
			results: []demo.Result{killed, wrapped, unwrapped},
		},
		"demo-cost-wrapped-only.txt": {
			reason:  "The wrapped run with no kill alone: its row, no ratio.",
			results: []demo.Result{wrapped},
		},
		"demo-cost-baseline-timeout.txt": {
			reason:  "An unwrapped baseline that never converged shows as such, with a note and no ratio.",
			results: []demo.Result{wrapped, timedOut},
		},
		"demo-cost-baseline-no-writes.txt": {
			reason:  "A baseline that counted no write gives no ratio, and says why.",
			results: []demo.Result{wrapped, noWrites},
		},
		"demo-cost-baseline-duplicates.txt": {
			reason:  "An unwrapped baseline that converged with duplicates keeps its ratios, with a note.",
			results: []demo.Result{wrapped, dirty},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeCostTable(&buf, tc.results); err != nil {
				t.Fatalf("%s: writeCostTable(): %v", tc.reason, err)
			}
			golden.Assert(t, name, buf.Bytes())
		})
	}
	t.Run("NoCost", func(t *testing.T) {
		var buf bytes.Buffer
		if err := writeCostTable(&buf, []demo.Result{killed}); err != nil || buf.Len() != 0 {
			t.Errorf("writeCostTable() of runs with a kill only = %q, %v; want nothing", buf.String(), err)
		}
	})
}
