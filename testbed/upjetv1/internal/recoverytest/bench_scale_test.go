package recoverytest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// scaleSizes are the numbers of unsettled intents BenchmarkRecoveryScale
// resolves, in ascending order: each size reuses the managed resources the
// smaller ones created.
var scaleSizes = []int{1_000, 4_000, 20_000, 100_000}

const (
	scaleConcurrency = 32
	scaleLatency     = 20 * time.Millisecond
	scaleZone        = "zone-scale"
)

// BenchmarkRecoveryScale measures the wall time of one recovery pass against
// the number of unsettled intents N (1,000, 4,000, 20,000 and 100,000), with
// the workload and settings BenchmarkRecovery4000 shares: a 20 ms lookup latency
// in the fake cloud process, concurrency 32, envtest without client-side
// throttling, one intent in eight a Network that exists (adopted) and the
// rest RecordSets under which nothing was created (cleared).
//
// Each iteration first puts the pending mark
// back on every managed resource with a Get and a Patch at the same
// concurrency, and reports that time as api-write-s: the pass makes the same
// two API calls per intent. So x-(ideal+api), wall-s over (N x 20 ms / 32 +
// api-write-s), is measured under the load of the same run.
//
// All sizes share one control plane and one fake cloud. The managed
// resources, and the Networks in the cloud, grow with N and are never
// deleted, so the pass at size N runs against exactly N of each. The
// 100,000 case creates 100,000 objects in envtest and takes several minutes:
// run one size with -bench 'RecoveryScale/N=4000$'.
func BenchmarkRecoveryScale(b *testing.B) {
	f := newScaleFixture(b)
	for _, n := range scaleSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			f.grow(b, n)
			f.bench(b, n)
		})
	}
}

// scaleFixture holds the control plane, the fake cloud and the managed
// resources BenchmarkRecoveryScale's sizes share.
type scaleFixture struct {
	cl    client.Client
	cloud *fakecloudtest.Process
	objs  []client.Object
}

func newScaleFixture(b *testing.B) *scaleFixture {
	b.Helper()
	cluster := testbed.StartCluster(b)
	cfg := rest.CopyConfig(cluster.Config)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling: measure the server
	cl, err := client.New(cfg, client.Options{Scheme: cluster.Scheme})
	if err != nil {
		b.Fatalf("cannot create the API client: %v", err)
	}
	cloud := fakecloudtest.Start(b, fakecloudtest.Build(b), fakecloudtest.Options{})
	ctx := context.Background()
	if err := cloud.Client.SetFaults(ctx, fakecloud.Faults{Latency: fakecloud.Latencies{Read: scaleLatency}}); err != nil {
		b.Fatalf("cannot set the lookup latency: %v", err)
	}
	return &scaleFixture{cl: cl, cloud: cloud}
}

// scaleKind is the kind of the i-th managed resource: every eighth is a
// Network that exists in the cloud, so any prefix of N holds N/8 of them.
func scaleKind(i int) string {
	if i%8 == 0 {
		return "Network"
	}
	return "RecordSet"
}

