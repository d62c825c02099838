package e2e

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

var (
	crashN    = flag.Int("gcpdns.n", 40, "TestRecordSetCrash: the record sets created in the zone")
	crashPage = flag.Int("gcpdns.page", 10, "TestRecordSetCrash: the fake Cloud DNS's default page size, well under -gcpdns.n")
)

// changeLatency is how long the fake answers a changes.create after
// carrying it out: the record set exists, and the provider's create waits
// for the answer, in flight, when it is killed.
const changeLatency = 20 * time.Second

// TestRecordSetCrash is the public report's scenario (crossplane/upjet#305)
// on the real terraform-provider-google: N record sets in one zone whose
// list pages hold far fewer, the provider SIGKILLed once every create has
// made its record set and none has heard back, then restarted.
//
// Unwrapped, as upjet generated it, the provider creates every one again.
// terraform-provider-google's create lists the zone's first page only: a
// record set it finds there is deleted and added again in one change (an
// overwrite, silent), and one past the first page meets 409 alreadyExists,
// forever. The test requires both, counted apart, and nothing else.
//
// Wrapped (--journal), recovery adopts every record set on the key-vacant
// proof: 0 overwrites, 0 loops, 0 duplicates, every MR Ready and bound to
// its own record set, the report complete.
func TestRecordSetCrash(t *testing.T) {
	n, page := *crashN, *crashPage
	for _, arm := range []string{"Unwrapped", "Wrapped"} {
		t.Run(arm, func(t *testing.T) {
			b := newBed(t, page, changeLatency)
			var args []string
			dir := t.TempDir()
			rep := filepath.Join(dir, "recovery-report.json")
			if arm == "Wrapped" {
				args = []string{"--journal=" + filepath.Join(dir, "intents.db"), "--recovery-report=" + rep}
			}
			p := b.startProvider(t, args...)
			for i := range n {
				mustCreate(t, b.kube, newRecordSet(fmt.Sprintf("rec-%04d", i), recordName(i), fmt.Sprintf("10.0.%d.%d", i/250, i%250+1), nil))
			}
			testbed.Eventually(t, 3*time.Minute, 50*time.Millisecond, "every record set's change carried out", func() (bool, error) {
				return b.zone(t).Changes >= int64(n), nil
			})
			p.Kill()
			killedAt := time.Now()
			// The restarted provider's own creates need not wait.
			if err := b.dns.SetFaults(fakeclouddns.Faults{}); err != nil {
				t.Fatal(err)
			}
			inFlight := 0
			for _, r := range b.recordSets(t) {
				if meta.GetExternalName(&r) == "" || meta.GetExternalName(&r) == r.GetName() {
					inFlight++
				}
			}
			before := b.dns.Stats()
			t.Logf("at SIGKILL: %d of %d creates in flight; the zone holds %d record sets", inFlight, n, b.zone(t).RRSetCount)
			if inFlight == 0 {
				t.Fatal("no create was in flight at SIGKILL: the test shows nothing")
			}
			if err := os.Remove(rep); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			p.Process.Restart()

			if arm == "Unwrapped" {
				// Every MR ends Ready (its record set overwritten by its
				// second create), looping on 409, or stopped by
				// crossplane-runtime because the kill came between its
				// pending mark and its succeeded mark.
				var overwritten, loops, stuck int
				testbed.Eventually(t, 4*time.Minute, 500*time.Millisecond, "every RecordSet Ready, looping on alreadyExists or stopped", func() (bool, error) {
					overwritten, loops, stuck = 0, 0, 0
					for _, r := range b.recordSets(t) {
						switch {
						case looping(&r):
							loops++
						case ready(&r):
							overwritten++
						case pendingIncomplete(&r):
							stuck++
						default:
							return false, nil
						}
					}
					return true, nil
				})
				after := b.dns.Stats()
				overwrites := after.Overwrites - before.Overwrites
				t.Logf("unwrapped, %d record sets, page size %d: %d overwritten silently (the fake counted %d), %d looping on 409 (%d 409s served since the restart), %d stopped on an incomplete create, after %s",
					n, page, overwritten, overwrites, loops, after.Conflicts-before.Conflicts, stuck, time.Since(killedAt).Round(time.Second))
				if overwrites == 0 || loops == 0 || int(overwrites) != overwritten || overwritten+loops+stuck != n {
					t.Errorf("unwrapped: %d overwrites (%d Ready MRs), %d looping MRs, %d stopped; want both failure modes, all adding up to %d", overwrites, overwritten, loops, stuck, n)
				}
				return
			}

			testbed.Eventually(t, 4*time.Minute, 500*time.Millisecond, "every RecordSet Ready", func() (bool, error) {
				for _, r := range b.recordSets(t) {
					if !ready(&r) {
						return false, nil
					}
				}
				return true, nil
			})
			converged := time.Since(killedAt).Round(time.Second)
			after := b.dns.Stats()
			z := b.zone(t)
			for _, r := range b.recordSets(t) {
				if got, want := meta.GetExternalName(&r), recordID(*r.Spec.ForProvider.Name, "A"); got != want || paused(&r) {
					t.Errorf("%s: external name %q, paused %t; want %q, not paused", r.GetName(), got, paused(&r), want)
				}
			}
			if after.Overwrites != 0 || after.Conflicts != 0 || z.RRSetCount != n+2 || after.Changes != int64(n) {
				t.Errorf("wrapped: %d overwrites, %d 409s, %d changes, %d record sets in the zone; want 0, 0, %d and %d (the apex SOA and NS with them)",
					after.Overwrites, after.Conflicts, after.Changes, z.RRSetCount, n, n+2)
			}
			var r *report.Report
			testbed.Eventually(t, time.Minute, 100*time.Millisecond, "the restarted provider's recovery report", func() (bool, error) {
				var err error
				r, err = report.ReadFile(rep)
				if errors.Is(err, os.ErrNotExist) {
					return false, nil
				}
				return err == nil, err
			})
			if r.Summary.Adopted != inFlight || r.Summary.Total != inFlight {
				t.Errorf("recovery report summary %+v: want %d adopted of %d", r.Summary, inFlight, inFlight)
			}
			t.Logf("wrapped, %d record sets, page size %d: %d adopted, 0 overwrites, 0 loops, 0 duplicates; converged %s after the kill", n, page, r.Summary.Adopted, converged)
		})
	}
}
