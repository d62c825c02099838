// Package scalebench is the fixture of the recovery pass's scale
// benchmarks, shared by both crossplane lines: the v1 line's
// BenchmarkRecovery4000 and BenchmarkRecoveryScale on its hand-written
// test kinds (testbed/upjetv1/internal/recoverytest), and the v2 line's
// BenchmarkRecoveryGenerated4000 on the kinds upjet's pipeline generated
// (testbed/upjetv2/internal/testbed). A line supplies its control plane,
// its two kinds and how its create path begins an intent; the workload,
// the pass and the figures are the same, so the two lines' results differ
// only by their kinds (#34).
//
// The workload: N managed resources, every eighth a Network that exists
// in the fake cloud with the tags its create sent (adopted on the weak
// crossplane-tags proof, with matching recorded arguments), the rest
// RecordSets under which nothing was created (cleared); a 20 ms lookup
// latency in the fake cloud process; a pass with live reads at
// concurrency 32; envtest without client-side throttling.
//
// SCALEBENCH_WATCHERS=K adds K watches of each managed kind over the pass,
// each decoding every event as an informer does: a provider's pass runs
// beside its manager's cache, and the API server sends each of the pass's
// changes to every watcher (#34). SCALEBENCH_PAD=BYTES gives every managed
// resource an annotation of BYTES bytes, to weigh the pass's writes on
// objects the size of those a crashed provider leaves (about 3.5 KB on the
// generated v2 kinds, against 1 KB freshly created). SCALEBENCH_EVERY=K
// makes every K-th managed resource a Network that is adopted, instead of
// every eighth: K=1 adopts all, as a provider's pass after a crash in the
// middle of creates mostly does. SCALEBENCH_SHAPE=crashed gives every
// managed resource the structure a provider killed in the middle of its
// creates leaves, not only its size (see crash): three field managers,
// one of them the status subresource's, the finalizer, the create's tags
// in the spec, Ready and Synced conditions, and the crossplane create
// annotations beside the intent's.
package scalebench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

const (
	// Concurrency is the pass's, and the fixture's writes'.
	Concurrency = 32
	// Latency is the fake cloud's latency on reads, the pass's lookups.
	Latency = 20 * time.Millisecond
	// Zone is the RecordSets' zone.
	Zone = "zone-scale"
)

// Line is what a crossplane line's benchmark supplies.
type Line struct {
	// Cluster serves the line's CRDs; its scheme knows their types.
	Cluster *fakecloudtest.Cluster
	// Kinds are the pass's managed kinds: the RecordSet's and the
	// Network's.
	Kinds []schema.GroupVersionKind
	// RecordSet and Network return a managed resource named name, not
	// yet created.
	RecordSet func(name string) client.Object
	Network   func(name, cidr string) client.Object
	// Intent returns the intent the line's create path begins for obj,
	// created: its resource and lookup keys. The fixture adds the natural
	// key (zone and name), TaggedSpec and the recorded arguments.
	Intent func(obj client.Object) (journal.Intent, error)
}

// Fixture holds the control plane, the fake cloud and the managed
// resources the sizes of a benchmark share.
type Fixture struct {
	line    Line
	every   int  // every every-th managed resource is a Network
	crashed bool // SCALEBENCH_SHAPE=crashed
	cl      client.WithWatch
	cloud   *fakecloudtest.Process
	objs    []client.Object
}

// Option configures a Fixture.
type Option func(*Fixture)

// CrashShaped gives the fixture's managed resources the structure a
// provider killed in the middle of its creates leaves (see Fixture.crash),
// as SCALEBENCH_SHAPE=crashed does, and makes one in every adoptEvery of
// them a Network that the pass adopts (the default of SCALEBENCH_EVERY,
// which, set, still rules).
func CrashShaped(adoptEvery int) Option {
	return func(f *Fixture) { f.crashed, f.every = true, adoptEvery }
}

