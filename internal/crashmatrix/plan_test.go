package crashmatrix

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewPlanIsAFunctionOfItsSeed(t *testing.T) {
	for seed := range uint64(500) {
		a, b := NewPlan(seed, false), NewPlan(seed, false)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("NewPlan(%d) twice: a replayed seed must give the same trial; -first, +second:\n%s", seed, diff)
		}
	}
}

func TestNewPlanBounds(t *testing.T) {
	points := map[Point]int{}
	for seed := range uint64(2000) {
		p := NewPlan(seed, false)
		points[p.Point]++
		checks := map[string]struct {
			reason string
			ok     bool
		}{
			"Total":      {"A trial creates 4 to 10 managed resources.", p.Total() >= 4 && p.Total() <= 10},
			"KillOnHit":  {"The kill lands on one of the first half of the hits.", p.KillOnHit >= 1 && p.KillOnHit <= (p.Total()+1)/2},
			"Latency":    {"Create latency is 300ms to 1.5s.", p.Faults.CreateLatency >= 300*time.Millisecond && p.Faults.CreateLatency < 1500*time.Millisecond},
			"Rates":      {"Fault rates are probabilities.", p.Faults.ErrorRate >= 0 && p.Faults.ErrorRate < 1 && p.Faults.AmbiguousRate >= 0 && p.Faults.AmbiguousRate < 1},
			"HeldCreate": {"A kill during the create needs the cloud to hold it for at least 1s.", (p.Point != DuringCreate && p.First != DuringCreate) || p.Faults.CreateLatency >= time.Second},
			"Recovery": {"A recovery trial first crashes where intents stay unsettled.",
				p.Point != DuringRecovery || ((p.First == AfterBegin || p.First == DuringCreate) && p.RecoveryKillOnHit >= 1 && p.RecoveryKillOnHit <= 3)},
			"Failpoint": {"Every point but the two the harness drives has a failpoint.",
				(p.Point.Failpoint() == "") == (p.Point == DuringCreate || p.Point == DuringRecovery)},
		}
		for name, c := range checks {
			if !c.ok {
				t.Errorf("seed %d, %s: %s\n%s", seed, name, c.reason, p)
			}
		}
		if q := NewPlan(seed, true); q.Networks != 0 || q.RecordSets != q.Total() {
			t.Errorf("seed %d: a name-keyed-only plan creates Networks: %s", seed, q)
		}
	}
	for _, pt := range Points {
		if points[pt] < 200 {
			t.Errorf("crash point %s drawn %d times in 2000 seeds, want about 333", pt, points[pt])
		}
	}
}

func TestParseMode(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    Mode
		wantErr bool
	}{
		"Journal":     {reason: "journal is a mode.", in: "journal", want: ModeJournal},
		"Annotations": {reason: "annotations is a mode.", in: "annotations", want: ModeAnnotations},
		"Unknown":     {reason: "Anything else is refused.", in: "annotation-only", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseMode(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseMode(%q): %s\nerr = %v", tc.in, tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseMode(%q): %s\n-want, +got:\n%s", tc.in, tc.reason, diff)
			}
		})
	}
}
