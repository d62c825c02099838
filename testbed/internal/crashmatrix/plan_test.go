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

// TestNewPlanKeepsOldSeeds pins plans computed before look-alikes were
// added (their draws come after every other): a seed named in
// docs/reliability.md or a bug report must still replay the same crash
// point, kinds, counts, faults and kill hits.
func TestNewPlanKeepsOldSeeds(t *testing.T) {
	ms := time.Millisecond
	cases := map[string]struct {
		reason        string
		seed          uint64
		nameKeyedOnly bool
		want          Plan
	}{
		"Mixed": {reason: "A mixed after-create plan.", seed: 1,
			want: Plan{Seed: 1, Point: AfterCreate, RecordSets: 2, Networks: 2, KillOnHit: 1, Faults: Faults{CreateLatency: 481 * ms, AmbiguousRate: 0.15}}},
		"MixedNameKeyedOnly": {reason: "The same seed, name-keyed only.", seed: 1, nameKeyedOnly: true,
			want: Plan{Seed: 1, Point: AfterCreate, RecordSets: 4, KillOnHit: 1, Faults: Faults{CreateLatency: 481 * ms, AmbiguousRate: 0.15}}},
		"DuringCreate": {reason: "A during-create plan, its latency raised to 1s.", seed: 42,
			want: Plan{Seed: 42, Point: DuringCreate, RecordSets: 5, Networks: 5, KillOnHit: 2, Faults: Faults{CreateLatency: time.Second, ErrorRate: 0.1, AmbiguousRate: 0.15}}},
		"AfterBegin": {reason: "The after-begin plan of the published long run.", seed: 20261123,
			want: Plan{Seed: 20261123, Point: AfterBegin, Networks: 10, KillOnHit: 1, Faults: Faults{CreateLatency: 562 * ms, AmbiguousRate: 0.15}}},
		"DuringRecovery": {reason: "A during-recovery plan draws its first point and recovery kill.", seed: 20261126,
			want: Plan{Seed: 20261126, Point: DuringRecovery, RecordSets: 8, KillOnHit: 2, First: DuringCreate, RecoveryKillOnHit: 2, Faults: Faults{CreateLatency: time.Second, AmbiguousRate: 0.15}}},
		"AfterSettle": {reason: "An after-settle plan with both fault rates.", seed: 20261134,
			want: Plan{Seed: 20261134, Point: AfterSettle, Networks: 4, KillOnHit: 1, Faults: Faults{CreateLatency: 481 * ms, ErrorRate: 0.1, AmbiguousRate: 0.3}}},
		"BeforeBegin": {reason: "A before-begin plan with a late kill hit.", seed: 20261138,
			want: Plan{Seed: 20261138, Point: BeforeBegin, Networks: 10, KillOnHit: 5, Faults: Faults{CreateLatency: 1108 * ms, AmbiguousRate: 0.3}}},
		"Finding": {reason: "Seed 20261230 replays the stuck-resource finding of docs/history/crash-matrix.md.", seed: 20261230,
			want: Plan{Seed: 20261230, Point: DuringCreate, RecordSets: 4, Networks: 5, KillOnHit: 2, Faults: Faults{CreateLatency: 1283 * ms, ErrorRate: 0.25}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := NewPlan(tc.seed, tc.nameKeyedOnly)
			got.LookAlikeRecordSets, got.LookAlikeNetworks, got.LookAlikesWithinSkew, got.ForeignRecords, got.LookAlikesSuperset = 0, 0, false, 0, false
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NewPlan(%d, %t): %s Every field but the look-alikes must be as before they were added.\n-want, +got:\n%s", tc.seed, tc.nameKeyedOnly, tc.reason, diff)
			}
		})
	}
}

// TestNewPlanKeepsLookAlikeCounts pins the look-alikes of seeds that
// docs/history/crash-matrix.md names from the runs of issue #15: issue #29's draws
// come after them, so each keeps its count of look-alikes, and with
// -crash.older-lookalikes (OlderLookAlikesOnly) its very plan.
func TestNewPlanKeepsLookAlikeCounts(t *testing.T) {
	cases := map[string]struct {
		reason      string
		seed        uint64
		rs, net     int
		withinSkew  bool
		foreignRecs int
	}{
		"AdoptedByTags": {reason: "Seed 20261157 replays the finding of a create no intent explains: two Network look-alikes.",
			seed: 20261157, net: 2, withinSkew: true, foreignRecs: 2},
		"ConflictOfAKilledPass": {reason: "Seed 20261176 replays the conflict a killed pass decided: one RecordSet look-alike.",
			seed: 20261176, rs: 1, foreignRecs: 2},
		"Both": {reason: "Seed 20261130 met a look-alike of each kind.", seed: 20261130, rs: 1, net: 1, foreignRecs: 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := NewPlan(tc.seed, false)
			got := [4]any{p.LookAlikeRecordSets, p.LookAlikeNetworks, p.LookAlikesWithinSkew, p.ForeignRecords}
			if diff := cmp.Diff([4]any{tc.rs, tc.net, tc.withinSkew, tc.foreignRecs}, got); diff != "" {
				t.Errorf("NewPlan(%d): %s Its look-alike counts stay; the draws of #29 follow them.\n-want, +got (rs, net, within skew, foreign records):\n%s", tc.seed, tc.reason, diff)
			}
			o := p.OlderLookAlikesOnly()
			if o.LookAlikesWithinSkew || o.ForeignRecords != 0 || o.LookAlikeRecordSets != tc.rs || o.LookAlikeNetworks != tc.net {
				t.Errorf("OlderLookAlikesOnly(): %s It must give back the plan as #15 drew it, got %s", tc.reason, o)
			}
		})
	}
}

