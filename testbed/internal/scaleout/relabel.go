package scaleout

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// relabelLatency is the fake cloud's create latency in TestRelabel: longer
// than crossplane-runtime's 30s creation grace period, so that shard b,
// seeing no external name, does attempt a create of its own while shard
// a's is still in flight. (Within the grace period crossplane-runtime
// itself holds b back.)
const relabelLatency = 33 * time.Second

// Relabel relabels, on line's provider-fakecloud, a RecordSet (name-keyed) and a Network (ID-keyed,
// where a second create would make a silent duplicate) from shard a to
// shard b while a's create of each is in flight, with --create-lease on
// both shards. Shard b sees them at once, and is refused its creates while
// a holds their create Leases; a's callbacks bind the external names and
// release the Leases; b then observes what a made. Each ends with exactly
// one cloud object, bound, Ready, labelled b, with no intent annotation
// and no create Lease left.
func Relabel(t *testing.T, line testbed.Line) {
	e := start(t, line, relabelLatency)
	shardArgs := func(shard string) []string {
		return []string{"--journal", e.path("journal-" + shard + ".db"),
			"--shard-name", shard, "--leader-election", "--create-lease", "--lease-duration=10s",
			"--recovery-report", e.path("report-" + shard + ".json")}
	}
	a := e.provider(t, "shard-a-0", shardArgs("a")...)
	b := e.provider(t, "shard-b-0", shardArgs("b")...)
	mgs := []*unstructured.Unstructured{
		labelled(line.RecordSet("mv-rs", zoneOf(line)), "a"),
		labelled(line.Network("mv-net", "10.77.0.0/16"), "a"),
	}
	e.cl.Create(t, clientObjects(mgs)...)
	creates := (&ownership.CreateLeases{Prefix: "provider-fakecloud"})

	// Mid-create: shard a holds each MR's create Lease.
	testbed.Eventually(t, time.Minute, 20*time.Millisecond, "shard a to hold both create Leases", func() (bool, error) {
		running(t, a, b)
		for _, mg := range e.managed(t) {
			l := lease(t, e, creates.LeaseName(mg.GetUID()))
			if l == nil || !strings.HasPrefix(*l.Spec.HolderIdentity, "shard-a-0/") {
				return false, nil
			}
		}
		return true, nil
	})
	relabelled := time.Now()
	for _, mg := range e.managed(t) {
		patch := client.MergeFrom(mg.DeepCopy())
		mg.SetLabels(map[string]string{ownership.DefaultShardLabel: "b"})
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		if err := e.cl.Client.Patch(ctx, mg, patch); err != nil {
			cancel()
			t.Fatalf("cannot relabel %s: %v", mg.GetName(), err)
		}
		cancel()
	}
	// Shard a's creates hold the create Leases for the 33 s create latency;
	// shard b's refused creates then retry on crossplane-runtime's
	// backoff, which on a loaded 2-core machine (CI, 2026-11-23) took past
	// 2 minutes. The bound is a deadline, not a measurement.
	testbed.Eventually(t, 4*time.Minute, 250*time.Millisecond, "both MRs to be Ready under shard b", func() (bool, error) {
		running(t, a, b)
		return countReady(e.managed(t), "b") == len(mgs), nil
	})
	took := time.Since(relabelled)

	f := e.measure(t, readReport(t, e.path("report-a.json")), readReport(t, e.path("report-b.json")))
	refused := strings.Count(readFile(t, b.LogPath()), "create refused: the create lock is not ours")
	if refused == 0 {
		t.Errorf("shard b never attempted a create: the test did not exercise the create Lease")
	}
	if !f.ok() || f.CloudObjects != int64(len(mgs)) || f.Creates != int64(len(mgs)) {
		t.Errorf("after the relabel: %+v; want %d cloud objects from %d creates, none orphaned or duplicated", f, len(mgs), len(mgs))
	}
	for _, mg := range e.managed(t) {
		if _, has, _ := journal.AnnotationIntent(mg.GetAnnotations()); has {
			t.Errorf("%s still carries an intent annotation", mg.GetName())
		}
		if externalName(mg) == "" {
			t.Errorf("%s has no external name", mg.GetName())
		}
		if l := lease(t, e, creates.LeaseName(mg.GetUID())); l != nil {
			t.Errorf("%s's create Lease is left behind, held by %s", mg.GetName(), *l.Spec.HolderIdentity)
		}
	}
	t.Logf("relabel: Ready under shard b %s after the relabel; cloud objects=%d creates=%d conflicts=%d duplicates=%d; shard b's creates refused by the create Lease: %d",
		took.Round(time.Millisecond), f.CloudObjects, f.Creates, f.Conflicts, f.Duplicates, refused)
}
