package scaleout

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

const (
	// shardLatency is the fake cloud's create latency in TestShardDeath:
	// long enough that the kill lands with creates in flight.
	shardLatency = 3 * time.Second
	// shardLease is the shards' leader-election Lease duration.
	shardLease = 10 * time.Second
	// perShard is how many MRs of each kind each shard creates.
	perShard = 8
)

// ShardDeath runs two label shards of line's provider-fakecloud, a and b, each one provider process
// with its own journal and per-shard leader election. Shard a is SIGKILLed
// with creates in flight, and its next process (another replica, new
// epoch, the same journal volume) is started at once. While a's Lease is
// still live nothing touches a's intents: no shard-a MR changes and the
// fake cloud sees no create. After the Lease expires, the new leader of
// shard a resolves every intent the victim left (owner superseded), and
// the crash matrix's invariants hold: every cloud object bound to exactly
// one MR or reported, no MR stuck, the journal verifies, the report
// validates.
func ShardDeath(t *testing.T, line testbed.Line) {
	e := start(t, line, shardLatency)
	shardArgs := func(shard, replica string) []string {
		return []string{"--journal", e.path("journal-" + shard + ".db"),
			"--shard-name", shard, "--leader-election", "--create-lease",
			"--lease-duration", shardLease.String(), "--recovery-interval=1s", "--recovery-retry-interval=1s",
			"--recovery-report", e.path("report-" + replica + ".json")}
	}
	victim := e.provider(t, "shard-a-0", shardArgs("a", "shard-a-0")...)
	peer := e.provider(t, "shard-b-0", shardArgs("b", "shard-b-0")...)
	defer peer.Terminate() //nolint:errcheck // the test has ended; its log says why a stop failed

	// Shard b's resources are created and Ready before the kill, so its
	// process is idle but for its recovery passes.
	var bMRs []*unstructured.Unstructured
	for i := range perShard {
		bMRs = append(bMRs,
			labelled(e.recordSet("b-rs-%02d", i), "b"),
			labelled(e.network("b-net-%02d", i, fmt.Sprintf("10.%d.0.0/16", 100+i)), "b"))
	}
	e.cl.Create(t, clientObjects(bMRs)...)
	testbed.Eventually(t, 2*time.Minute, 250*time.Millisecond, "shard b's MRs to be Ready", func() (bool, error) {
		running(t, victim, peer)
		return countReady(e.managed(t), "b") == len(bMRs), nil
	})

	var aMRs []*unstructured.Unstructured
	for i := range perShard {
		aMRs = append(aMRs,
			labelled(e.recordSet("a-rs-%02d", i), "a"),
			labelled(e.network("a-net-%02d", i, fmt.Sprintf("10.%d.0.0/16", 200+i)), "a"))
	}
	e.cl.Create(t, clientObjects(aMRs)...)
	// Kill once at least half of shard a's creates are in flight: an
	// intent annotation, no external name yet.
	testbed.Eventually(t, time.Minute, 20*time.Millisecond, "shard a's creates to be in flight", func() (bool, error) {
		running(t, victim, peer)
		return inFlight(e.managed(t), "a") >= len(aMRs)/2, nil
	})
	killed := time.Now()
	victim.Kill()
	atKill := snapshot(e.managed(t), "a")
	flying := inFlight(e.managed(t), "a")
	t.Logf("shard a killed with %d creates in flight", flying)
	heir := e.provider(t, "shard-a-1", shardArgs("a", "shard-a-1")...)
	defer heir.Terminate() //nolint:errcheck // the test has ended; its log says why a stop failed

	// While the victim's Lease is live: creates the victim dispatched may
	// still land in the fake cloud within its latency; after that, no
	// create at all, and no shard-a MR changes.
	leaseName := ownership.ShardLeaseName(leaderElectionID, "a")
	l := lease(t, e, leaseName)
	if l == nil || l.Spec.RenewTime == nil {
		t.Fatalf("shard a's Lease %s is missing", leaseName)
	}
	expiry := l.Spec.RenewTime.Add(shardLease)
	if _, epoch, ok := ownership.ParseHolder(*l.Spec.HolderIdentity); !ok || epoch == "" {
		t.Fatalf("shard a's Lease holder %q does not carry replica/epoch", *l.Spec.HolderIdentity)
	}
	time.Sleep(time.Until(killed.Add(shardLatency + time.Second)))
	settled := e.fc.Stats(t)
	var checks int
	for time.Until(expiry) > 500*time.Millisecond {
		now := snapshot(e.managed(t), "a")
		if diff := cmp.Diff(atKill, now); diff != "" {
			t.Fatalf("shard a's MRs changed while its Lease was live (%s before expiry); -at kill, +now:\n%s", time.Until(expiry), diff)
		}
		if got, want := e.fc.Stats(t).Total().Creates, settled.Total().Creates; got != want {
			t.Fatalf("the fake cloud saw %d creates while shard a's Lease was live", got-want)
		}
		if h := *lease(t, e, leaseName).Spec.HolderIdentity; h != *l.Spec.HolderIdentity {
			t.Fatalf("shard a's Lease changed hands to %s before it expired", h)
		}
		checks++
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("live window: %d checks over %s, creates held at %d", checks, time.Since(killed).Round(time.Millisecond), settled.Total().Creates)

	// After expiry the heir leads shard a and takes the victim's intents.
	reportPath := e.path("report-shard-a-1.json")
	reports := func() []*report.Report { return []*report.Report{readReport(t, reportPath)} }
	f := converge(t, e, 2*time.Minute, reports)
	took := time.Since(expiry)
	if err := heir.Terminate(); err != nil {
		t.Errorf("the heir did not stop cleanly: %v", err)
	}
	passes := recoveryPasses(t, heir.LogPath())
	t.Logf("heir recovery passes with outcomes: %v", passes)
	resolved := 0
	for _, p := range passes {
		for _, n := range p {
			resolved += n
		}
	}
	if resolved < flying {
		t.Errorf("the heir's recovery resolved %d intents; the victim left %d in flight", resolved, flying)
	}
	rep := validateReport(t, reportPath)
	vr := verifyJournal(t, e.path("journal-a.db"))
	if vr.Unsettled != 0 {
		t.Errorf("shard a's journal holds %d unsettled intents after the takeover", vr.Unsettled)
	}
	t.Logf("takeover: converged %s after expiry; MRs=%d cloud=%d creates=%d conflicts=%d duplicates=%d orphans=%d unreported=%d; report %+v; journal %d records",
		took.Round(time.Millisecond), f.MRs, f.CloudObjects, f.Creates, f.Conflicts, f.Duplicates, len(f.Orphans), len(f.Unreported), rep.Summary, vr.Records)
}

// inShard reports whether mg is labelled with shard.
func inShard(mg *unstructured.Unstructured, shard string) bool {
	return mg.GetLabels()[ownership.DefaultShardLabel] == shard
}

// countReady counts shard's Ready MRs.
func countReady(mgs []*unstructured.Unstructured, shard string) int {
	n := 0
	for _, mg := range mgs {
		if inShard(mg, shard) && isReady(mg) {
			n++
		}
	}
	return n
}

// inFlight counts shard's MRs with an unsettled intent annotation and no
// external name.
func inFlight(mgs []*unstructured.Unstructured, shard string) int {
	n := 0
	for _, mg := range mgs {
		in, has, err := journal.AnnotationIntent(mg.GetAnnotations())
		if inShard(mg, shard) && has && err == nil && in.Unsettled() && externalName(mg) == "" {
			n++
		}
	}
	return n
}

// mrState is what the live-window check compares of an MR.
type mrState struct {
	ResourceVersion string
	Annotations     map[string]string
}

// snapshot returns the state of shard's MRs by key.
func snapshot(mgs []*unstructured.Unstructured, shard string) map[string]mrState {
	out := map[string]mrState{}
	for _, mg := range mgs {
		if inShard(mg, shard) {
			out[key(mg)] = mrState{ResourceVersion: mg.GetResourceVersion(), Annotations: maps.Clone(mg.GetAnnotations())}
		}
	}
	return out
}
