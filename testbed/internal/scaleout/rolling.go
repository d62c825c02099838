package scaleout

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

var rollingCreates = flag.Int("scaleout.creates", 500, "managed resources RollingRestart (TestRollingRestart) creates (half RecordSets, half Networks)")

const (
	// rollingReplicas and rollingBuckets are the hash-bucket shape.
	rollingReplicas = 3
	rollingBuckets  = 12
	// rollingLatency keeps the fake cloud fast: the load is the count.
	rollingLatency = 100 * time.Millisecond
	// rollingLease is the bucket, member and create Lease duration.
	rollingLease = 10 * time.Second
	// rollingReconcileTimeout is the managed reconcilers' timeout: creates
	// are async, so a reconcile takes well under a second.
	rollingReconcileTimeout = 20 * time.Second
)

// RollingRestart runs three hash-bucket replicas of line's provider-fakecloud (FNV-32a into 12
// buckets, a Lease per bucket, one journal per replica as a StatefulSet
// gives), creates -scaleout.creates managed resources, and restarts the
// replicas one by one (SIGTERM, then the same replica name with a new
// epoch) while the creates run. It ends with every MR Ready, no duplicate
// cloud object and no orphan left unreported.
func RollingRestart(t *testing.T, line testbed.Line) {
	e := start(t, line, rollingLatency)
	var ps []*testbed.Provider
	for i := range rollingReplicas {
		r := fmt.Sprintf("r-%d", i)
		ps = append(ps, e.provider(t, r, "--journal", e.path("journal-"+r+".db"),
			fmt.Sprintf("--buckets=%d", rollingBuckets), "--create-lease", "--lease-duration="+rollingLease.String(),
			"--recovery-retry-interval=1s", "--poll=1m", "--max-reconcile-rate=50",
			// A restart leaves creates incomplete with no intent in buckets
			// whose holder has made its first pass; its later passes take
			// them once no reconcile can still be running (this plus 35s).
			"--reconcile-timeout="+rollingReconcileTimeout.String(),
			"--recovery-report", e.path("report-"+r+".json")))
	}
	waitBalanced(t, e, ps)
	hb := ownership.HashBuckets{N: rollingBuckets, Namespace: leaseNS, Prefix: "provider-fakecloud"}

	n := *rollingCreates
	var mgs []client.Object
	for i := range n / 2 {
		mgs = append(mgs, e.recordSet("load-rs-%03d", i),
			e.network("load-net-%03d", i, fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)))
	}
	began := time.Now()
	// Create from four goroutines: the restarts below run while the
	// creates are still arriving.
	// A writer's error is reported by the test's goroutine, never after
	// the test has ended.
	const writers = 4
	createErr := make(chan error, writers)
	for w := range writers {
		go func() {
			for i := w; i < len(mgs); i += writers {
				ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
				err := e.cl.Client.Create(ctx, mgs[i])
				cancel()
				if err != nil {
					createErr <- fmt.Errorf("cannot create %s: %w", mgs[i].GetName(), err)
					return
				}
			}
		}()
	}
	failedCreate := func() {
		select {
		case err := <-createErr:
			t.Fatal(err)
		default:
		}
	}
	for i, p := range ps {
		time.Sleep(3 * time.Second)
		running(t, ps...)
		ready := countAllReady(e.managed(t))
		r := fmt.Sprintf("r-%d", i)
		before := lease(t, e, hb.MemberLeaseName(r))
		if err := p.Terminate(); err != nil {
			t.Errorf("replica %s did not stop cleanly: %v", r, err)
		}
		p.Restart()
		t.Logf("replica %s restarted at %s with %d MRs Ready", r, time.Since(began).Round(time.Millisecond), ready)
		// As a StatefulSet's rolling update waits for the new pod to be
		// ready: the new boot holds its member Lease and a bucket.
		testbed.Eventually(t, 2*time.Minute, 250*time.Millisecond, "replica "+r+" to rejoin", func() (bool, error) {
			running(t, ps...)
			l := lease(t, e, hb.MemberLeaseName(r))
			if l == nil || (before != nil && *l.Spec.HolderIdentity == *before.Spec.HolderIdentity) {
				return false, nil
			}
			for b := range rollingBuckets {
				if bl := lease(t, e, hb.LeaseName(b)); bl != nil && *bl.Spec.HolderIdentity == *l.Spec.HolderIdentity {
					return true, nil
				}
			}
			return false, nil
		})
	}
	reports := func() []*report.Report {
		var out []*report.Report
		for i := range rollingReplicas {
			out = append(out, readReport(t, e.path(fmt.Sprintf("report-r-%d.json", i))))
		}
		return out
	}
	budget := 3*time.Minute + time.Duration(n)*200*time.Millisecond
	testbed.Eventually(t, budget, time.Second, "every MR to exist", func() (bool, error) {
		failedCreate()
		return len(e.managed(t)) == len(mgs), nil
	})
	f := converge(t, e, budget, reports)
	var first, later []map[string]int
	for _, p := range ps {
		for _, ps := range passes(t, p.LogPath()) {
			if ps.later {
				later = append(later, ps.outcomes)
			} else {
				first = append(first, ps.outcomes)
			}
		}
	}
	refused := 0
	for _, p := range ps {
		refused += strings.Count(readFile(t, p.LogPath()), "create refused:")
	}
	t.Logf("rolling restart: %d MRs Ready %s after the first create; cloud objects=%d creates=%d conflicts=%d duplicates=%d orphans=%d unreported=%d; first recovery passes with outcomes %v; later (takeover) passes %v; creates refused (lock or live owner) %d",
		f.MRs, time.Since(began).Round(time.Millisecond), f.CloudObjects, f.Creates, f.Conflicts, f.Duplicates, len(f.Orphans), len(f.Unreported), first, later, refused)
	if f.Creates != int64(len(mgs)) || f.CloudObjects != int64(len(mgs)) {
		t.Errorf("the fake cloud made %d objects in %d creates for %d MRs", f.CloudObjects, f.Creates, len(mgs))
	}
	for _, p := range ps {
		if err := p.Terminate(); err != nil {
			t.Errorf("a replica did not stop cleanly: %v", err)
		}
	}
	for i := range rollingReplicas {
		verifyJournal(t, e.path(fmt.Sprintf("journal-r-%d.db", i)))
	}
}

