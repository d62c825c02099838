package scaleout

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// takeoverReconcileTimeout makes the later passes' bound on an incomplete
// create with no intent 5s + 35s.
const takeoverReconcileTimeout = 5 * time.Second

// TakeoverOfIncompleteCreates is, on line's provider-fakecloud, the state a rolling restart leaves
// behind, made on purpose: managed resources whose create a replica began
// and never recorded (crossplane-runtime's pending mark, no intent, no
// external name), in buckets whose current holder has already made its
// first recovery pass. The managed reconciler refuses them ("cannot
// determine creation result") and nothing else would ever look at them
// again. The holders' later passes must resolve each, but only once no
// reconcile can still be running, and never while a live process holds
// the resource's create Lease.
func TakeoverOfIncompleteCreates(t *testing.T, line testbed.Line) {
	e := start(t, line, 100*time.Millisecond)
	var ps []*testbed.Provider
	for i := range rollingReplicas {
		r := fmt.Sprintf("r-%d", i)
		ps = append(ps, e.provider(t, r, "--journal", e.path("journal-"+r+".db"),
			fmt.Sprintf("--buckets=%d", rollingBuckets), "--create-lease", "--lease-duration="+rollingLease.String(),
			"--recovery-retry-interval=1s", "--reconcile-timeout="+takeoverReconcileTimeout.String(),
			"--recovery-report", e.path("report-"+r+".json")))
	}
	waitBalanced(t, e, ps)
	for _, p := range ps {
		testbed.Eventually(t, time.Minute, 250*time.Millisecond, "every replica's first recovery pass", func() (bool, error) {
			return strings.Contains(readFile(t, p.LogPath()), `"msg":"recovery complete"`), nil
		})
	}
	grace := recovery.IncompleteGraceFor(takeoverReconcileTimeout)
	ctx := context.Background()
	old := time.Now().Add(-10 * time.Minute)

	// Nothing reached the cloud: cleared, then created once.
	oldRS := incomplete(t, e, line.RecordSet("late-rs", zoneOf(line)), old)
	// The cloud made the Network before the replica died: adopted.
	oldNet := line.Network("late-net", "10.8.0.0/24")
	made, err := fakecloud.NewClient(e.fc.URL).CreateNetwork(ctx, fakecloud.Network{Name: oldNet.GetName(), CIDRBlock: "10.8.0.0/24",
		Tags: line.CrossplaneTags(testbed.KindNetwork, oldNet.GetName())})
	if err != nil {
		t.Fatal(err)
	}
	incomplete(t, e, oldNet, old)
	// A live replica holds the create Lease: it may still be creating.
	locked := incomplete(t, e, line.RecordSet("late-locked", zoneOf(line)), old)
	lockName := fmt.Sprintf("provider-fakecloud-create-%s", locked.GetUID())
	secs := int32(3600)
	now := metav1.NewMicroTime(time.Now())
	holder := ownership.Holder(journal.Owner{Replica: "r-9", Epoch: "live"})
	if err := e.kube.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: leaseNS, Name: lockName},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &now, RenewTime: &now},
	}); err != nil {
		t.Fatal(err)
	}
	lockedBefore := locked.GetAnnotations()
	// Written a moment ago: its reconcile may still be running. The mark
	// has crossplane-runtime's second precision, and the grace runs from
	// the mark as written, so the test measures from it too.
	youngAt := time.Now().UTC().Truncate(time.Second)
	young := incomplete(t, e, line.RecordSet("late-young", zoneOf(line)), youngAt)

	get := func(obj *unstructured.Unstructured) *unstructured.Unstructured {
		mg := obj.DeepCopy()
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		if err := e.cl.Client.Get(ctx, client.ObjectKeyFromObject(obj), mg); err != nil {
			t.Fatalf("cannot get %s: %v", obj.GetName(), err)
		}
		return mg
	}
	testbed.Eventually(t, 2*time.Minute, 250*time.Millisecond, "the old incomplete creates to be resolved and Ready", func() (bool, error) {
		return isReady(get(oldRS)) && isReady(get(oldNet)), nil
	})
	if got := externalName(get(oldNet)); got != made.ID {
		t.Errorf("the Network's external name is %q, want the cloud object it adopted, %q", got, made.ID)
	}
	if !youngStillIncomplete(get(young), youngAt, grace) {
		t.Errorf("the young incomplete create was resolved before %s had passed since its pending mark", grace)
	}
	// The locked resource stays exactly as the dead-looking create left it
	// for as long as the Lease is live: from its creation, through several
	// later passes.
	time.Sleep(3 * rollingLease)
	if diff := cmp.Diff(lockedBefore, get(locked).GetAnnotations()); diff != "" {
		t.Errorf("a resource whose create Lease a live replica holds was changed (-before +after):\n%s", diff)
	}
	// The holder is gone: the Lease is released, and a later pass takes it.
	if err := e.kube.Delete(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leaseNS, Name: lockName}}); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 2*time.Minute, 250*time.Millisecond, "the released and the young incomplete creates to be resolved and Ready", func() (bool, error) {
		return isReady(get(locked)) && isReady(get(young)), nil
	})
	if since := time.Since(youngAt); since < grace {
		t.Errorf("the young incomplete create was Ready %s after its pending mark, before %s", since, grace)
	}

	f := e.measure(t)
	var later []map[string]int
	for _, p := range ps {
		for _, ps := range passes(t, p.LogPath()) {
			if ps.later {
				later = append(later, ps.outcomes)
			}
		}
	}
	t.Logf("takeover: later passes resolved %v; MRs=%d cloud=%d creates=%d duplicates=%d orphans=%d stuck=%d",
		later, f.MRs, f.CloudObjects, f.Creates, f.Duplicates, len(f.Orphans), len(f.Stuck))
	if f.CloudObjects != 4 || f.Duplicates != 0 || len(f.Orphans) != 0 || len(f.Stuck) != 0 {
		t.Errorf("want 4 cloud objects, one per MR, none orphaned or stuck: %+v", f)
	}
	resolved := map[string]int{}
	for _, o := range later {
		for k, v := range o {
			resolved[k] += v
		}
	}
	if diff := cmp.Diff(map[string]int{"adopted": 1, "cleared": 3}, resolved); diff != "" {
		t.Errorf("outcomes of the later passes (-want +got):\n%s", diff)
	}
	for _, p := range ps {
		if err := p.Terminate(); err != nil {
			t.Errorf("a replica did not stop cleanly: %v", err)
		}
	}
}

// incomplete creates obj as a replica that died between
// crossplane-runtime's pending mark and the create's intent leaves it.
func incomplete(t *testing.T, e *env, obj *unstructured.Unstructured, pendingAt time.Time) *unstructured.Unstructured {
	t.Helper()
	obj.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: pendingAt.UTC().Format(time.RFC3339)})
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := e.cl.Client.Create(ctx, obj); err != nil {
		t.Fatalf("cannot create %s: %v", obj.GetName(), err)
	}
	return obj
}

// youngStillIncomplete reports whether mg, marked pending at (a whole
// second, as the mark is written), is either still incomplete or was
// resolved no earlier than grace after the mark.
func youngStillIncomplete(mg *unstructured.Unstructured, at time.Time, grace time.Duration) bool {
	if createIncomplete(mg) {
		return true
	}
	return time.Since(at) >= grace
}