func TestNewPlanBounds(t *testing.T) {
	points := map[Point]int{}
	lookAlikes, withinSkew, foreign, racing, superset := 0, 0, 0, 0, 0
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
			"LookAlikes": {"Look-alikes meet at most the first two managed resources of each kind the trial creates.",
				p.LookAlikeRecordSets >= 0 && p.LookAlikeRecordSets <= min(2, p.RecordSets) &&
					p.LookAlikeNetworks >= 0 && p.LookAlikeNetworks <= min(2, p.Networks)},
			"CreatesLeft": {"A during-create kill waits for KillOnHit committed creates; a RecordSet whose key a look-alike holds commits none.",
				p.Total()-p.LookAlikeRecordSets >= p.KillOnHit},
			"Issue29": {"Look-alikes within the skew allowance and foreign records (0 to 2) come only with look-alikes.",
				(p.LookAlikes() > 0 || (!p.LookAlikesWithinSkew && p.ForeignRecords == 0)) && p.ForeignRecords >= 0 && p.ForeignRecords <= 2},
			"Superset": {"Superset look-alikes come only with within-skew look-alikes or foreign records.",
				!p.LookAlikesSuperset || p.LookAlikesWithinSkew || p.ForeignRecords > 0},
		}
		for name, c := range checks {
			if !c.ok {
				t.Errorf("seed %d, %s: %s\n%s", seed, name, c.reason, p)
			}
		}
		if q := NewPlan(seed, true); q.Networks != 0 || q.RecordSets != q.Total() || q.LookAlikeNetworks != 0 {
			t.Errorf("seed %d: a name-keyed-only plan creates Networks: %s", seed, q)
		}
		if p.LookAlikes() > 0 {
			lookAlikes++
		}
		if p.LookAlikesWithinSkew {
			withinSkew++
		}
		if p.ForeignRecords > 0 {
			foreign++
		}
		if p.LookAlikesWithinSkew || p.ForeignRecords > 0 {
			racing++
		}
		if p.LookAlikesSuperset {
			superset++
		}
	}
	if superset < racing*2/5 || superset > racing*3/5 {
		t.Errorf("%d of %d seeds with within-skew look-alikes or foreign records have supersets, want about half", superset, racing)
	}
	if lookAlikes < 2000/4 || lookAlikes > 2000*5/12 {
		t.Errorf("%d of 2000 seeds have look-alikes, want about one in three (667)", lookAlikes)
	}
	if withinSkew < lookAlikes*2/5 || withinSkew > lookAlikes*3/5 {
		t.Errorf("%d of %d look-alike seeds have them within the skew allowance, want about half", withinSkew, lookAlikes)
	}
	if foreign < lookAlikes*3/5 || foreign > lookAlikes*3/4 {
		t.Errorf("%d of %d look-alike seeds have foreign records, want about two in three", foreign, lookAlikes)
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

func TestPlanString(t *testing.T) {
	base := Plan{Seed: 7, Point: AfterBegin, RecordSets: 2, Networks: 3, KillOnHit: 1, Faults: Faults{CreateLatency: 500 * time.Millisecond, ErrorRate: 0.1}}
	withLookAlikes := base
	withLookAlikes.LookAlikeRecordSets, withLookAlikes.LookAlikeNetworks = 1, 2
	issue29 := withLookAlikes
	issue29.LookAlikesWithinSkew, issue29.ForeignRecords = true, 2
	recovering := base
	recovering.Point, recovering.First, recovering.RecoveryKillOnHit = DuringRecovery, DuringCreate, 2
	cases := map[string]struct {
		reason string
		p      Plan
		want   string
	}{
		"Plain": {reason: "A plan without look-alikes names none.", p: base,
			want: "seed=7 point=after-begin rs=2 net=3 kill@1 latency=500ms error=0.10 ambiguous=0.00"},
		"LookAlikes": {reason: "A plan with look-alikes names how many of each kind.", p: withLookAlikes,
			want: "seed=7 point=after-begin rs=2 net=3 kill@1 latency=500ms error=0.10 ambiguous=0.00 look-alikes=rs:1,net:2"},
		"WithinSkewAndForeign": {reason: "A plan with look-alikes within the skew allowance and foreign records says so.", p: issue29,
			want: "seed=7 point=after-begin rs=2 net=3 kill@1 latency=500ms error=0.10 ambiguous=0.00 look-alikes=rs:1,net:2,within-skew foreign-records=2"},
		"Recovery": {reason: "A during-recovery plan names its first point and recovery kill.", p: recovering,
			want: "seed=7 point=during-recovery rs=2 net=3 kill@1 latency=500ms error=0.10 ambiguous=0.00 first=during-create recovery-kill@2"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.p.String()); diff != "" {
				t.Errorf("String(): %s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