// New returns a fixture on line's control plane with a fake cloud process
// of its own.
func New(b *testing.B, line Line, opts ...Option) *Fixture {
	b.Helper()
	cfg := rest.CopyConfig(line.Cluster.Config)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling: measure the server
	cl, err := client.NewWithWatch(cfg, client.Options{Scheme: line.Cluster.Scheme})
	if err != nil {
		b.Fatalf("cannot create the API client: %v", err)
	}
	cloud := fakecloudtest.Start(b, fakecloudtest.Build(b), fakecloudtest.Options{})
	ctx := context.Background()
	if err := cloud.Client.SetFaults(ctx, fakecloud.Faults{Latency: fakecloud.Latencies{Read: Latency}}); err != nil {
		b.Fatalf("cannot set the lookup latency: %v", err)
	}
	f := &Fixture{line: line, every: 8, cl: cl, cloud: cloud}
	for _, o := range opts {
		o(f)
	}
	f.every = envInt(b, "SCALEBENCH_EVERY", f.every, 1)
	switch shape := os.Getenv("SCALEBENCH_SHAPE"); shape {
	case "":
	case "crashed":
		f.crashed = true
	default:
		b.Fatalf("SCALEBENCH_SHAPE=%q: want crashed, or unset", shape)
	}
	return f
}

// network reports whether the i-th managed resource is a Network: every
// every-th is (eighth by default; CrashShaped, SCALEBENCH_EVERY), so any
// prefix of N holds N/every of them.
func (f *Fixture) network(i int) bool { return i%f.every == 0 }

// intent is the intent the create of obj began, as the line's create path
// records it, with the natural key BenchmarkRecovery4000 has always
// recorded. The managed resources carry no tags in their spec; the create
// is taken to have sent them (TaggedSpec), so that a listing that finds
// nothing clears it (#29, #32).
func (f *Fixture) intent(obj client.Object) (journal.Intent, error) {
	in, err := f.line.Intent(obj)
	if err != nil {
		return journal.Intent{}, fmt.Errorf("cannot build the intent of %s: %w", obj.GetName(), err)
	}
	if in.LookupKeys == nil {
		in.LookupKeys = map[string]string{}
	}
	in.LookupKeys["zone"], in.LookupKeys["name"] = Zone, obj.GetName()
	in.TaggedSpec = true
	// A crash-shaped create sent the UID tag, as the demo's provider's
	// does.
	in.UIDTag = f.crashed
	return in, nil
}

// cloudNetwork creates the cloud network behind the Network obj, with the
// tags its create sent.
func (f *Fixture) cloudNetwork(ctx context.Context, obj client.Object, tags map[string]string) error {
	name := obj.GetName()
	if _, err := f.cloud.Client.CreateNetwork(ctx, fakecloud.Network{Name: name, CIDRBlock: "10.0.0.0/16", Tags: tags}); err != nil {
		return fmt.Errorf("cannot create cloud network %s: %w", name, err)
	}
	return nil
}

// tags are the tags the create of obj sent: its intent's crossplane tags
// and, crash-shaped, its UID tag.
func (f *Fixture) tags(in journal.Intent, obj client.Object) map[string]string {
	tags := recovery.CrossplaneTags(in.LookupKeys)
	if f.crashed {
		tags[recovery.TagUID] = string(obj.GetUID())
	}
	return tags
}