// countAllReady counts the Ready MRs.
func countAllReady(mgs []*unstructured.Unstructured) int {
	n := 0
	for _, mg := range mgs {
		if isReady(mg) {
			n++
		}
	}
	return n
}

// waitBalanced waits until every bucket Lease is held, live, and every
// replica holds its fair share.
func waitBalanced(t *testing.T, e *env, ps []*testbed.Provider) {
	t.Helper()
	hb := ownership.HashBuckets{N: rollingBuckets, Namespace: leaseNS, Prefix: "provider-fakecloud"}
	share := (rollingBuckets + rollingReplicas - 1) / rollingReplicas
	testbed.Eventually(t, 2*time.Minute, 250*time.Millisecond, "the buckets to be balanced", func() (bool, error) {
		running(t, ps...)
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		list := &coordinationv1.LeaseList{}
		if err := e.kube.List(ctx, list, client.InNamespace(leaseNS)); err != nil {
			return false, err
		}
		held := map[string]int{}
		byName := map[string]*coordinationv1.Lease{}
		for i := range list.Items {
			byName[list.Items[i].Name] = &list.Items[i]
		}
		now := time.Now()
		for b := range rollingBuckets {
			l, ok := byName[hb.LeaseName(b)]
			if !ok || ownership.Expired(l, now) {
				return false, nil
			}
			r, _, _ := ownership.ParseHolder(*l.Spec.HolderIdentity)
			held[r]++
		}
		if len(held) != rollingReplicas {
			return false, nil
		}
		for _, c := range held {
			if c > share {
				return false, nil
			}
		}
		return true, nil
	})
}
