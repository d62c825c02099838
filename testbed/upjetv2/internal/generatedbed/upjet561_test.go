package generatedbed

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// perKind561 is how many RecordSets and how many Networks the #561
// reproduction creates.
const perKind561 = 6

// result561 is what one run of the reproduction leaves.
type result561 struct {
	// Duplicates are Network objects beyond one per MR.
	Duplicates int
	// ConflictsAfterRestart counts creates the cloud answered 409 after
	// the restart; StuckRecordSets the RecordSet MRs not Ready then.
	ConflictsAfterRestart int64
	StuckRecordSets       int
	// Ready counts the Ready MRs of both kinds.
	Ready int
	// Problems are MRs not bound to exactly one object of their own.
	Problems []string
}

// Test561 reproduces crossplane/upjet#561 ("Async resources with
// UseAsync=true create duplicate cloud resources after provider pod
// restart") on the generated provider's Terraform CLI kinds, and shows
// the wrapper end it. perKind561 RecordSets (the cloud assigns the ID, but
// zone and name are unique: a repeated create meets 409) and as many
// Networks (only the ID tells two apart: a repeated create makes a second
// one) are created through upjet's CLI connector with UseAsync; once the
// fake cloud has committed every create, while each apply still waits for
// its answer, the provider's process group is SIGKILLed, and it restarts
// with empty workspaces, as a new pod would.
//
// Unwrapped (upjet as generated, no journal): every Network is created a
// second time and every RecordSet loops on 409. Wrapped: no duplicate, no
// 409, every MR bound to its own object.
func Test561(t *testing.T) {
	// The runs are subtests: under -short (make test-unit) skip here, or
	// the comparison below would judge two runs that never ran.
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	unwrapped := run561(t, false)
	wrapped := run561(t, true)
	t.Logf("crossplane/upjet#561 on the Terraform CLI connector, %d RecordSets and %d Networks, SIGKILL with every apply in flight, workspaces gone:\n"+
		"| run | Network duplicates | 409s after restart | RecordSets stuck | MRs Ready |\n|---|---|---|---|---|\n"+
		"| unwrapped | %d | %d | %d | %d of %d |\n| wrapped | %d | %d | %d | %d of %d |",
		perKind561, perKind561,
		unwrapped.Duplicates, unwrapped.ConflictsAfterRestart, unwrapped.StuckRecordSets, unwrapped.Ready, 2*perKind561,
		wrapped.Duplicates, wrapped.ConflictsAfterRestart, wrapped.StuckRecordSets, wrapped.Ready, 2*perKind561)
	if unwrapped.Duplicates != perKind561 || unwrapped.StuckRecordSets != perKind561 || unwrapped.ConflictsAfterRestart < 2*perKind561 {
		t.Errorf("unwrapped: the bug did not reproduce: %+v, want %d duplicates and %d RecordSets stuck on at least two 409s each",
			unwrapped, perKind561, perKind561)
	}
	if wrapped.Duplicates != 0 || wrapped.ConflictsAfterRestart != 0 || wrapped.Ready != 2*perKind561 || len(wrapped.Problems) > 0 {
		t.Errorf("wrapped: %+v, want no duplicate, no 409 and every MR Ready and bound to its own object:\n%s", wrapped, summary(wrapped.Problems))
	}
}

// run561 runs the reproduction once, wrapped or not, and returns what it
// left.
func run561(t *testing.T, wrapped bool) result561 {
	t.Helper()
	var r result561
	name := map[bool]string{false: "unwrapped", true: "wrapped"}[wrapped]
	t.Run(name, func(t *testing.T) {
		// A long create answer keeps every apply in flight after the
		// cloud committed its create.
		b := start(t, options{wrapped: wrapped, latency: 30 * time.Second})
		for i := range perKind561 {
			b.create(t, cliNamespaced.RecordSet(fmt.Sprintf("rs-%d", i), cliZone), cliNamespaced.Network(fmt.Sprintf("net-%d", i), fmt.Sprintf("%s%d.0/24", cliCIDRPrefix, i)))
		}
		testbed.Eventually(t, 4*time.Minute, 500*time.Millisecond, "the cloud to commit every create", func() (bool, error) {
			s := b.fc.Stats(t)
			return s.Kinds["recordsets"].Creates == perKind561 && s.Kinds["networks"].Creates == perKind561, nil
		})
		for _, mr := range b.list(t, cliNamespaced, testbed.KindNetwork) {
			if externalName(mr) != "" {
				t.Fatalf("Network %s has external name %q before its apply ended: the window under test is gone", mr.GetName(), externalName(mr))
			}
		}
		b.provider.Kill()
		b.fc.SetFaults(t, fakecloud.Faults{})
		before := b.fc.Stats(t).Kinds["recordsets"].Conflicts
		b.provider.Restart()

		// Unwrapped, the Networks become Ready on their second copies
		// and the RecordSets keep meeting 409; wrapped, everything
		// becomes Ready. Either way, wait for the Networks, then give
		// the RecordSets the time of several retries.
		testbed.Eventually(t, 4*time.Minute, time.Second, "every Network to be Ready", func() (bool, error) {
			n := 0
			for _, mr := range b.list(t, cliNamespaced, testbed.KindNetwork) {
				if ready(mr) {
					n++
				}
			}
			return n == perKind561, nil
		})
		settle := time.Now().Add(3 * time.Minute)
		for time.Now().Before(settle) {
			s := b.fc.Stats(t)
			rs := b.list(t, cliNamespaced, testbed.KindRecordSet)
			readyRS := 0
			for _, mr := range rs {
				if ready(mr) {
					readyRS++
				}
			}
			if readyRS == perKind561 || s.Kinds["recordsets"].Conflicts-before >= 3*perKind561 {
				break
			}
			time.Sleep(time.Second)
		}
		s := b.fc.Stats(t)
		r.Duplicates = len(s.Objects.Networks) - perKind561
		r.ConflictsAfterRestart = s.Kinds["recordsets"].Conflicts - before
		for _, kind := range []string{testbed.KindRecordSet, testbed.KindNetwork} {
			mrs := b.list(t, cliNamespaced, kind)
			for _, mr := range mrs {
				switch {
				case ready(mr):
					r.Ready++
				case kind == testbed.KindRecordSet:
					r.StuckRecordSets++
					if !strings.Contains(conditionMessage(mr, "Synced"), "already exists") {
						t.Logf("RecordSet %s is stuck, not on 409: %s", mr.GetName(), conditionMessage(mr, "Synced"))
					}
				}
			}
			r.Problems = append(r.Problems, bound(mrs, cloudIDs(s, cliNamespaced.MRKind(kind)))...)
		}
		t.Logf("%s: %+v", name, r)
	})
	return r
}