// grow creates managed resources, and the cloud Networks behind the Network
// ones, until there are n. Creating is not timed.
func (f *scaleFixture) grow(b *testing.B, n int) {
	b.Helper()
	have := len(f.objs)
	if have >= n {
		return
	}
	f.objs = append(f.objs, make([]client.Object, n-have)...)
	ctx := context.Background()
	start := time.Now()
	if err := parallel(n-have, scaleConcurrency, func(k int) error {
		i := have + k
		var obj client.Object
		if scaleKind(i) == "Network" {
			name := fmt.Sprintf("scale-net-%06d", i)
			obj = testbed.NewNetwork(name, "10.0.0.0/16")
			// Writes carry no latency: only reads (lookups) are slowed.
			// The network the create sent: its arguments are the MR's, so
			// the weak CrossplaneTags proof adopts it (docs/recovery.md,
			// "Weak proofs").
			if _, err := f.cloud.Client.CreateNetwork(ctx, fakecloud.Network{Name: name, CIDRBlock: "10.0.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", name)}); err != nil {
				return fmt.Errorf("cannot create cloud network %s: %w", name, err)
			}
		} else {
			obj = testbed.NewRecordSet(fmt.Sprintf("scale-rs-%06d", i), scaleZone)
		}
		f.objs[i] = obj
		if err := f.cl.Create(ctx, obj); err != nil {
			return fmt.Errorf("cannot create %s: %w", obj.GetName(), err)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d managed resources (%d in all) in %s", n-have, n, time.Since(start).Round(time.Millisecond))
}

// bench runs b.N passes over the first n managed resources and reports the
// mean wall time, API-write time and their ratio to the ideal.
func (f *scaleFixture) bench(b *testing.B, n int) {
	b.Helper()
	ctx := context.Background()
	nets := (n + 7) / 8
	b.ResetTimer()
	b.StopTimer()
	var apiWrite, wall time.Duration
	for it := 0; it < b.N; it++ {
		j, err := journal.Open(filepath.Join(b.TempDir(), "journal.db"))
		if err != nil {
			b.Fatalf("cannot open the journal: %v", err)
		}
		start := time.Now()
		if err := parallel(n, scaleConcurrency, func(i int) error { return f.markPending(ctx, f.objs[i]) }); err != nil {
			b.Fatal(err)
		}
		apiWrite += time.Since(start)
		if err := parallel(n, 64, func(i int) error {
			obj, kind := f.objs[i], scaleKind(i)
			lk := fakecloudtest.CrossplaneTags(kind, obj.GetName())
			lk["zone"], lk["name"] = scaleZone, obj.GetName()
			// What the create sent and that its tags were written before
			// it, as the adapter's create path records them: a weak proof
			// adopts only on matching arguments, and a listing that finds
			// nothing clears only a create that sent its tags (#29, #32).
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				return err
			}
			args, err := recovery.RecordArgs(u, obj.GetGeneration())
			if err != nil {
				return err
			}
			_, err = j.Begin(ctx, journal.Intent{
				Resource:   journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: kind, Name: obj.GetName(), UID: string(obj.GetUID())},
				LookupKeys: lk,
				TaggedSpec: true,
				Args:       args,
			})
			return err
		}); err != nil {
			b.Fatalf("cannot begin intents: %v", err)
		}

		b.StartTimer()
		start = time.Now()
		rep, err := recovery.Run(ctx, recovery.Options{
			Journal: j, Client: f.cl, Kinds: fcrecovery.Kinds(), Finders: fcrecovery.Finders(f.cloud.Client),
			Policy: recovery.Policy{Concurrency: scaleConcurrency},
		})
		wall += time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatalf("recovery pass over %d intents: %v", n, err)
		}
		if rep.Summary.Adopted != nets || rep.Summary.Cleared != n-nets {
			b.Fatalf("summary %+v, want %d adopted and %d cleared", rep.Summary, nets, n-nets)
		}
		if err := j.Close(); err != nil {
			b.Fatalf("cannot close the journal: %v", err)
		}
	}
	ideal := time.Duration(n) * scaleLatency / scaleConcurrency
	perWall, perAPI := wall/time.Duration(b.N), apiWrite/time.Duration(b.N)
	b.ReportMetric(perWall.Seconds(), "wall-s")
	b.ReportMetric(ideal.Seconds(), "ideal-s")
	b.ReportMetric(perAPI.Seconds(), "api-write-s")
	b.ReportMetric(perWall.Seconds()/(ideal+perAPI).Seconds(), "x-(ideal+api)")
	b.ReportMetric(float64(n)/perWall.Seconds(), "intents/s")
}

// markPending puts obj back as a crashed provider left it: the pending mark
// set and no external name. It makes the Get and the Patch the pass makes.
func (f *scaleFixture) markPending(ctx context.Context, obj client.Object) error {
	if err := f.cl.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		return fmt.Errorf("cannot get %s: %w", obj.GetName(), err)
	}
	orig := obj.DeepCopyObject().(client.Object)
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	delete(a, recovery.AnnotationExternalName)
	a[recovery.AnnotationExternalCreatePending] = time.Now().Format(time.RFC3339)
	obj.SetAnnotations(a)
	if err := f.cl.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("cannot patch %s: %w", obj.GetName(), err)
	}
	return nil
}