// Grow creates managed resources, and the cloud Networks behind the
// Network ones, until there are n. Creating is not timed.
func (f *Fixture) Grow(b *testing.B, n int) {
	b.Helper()
	have := len(f.objs)
	if have >= n {
		return
	}
	f.objs = append(f.objs, make([]client.Object, n-have)...)
	ctx := context.Background()
	start := time.Now()
	if err := Parallel(n-have, Concurrency, func(k int) error {
		i := have + k
		var obj client.Object
		if f.network(i) {
			obj = f.line.Network(fmt.Sprintf("scale-net-%06d", i), "10.0.0.0/16")
		} else {
			obj = f.line.RecordSet(fmt.Sprintf("scale-rs-%06d", i))
		}
		f.objs[i] = obj
		if err := f.cl.Create(ctx, obj); err != nil {
			return fmt.Errorf("cannot create %s: %w", obj.GetName(), err)
		}
		in, err := f.intent(obj)
		if err != nil {
			return err
		}
		tags := f.tags(in, obj)
		if f.network(i) {
			// Writes carry no latency: only reads (lookups) are slowed.
			// The network the create sent: its arguments are the MR's and
			// its tags its intent's crossplane tags, so the weak
			// CrossplaneTags proof adopts it (docs/recovery.md, "Weak
			// proofs"); crash-shaped, the UID tag too, as a provider's
			// create sends it, so the UID proof does.
			if err := f.cloudNetwork(ctx, obj, tags); err != nil {
				return err
			}
		}
		if f.crashed {
			return f.crash(ctx, obj, tags)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d managed resources (%d in all) in %s", n-have, n, time.Since(start).Round(time.Millisecond))
}

// Bench runs b.N passes over the first n managed resources and reports the
// mean wall time, API-write time and their ratio to the ideal, the rate,
// and the API server's CPU per intent.
func (f *Fixture) Bench(b *testing.B, n int) {
	b.Helper()
	ctx := context.Background()
	nets := (n + f.every - 1) / f.every
	watchers := envInt(b, "SCALEBENCH_WATCHERS", 0, 0)
	pad := envInt(b, "SCALEBENCH_PAD", 0, 0)
	b.ResetTimer()
	b.StopTimer()
	var apiWrite, wall, apiCPU time.Duration
	for it := 0; it < b.N; it++ {
		j, err := journal.Open(filepath.Join(b.TempDir(), "journal.db"))
		if err != nil {
			b.Fatalf("cannot open the journal: %v", err)
		}
		start := time.Now()
		if err := Parallel(n, Concurrency, func(i int) error { return f.markPending(ctx, f.objs[i], pad) }); err != nil {
			b.Fatal(err)
		}
		apiWrite += time.Since(start)
		begun := make([]journal.Intent, n)
		if err := Parallel(n, 64, func(i int) error {
			obj := f.objs[i]
			in, err := f.intent(obj)
			if err != nil {
				return err
			}
			// What the create sent, as the adapter's create path records
			// it: a weak proof adopts only on matching arguments.
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				return err
			}
			if in.Args, err = recovery.RecordArgs(u, obj.GetGeneration()); err != nil {
				return err
			}
			begun[i], err = j.Begin(ctx, in)
			return err
		}); err != nil {
			b.Fatalf("cannot begin intents: %v", err)
		}
		if f.crashed {
			// The create path writes the intent to the resource too,
			// and crossplane-runtime records the create as succeeded.
			if err := Parallel(n, Concurrency, func(i int) error { return f.annotate(ctx, f.objs[i], begun[i]) }); err != nil {
				b.Fatal(err)
			}
		}
		if it == 0 {
			// What each of the pass's writes carries: the managed resource
			// as the API server stores it, managed fields included.
			b.ReportMetric(jsonBytes(b, f.objs[0]), "network-bytes")
			for i := 1; i < n; i++ {
				if !f.network(i) {
					b.ReportMetric(jsonBytes(b, f.objs[i]), "recordset-bytes")
					break
				}
			}
		}

		stop := f.watch(b, watchers)
		cpu0 := f.apiServerCPU(b)
		b.StartTimer()
		start = time.Now()
		rep, err := recovery.Run(ctx, recovery.Options{
			Journal: j, Client: f.cl, Kinds: f.line.Kinds, Finders: fcrecovery.Finders(f.cloud.Client),
			Policy: recovery.Policy{Concurrency: Concurrency},
		})
		wall += time.Since(start)
		b.StopTimer()
		apiCPU += f.apiServerCPU(b) - cpu0
		seen := stop()
		if err != nil {
			b.Fatalf("recovery pass over %d intents: %v", n, err)
		}
		if rep.Summary.Adopted != nets || rep.Summary.Cleared != n-nets {
			b.Fatalf("summary %+v, want %d adopted and %d cleared", rep.Summary, nets, n-nets)
		}
		if seen < watchers*n {
			b.Fatalf("%d watchers saw %d changes, want at least %d: one per intent each", watchers, seen, watchers*n)
		}
		if err := j.Close(); err != nil {
			b.Fatalf("cannot close the journal: %v", err)
		}
	}
	ideal := time.Duration(n) * Latency / Concurrency
	perWall, perAPI := wall/time.Duration(b.N), apiWrite/time.Duration(b.N)
	b.ReportMetric(perWall.Seconds(), "wall-s")
	b.ReportMetric(ideal.Seconds(), "ideal-s")
	b.ReportMetric(perAPI.Seconds(), "api-write-s")
	b.ReportMetric(perWall.Seconds()/(ideal+perAPI).Seconds(), "x-(ideal+api)")
	b.ReportMetric(float64(n)/perWall.Seconds(), "intents/s")
	// The API server's CPU over the pass, per intent: on a machine it
	// saturates, its cost per request sets the pass's pace (#34).
	b.ReportMetric(float64(apiCPU.Microseconds())/1000/float64(n)/float64(b.N), "apiserver-cpu-ms/intent")
	b.ReportMetric(float64(watchers), "watchers")
	b.ReportMetric(float64(pad), "pad-bytes")
	b.ReportMetric(float64(nets), "adopted")
	crashed := 0.0
	if f.crashed {
		crashed = 1
	}
	b.ReportMetric(crashed, "crashed-shape")
}

// watch starts k watches of each of the line's kinds, from now on, each
// decoding every event into an object as an informer does. stop ends them
// once they have drained what the API server sent, and returns how many
// changes they saw.
func (f *Fixture) watch(b *testing.B, k int) (stop func() int) {
	b.Helper()
	if k == 0 {
		return func() int { return 0 }
	}
	ctx, cancel := context.WithCancel(context.Background())
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen int
	)
	for range k {
		for _, gvk := range f.line.Kinds {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			// From the current resourceVersion: the changes to come.
			if err := f.cl.List(ctx, l, client.Limit(1)); err != nil {
				b.Fatalf("cannot list %s to watch it: %v", gvk.Kind, err)
			}
			w, err := f.cl.Watch(ctx, l, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: l.GetResourceVersion()}})
			if err != nil {
				b.Fatalf("cannot watch %s: %v", gvk.Kind, err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer w.Stop()
				for {
					select {
					case _, ok := <-w.ResultChan():
						if !ok {
							return
						}
						mu.Lock()
						seen++
						mu.Unlock()
					case <-ctx.Done():
						return
					}
				}
			}()
		}
	}
	return func() int {
		// The last changes may still be on their way: wait until the
		// count stops growing.
		for last := -1; ; {
			time.Sleep(200 * time.Millisecond)
			mu.Lock()
			now := seen
			mu.Unlock()
			if now == last {
				break
			}
			last = now
		}
		cancel()
		wg.Wait()
		return seen
	}
}

