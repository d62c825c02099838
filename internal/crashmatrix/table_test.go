package crashmatrix

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
	want := `Line v2, mode journal, 3 trials from seed 1, 1m0s.

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
	if diff := cmp.Diff(want, Table("v2", ModeJournal, 1, results, time.Minute)); diff != "" {
		t.Errorf("Table(): a trial counts once per invariant it broke, and a look-alike trial passes only when every kind it creates passed.\n-want, +got:\n%s", diff)
	}
}