// padAnnotation holds SCALEBENCH_PAD's bytes.
const padAnnotation = "scalebench.intentjournal.io/pad"

// markPending puts obj back as a crashed provider left it: the pending mark
// set and no external name, and pad bytes of padding (none when 0). It
// makes the Get and the Patch the pass makes.
func (f *Fixture) markPending(ctx context.Context, obj client.Object, pad int) error {
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
	if pad > 0 {
		a[padAnnotation] = strings.Repeat("x", pad)
	} else {
		delete(a, padAnnotation)
	}
	obj.SetAnnotations(a)
	if err := f.cl.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}), f.owner()...); err != nil {
		return fmt.Errorf("cannot patch %s: %w", obj.GetName(), err)
	}
	return nil
}

// providerManager is the field manager of the writes SCALEBENCH_SHAPE=crashed
// makes as the provider: the creator (the fixture's client) is another.
const providerManager = "scalebench-provider"

// owner is the field manager of the pending mark: the provider's when the
// managed resources are crash-shaped, whose create path writes it.
func (f *Fixture) owner() []client.PatchOption {
	if !f.crashed {
		return nil
	}
	return []client.PatchOption{client.FieldOwner(providerManager)}
}

// crash gives obj, just created, what a provider's first reconcile and
// its create path write before the kill, as `make demo`'s provider leaves
// it (hack/passprofile -out keeps one of each kind): as the provider's
// field manager, the managed resource finalizer, the tags upjet's create
// sends in spec.forProvider.tags (the crossplane tags and the intent's UID
// tag) and an empty spec.initProvider; through the status subresource,
// also as the provider, an empty status.atProvider and the Ready (False,
// Creating) and Synced (True) conditions. The tags are the ones a Network
// was created with in the cloud, its UID tag among them, so the UID proof
// adopts it.
func (f *Fixture) crash(ctx context.Context, obj client.Object, tags map[string]string) error {
	spec, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"finalizers": []string{"finalizer.managedresource.crossplane.io"}},
		"spec":     map[string]any{"forProvider": map[string]any{"tags": tags}, "initProvider": map[string]any{}},
	})
	if err != nil {
		return err
	}
	if err := f.cl.Patch(ctx, obj, client.RawPatch(types.MergePatchType, spec), client.FieldOwner(providerManager)); err != nil {
		return fmt.Errorf("cannot give %s a crashed provider's spec: %w", obj.GetName(), err)
	}
	now := metav1.Now().UTC().Format(time.RFC3339)
	cond := func(typ, status, reason string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "lastTransitionTime": now, "observedGeneration": obj.GetGeneration()}
	}
	status, err := json.Marshal(map[string]any{"status": map[string]any{
		"atProvider": map[string]any{},
		"conditions": []any{cond("Ready", "False", "Creating"), cond("Synced", "True", "ReconcileSuccess")},
	}})
	if err != nil {
		return err
	}
	if err := f.cl.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, status), client.FieldOwner(providerManager)); err != nil {
		return fmt.Errorf("cannot give %s a crashed provider's status: %w", obj.GetName(), err)
	}
	return nil
}

// annotate writes in, just begun, to obj's intent annotation, with
// crossplane-runtime's external-create-succeeded, as the provider: the
// annotations of a create dispatched before the kill.
func (f *Fixture) annotate(ctx context.Context, obj client.Object, in journal.Intent) error {
	v, err := journal.EncodeAnnotation(in)
	if err != nil {
		return fmt.Errorf("cannot encode the intent of %s: %w", obj.GetName(), err)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": obj.GetResourceVersion(),
		"annotations": map[string]string{
			journal.AnnotationKey:                    v,
			recovery.AnnotationExternalCreateSucceed: time.Now().UTC().Format(time.RFC3339),
		},
	}})
	if err != nil {
		return err
	}
	if err := f.cl.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(providerManager)); err != nil {
		return fmt.Errorf("cannot annotate %s with its intent: %w", obj.GetName(), err)
	}
	return nil
}

// apiServerCPU reads the CPU time the control plane's API server has spent.
func (f *Fixture) apiServerCPU(b *testing.B) time.Duration {
	b.Helper()
	d, err := f.line.Cluster.APIServerCPU()
	if err != nil {
		b.Fatalf("cannot read the API server's CPU time: %v", err)
	}
	return d
}

// Parallel runs fn(i) for i in [0, n) on c goroutines and returns the
// first error.
func Parallel(n, c int, fn func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// jsonBytes is the size of obj in JSON.
func jsonBytes(b *testing.B, obj client.Object) float64 {
	b.Helper()
	j, err := json.Marshal(obj)
	if err != nil {
		b.Fatalf("cannot encode %s: %v", obj.GetName(), err)
	}
	return float64(len(j))
}

// envInt returns the environment variable name as a whole number of at
// least least, or def when it is unset; anything else fails b.
func envInt(b *testing.B, name string, def, least int) int {
	b.Helper()
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		b.Fatalf("%s=%q: want a whole number, %d or more", name, v, least)
	}
	return n
}
