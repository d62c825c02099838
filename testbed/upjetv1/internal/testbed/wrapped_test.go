package testbed

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/testbed/internal/testbed"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

var (
	// 10 iterations (100 managed resources) is the legacy v1 line's short
	// form in make test, down from 20 to keep a cold CI run within its
	// budget (#16); -wrapped.iterations=20 runs the former form.
	wrappedIterations = flag.Int("wrapped.iterations", 10, "crash iterations of TestWrappedProvider")
	baselineIters     = flag.Int("wrapped.baseline", 2, "crash iterations of the unwrapped provider that TestWrappedProvider prints for comparison")
	wrappedSeed       = flag.Uint64("wrapped.seed", 0, "seed of the kill moments of TestWrappedProvider (0: from the clock)")
)

const (
	// wrappedLatency is the fake cloud's create latency: long enough that
	// a kill lands while creates are in flight.
	wrappedLatency = 3 * time.Second
	// perIter is how many MRs of each kind one crash iteration creates.
	perIter = 5
	// envFailBegin is cmd/provider-fakecloud's Begin failpoint.
	envFailBegin = "INTENTJOURNAL_FAILPOINT_BEGIN"
)

// crashFigures are what one crash iteration left behind.
type crashFigures struct {
	noName       int // MRs without an external name at SIGKILL
	inFlight     int // of which the cloud had already made the resource: the bug's trigger
	rsConflicts  int64
	rsCopies     int // record sets tagged with the iteration's RecordSet names
	netCopies    int // networks tagged with the iteration's Network names
	netDupes     int // Networks with more than one copy
	notReady     int
	unboundCloud int // cloud objects of the iteration no MR is bound to
}

// TestWrappedProvider runs provider-fakecloud with --journal end to end
// (envtest, the fake cloud process, the real provider binary with upjet's
// async connector) and shows, in order: a failed journal Begin dispatches
// no create; the journal adds no API write per create (counted against
// envtest, with and without it); a same-name record set made outside Crossplane is never adopted
// but reported and its MR paused; and the bug of
// TestProviderCrashDuringAsyncCreate is gone: SIGKILLed at seeded random
// moments with creates in flight, the restarted provider leaves no
// duplicate, no 409 loop, and every MR Ready. It ends with the unwrapped
// provider under the same kills, for comparison.
func TestWrappedProvider(t *testing.T) {
	bins := BuildBinaries(t)
	cl := StartCluster(t)
	fc := StartFakeCloud(t, bins.FakeCloud, fmt.Sprintf(`--faults={"latency":{"create":%q}}`, wrappedLatency))
	CreateProviderConfig(t, cl, fc.URL)
	dir := t.TempDir()
	journalPath := filepath.Join(dir, "intents.db")
	wrappedArgs := []string{"--max-reconcile-rate=100", "--journal", journalPath, "--replica", "provider-0",
		"--recovery-report", filepath.Join(dir, "recovery.json")}

	t.Run("BeginFailureCreatesNothing", func(t *testing.T) {
		before := fc.Stats(t)
		p := startProviderEnv(t, bins.Provider, cl, []string{envFailBegin + "=1"},
			"--max-reconcile-rate=100", "--journal", filepath.Join(dir, "failing.db"))
		rs, net := NewRecordSet("bf-rs", zone), NewNetwork("bf-net", "10.250.0.0/16")
		Create(t, cl, rs, net)
		Eventually(t, 2*time.Minute, 250*time.Millisecond, "the failed Begin to show in both MRs' Synced condition", func() (bool, error) {
			for _, mg := range []resource.Managed{get(t, cl, rs), get(t, cl, net)} {
				if !strings.Contains(mg.GetCondition(xpv1.TypeSynced).Message, "cannot record the create intent") {
					return false, nil
				}
			}
			return true, nil
		})
		// Give any create that slipped through time to reach the cloud.
		time.Sleep(2 * wrappedLatency)
		after := fc.Stats(t)
		for _, kind := range []string{"recordsets", "networks"} {
			if diff := cmp.Diff(before.Kinds[kind].Creates, after.Kinds[kind].Creates); diff != "" {
				t.Errorf("a failed Begin must dispatch no %s create; -before, +after:\n%s", kind, diff)
			}
		}
		for _, mg := range []resource.Managed{get(t, cl, rs), get(t, cl, net)} {
			if _, has, _ := journal.AnnotationIntent(mg.GetAnnotations()); has {
				t.Errorf("%s carries an intent annotation although Begin failed", mg.GetName())
			}
		}
		p.Kill()
	})

	// writes holds the successful API writes per create, unwrapped then
	// wrapped.
	var writes [2]testbed.WritesPerCreate
	t.Run("APIWritesPerCreate", func(t *testing.T) {
		for i, wrapped := range []bool{false, true} {
			args := []string{"--max-reconcile-rate=100", "--log-api-writes"}
			prefix := "aw-plain"
			if wrapped {
				args = append(args, "--journal", filepath.Join(dir, "writes.db"))
				prefix = "aw-wrapped"
			}
			queues := filepath.Join(dir, prefix+".sock")
			p := StartProvider(t, bins.Provider, cl, append(args, "--queue-socket", queues)...)
			names := createBatch(t, cl, prefix, perIter, 240+i)
			waitNamesReady(t, cl, 3*time.Minute, names)
			// Ready is not the create's last write: count once the
			// provider has nothing left to do for the batch.
			testbed.WaitSettled(t, queues, names, 3*time.Minute)
			w, per := testbed.CountWrites(t, p.LogPath(), names)
			p.Kill()
			for _, n := range names {
				writes[i].Add(per[n])
				t.Logf("  %s: %s", n, strings.Join(per[n].Seq, " "))
			}
			t.Logf("API writes, wrapped=%t: %d requests to %d MRs; successful writes per create %v (median %.1f); of creates that met no 409: %v; no 409 on the object: %v",
				wrapped, w, len(names), writes[i].All, testbed.Median(writes[i].All), writes[i].Clean, writes[i].Unskipped)
		}
		// The callback's external-name patch replaces upjet v1's late-init
		// update, and its own event wakes no reconcile (Kind.EventFilter):
		// the journal adds no write (it added one before the event filter,
		// docs/reliability.md, API writes per create).
		if err := testbed.CheckNoAddedWrites(writes[0], writes[1], 0); err != nil {
			t.Error(err)
		}
	})

	prov := StartProvider(t, bins.Provider, cl, wrappedArgs...)

	t.Run("ForeignSameNameIsReportedNotAdopted", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		foreign, err := fc.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: zone, Name: "foreign", Type: "A", TTL: 300, RRDatas: []string{"198.51.100.1"}})
		if err != nil {
			t.Fatalf("CreateRecordSet(): %v", err)
		}
		before := fc.Stats(t).Kinds["recordsets"].Conflicts
		mr := NewRecordSet("foreign", zone)
		Create(t, cl, mr)
		Eventually(t, 2*time.Minute, 250*time.Millisecond, "the conflicting RecordSet to be paused", func() (bool, error) {
			return get(t, cl, mr).GetAnnotations()[recovery.AnnotationPaused] == "true", nil
		})
		time.Sleep(2 * wrappedLatency) // a looping retry would show here
		got := get(t, cl, mr)
		in, _, err := journal.AnnotationIntent(got.GetAnnotations())
		cases := map[string]struct {
			reason    string
			got, want any
		}{
			"NotAdopted": {reason: "A name match alone must never adopt.", got: meta.GetExternalName(got), want: ""},
			"OneConflict": {reason: "The 409 is resolved once, never retried.",
				got: fc.Stats(t).Kinds["recordsets"].Conflicts - before, want: int64(1)},
			"Reported":  {reason: "The intent annotation says reported.", got: string(in.State), want: string(journal.StateReported)},
			"Untouched": {reason: "The foreign record set stays the only one.", got: recordSetsNamed(t, fc, "foreign"), want: []string{foreign.ID}},
			"Event": {reason: "A Warning Event names the conflict.",
				got: hasEvent(t, cl, "foreign", corev1.EventTypeWarning, recovery.EventConflict), want: true},
		}
		if err != nil {
			t.Errorf("intent annotation: %v", err)
		}
		for name, tc := range cases {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s: %s\n-want, +got:\n%s\n%s", name, tc.reason, diff, Describe([]resource.Managed{got}))
			}
		}
	})

	seed := *wrappedSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill moments seeded with -wrapped.seed=%d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	var wrappedFig []crashFigures
	t.Run("CrashDuringAsyncCreate", func(t *testing.T) {
		for it := range *wrappedIterations {
			delay := time.Duration(rng.Int64N(int64(wrappedLatency + time.Second)))
			f := crashIteration(t, cl, fc, prov, fmt.Sprintf("w%02d", it), it, delay, func() {
				waitNamesReady(t, cl, 3*time.Minute, iterNames(fmt.Sprintf("w%02d", it)))
			})
			wrappedFig = append(wrappedFig, f)
			t.Logf("iteration %2d: kill after %-6s unnamed %2d, made but unnamed %2d, RecordSet 409s %d, copies rs=%d net=%d, duplicated Networks %d, unbound cloud objects %d",
				it, delay.Round(time.Millisecond), f.noName, f.inFlight, f.rsConflicts, f.rsCopies, f.netCopies, f.netDupes, f.unboundCloud)
			if f.rsConflicts > perIter || f.netDupes != 0 || f.unboundCloud != 0 || f.rsCopies != perIter || f.netCopies != perIter {
				t.Errorf("iteration %d (seed %d): want at most %d RecordSet 409s, %d copies of each kind, no duplicate and nothing unbound; got %+v",
					it, seed, perIter, perIter, f)
			}
		}
		// Nothing may still be looping: the 409 count stays put and every
		// MR stays Ready.
		c0 := fc.Stats(t).Kinds["recordsets"].Conflicts
		time.Sleep(15 * time.Second)
		if c1 := fc.Stats(t).Kinds["recordsets"].Conflicts; c1 != c0 {
			t.Errorf("RecordSet 409s still growing after every MR was Ready: %d -> %d", c0, c1)
		}
		checkCloudMatchesMRs(t, cl, fc)
	})
	prov.Kill()

	var baseFig []crashFigures
	t.Run("UnwrappedBaseline", func(t *testing.T) {
		base := StartProvider(t, bins.Provider, cl, "--max-reconcile-rate=100")
		// Up, and past the Observes of every earlier MR, like the wrapped one.
		time.Sleep(20 * time.Second)
		for it := range *baselineIters {
			delay := time.Duration(rng.Int64N(int64(wrappedLatency + time.Second)))
			f := crashIteration(t, cl, fc, base, fmt.Sprintf("b%02d", it), it, delay, func() {
				// The unwrapped provider creates again once the 30 s
				// creation grace period is over; give it a minute.
				time.Sleep(75 * time.Second)
			})
			baseFig = append(baseFig, f)
			t.Logf("baseline %2d: kill after %-6s unnamed %2d, made but unnamed %2d, RecordSet 409s %d, copies rs=%d net=%d, duplicated Networks %d, unbound cloud objects %d, not Ready %d",
				it, delay.Round(time.Millisecond), f.noName, f.inFlight, f.rsConflicts, f.rsCopies, f.netCopies, f.netDupes, f.unboundCloud, f.notReady)
		}
		base.Kill()
		// The comparison means something only if the same kills hurt the
		// unwrapped provider: then the wrapped checks above would fail
		// without the wrapper.
		made, harm := 0, 0
		for _, f := range baseFig {
			made += f.inFlight
			harm += int(f.rsConflicts) + f.netDupes + f.unboundCloud + f.notReady
		}
		if made > 0 && harm == 0 {
			t.Errorf("the unwrapped provider had %d creates in flight at SIGKILL but shows no duplicate, 409 or unbound object: the crash loop would not catch a missing wrapper", made)
		}
		t.Logf("unwrapped: %d creates made but unnamed at SIGKILL, %d harms (409s + duplicates + unbound + not Ready)", made, harm)
	})
	t.Logf("\n%s", figuresTable(seed, wrappedFig, baseFig, writes))
}

// crashIteration creates perIter MRs of each kind named after prefix,
// SIGKILLs p after delay, restarts it, calls settle, and measures.
func crashIteration(t *testing.T, cl *Cluster, fc *FakeCloud, p *Provider, prefix string, it int, delay time.Duration, settle func()) crashFigures {
	t.Helper()
	before := fc.Stats(t)
	names := createBatch(t, cl, prefix, perIter, it)
	time.Sleep(delay)
	p.Kill()
	var f crashFigures
	atKill := fc.Stats(t)
	made := recordSetIDsByMR(atKill)
	for n, ids := range networkIDsByMR(atKill) {
		made[n] = append(made[n], ids...)
	}
	for _, mg := range listNames(t, cl, names) {
		if ExternalName(mg) == "" {
			f.noName++
			if len(made[mg.GetName()]) > 0 {
				f.inFlight++
			}
		}
	}
	p.Restart()
	settle()
	after := fc.Stats(t)
	f.rsConflicts = after.Kinds["recordsets"].Conflicts - before.Kinds["recordsets"].Conflicts
	mrs := listNames(t, cl, names)
	bound := map[string]string{}
	for _, mg := range mrs {
		bound[mg.GetName()] = ExternalName(mg)
		if !IsReady(mg) {
			f.notReady++
		}
	}
	rsIDs, netIDs := recordSetIDsByMR(after), networkIDsByMR(after)
	for _, n := range names {
		ids := rsIDs[n]
		if strings.Contains(n, "-net-") {
			ids = netIDs[n]
			f.netCopies += len(ids)
			if len(ids) > 1 {
				f.netDupes++
			}
		} else {
			f.rsCopies += len(ids)
		}
		for _, id := range ids {
			if id != bound[n] {
				f.unboundCloud++
			}
		}
	}
	if f.notReady > 0 {
		t.Logf("not Ready after iteration %s:\n%s", prefix, Describe(notReady(mrs)))
	}
	return f
}

// checkCloudMatchesMRs checks that every object in the fake cloud is bound
// to exactly one MR, apart from record sets made outside Crossplane (no
// crossplane-name tag), whose MR is paused.
func checkCloudMatchesMRs(t *testing.T, cl *Cluster, fc *FakeCloud) {
	t.Helper()
	s := fc.Stats(t)
	bound := map[string]bool{}
	for _, mg := range append(List(t, cl, recordSets()), List(t, cl, networks())...) {
		if en := ExternalName(mg); en != "" {
			bound[en] = true
		}
	}
	var unbound []string
	for _, r := range s.Objects.RecordSets {
		if !bound[r.ID] && r.Tags[tagName] != "" {
			unbound = append(unbound, r.ID+"("+r.Tags[tagName]+")")
		}
	}
	for _, n := range s.Objects.Networks {
		if !bound[n.ID] {
			unbound = append(unbound, n.ID+"("+n.Tags[tagName]+")")
		}
	}
	if len(unbound) > 0 {
		t.Errorf("cloud objects bound to no MR (orphans or duplicates): %v", unbound)
	}
}

// figuresTable renders the wrapped and unwrapped figures side by side.
func figuresTable(seed uint64, w, b []crashFigures, writes [2]testbed.WritesPerCreate) string {
	sum := func(fs []crashFigures, fn func(crashFigures) int) (int, int) {
		tot, worst := 0, 0
		for _, f := range fs {
			v := fn(f)
			tot += v
			worst = max(worst, v)
		}
		return tot, worst
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "crash figures (seed %d; %d MRs of each kind per iteration)\n", seed, perIter)
	fmt.Fprintf(&sb, "%-44s %18s %18s\n", "", fmt.Sprintf("wrapped (%d runs)", len(w)), fmt.Sprintf("unwrapped (%d runs)", len(b)))
	rows := []struct {
		name string
		fn   func(crashFigures) int
	}{
		{"MRs without external name at SIGKILL", func(f crashFigures) int { return f.noName }},
		{"  of which the cloud had made (in flight)", func(f crashFigures) int { return f.inFlight }},
		{"RecordSet 409s (total / worst run)", func(f crashFigures) int { return int(f.rsConflicts) }},
		{"duplicated Networks (total / worst run)", func(f crashFigures) int { return f.netDupes }},
		{"cloud objects bound to no MR", func(f crashFigures) int { return f.unboundCloud }},
		{"MRs not Ready at the end", func(f crashFigures) int { return f.notReady }},
	}
	for _, r := range rows {
		wt, ww := sum(w, r.fn)
		bt, bw := sum(b, r.fn)
		fmt.Fprintf(&sb, "%-44s %18s %18s\n", r.name, fmt.Sprintf("%d / %d", wt, ww), fmt.Sprintf("%d / %d", bt, bw))
	}
	med := func(w testbed.WritesPerCreate) string {
		return fmt.Sprintf("%.1f / %.1f", testbed.Median(w.Clean), testbed.Median(w.All))
	}
	fmt.Fprintf(&sb, "%-44s %18s %18s\n", "API writes per create: median 409-free / all", med(writes[1]), med(writes[0]))
	return sb.String()
}

// createBatch creates n RecordSets and n Networks named <prefix>-rs-<i>
// and <prefix>-net-<i>, and returns their names.
func createBatch(t *testing.T, cl *Cluster, prefix string, n, cidr int) []string {
	t.Helper()
	var names []string
	for i := range n {
		rs, net := fmt.Sprintf("%s-rs-%d", prefix, i), fmt.Sprintf("%s-net-%d", prefix, i)
		Create(t, cl, NewRecordSet(rs, zone), NewNetwork(net, fmt.Sprintf("10.%d.%d.0/24", cidr%250, i)))
		names = append(names, rs, net)
	}
	return names
}

func iterNames(prefix string) []string {
	var names []string
	for i := range perIter {
		names = append(names, fmt.Sprintf("%s-rs-%d", prefix, i), fmt.Sprintf("%s-net-%d", prefix, i))
	}
	return names
}

// listNames returns the MRs called names.
func listNames(t *testing.T, cl *Cluster, names []string) []resource.Managed {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []resource.Managed
	for _, mg := range append(List(t, cl, recordSets()), List(t, cl, networks())...) {
		if want[mg.GetName()] {
			out = append(out, mg)
		}
	}
	return out
}

func notReady(mgs []resource.Managed) []resource.Managed {
	var out []resource.Managed
	for _, mg := range mgs {
		if !IsReady(mg) {
			out = append(out, mg)
		}
	}
	return out
}

// waitNamesReady waits until every MR called one of names is Ready.
func waitNamesReady(t *testing.T, cl *Cluster, timeout time.Duration, names []string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		mgs := listNames(t, cl, names)
		nr := notReady(mgs)
		if len(mgs) == len(names) && len(nr) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s, %d of %d MRs are not Ready:\n%s", timeout, len(nr), len(names), Describe(nr))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// get reads obj afresh.
func get[T resource.Managed](t *testing.T, cl *Cluster, obj T) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	out := obj.DeepCopyObject().(T)
	if err := cl.Client.Get(ctx, client.ObjectKeyFromObject(obj), out); err != nil {
		t.Fatalf("cannot get %s: %v", obj.GetName(), err)
	}
	return out
}

// recordSetsNamed returns the IDs of the record sets called name in zone.
func recordSetsNamed(t *testing.T, fc *FakeCloud, name string) []string {
	t.Helper()
	var ids []string
	for _, r := range fc.Stats(t).Objects.RecordSets {
		if r.Zone == zone && r.Name == name {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// hasEvent reports whether an Event of type typ and reason was recorded
// for the object called name.
func hasEvent(t *testing.T, cl *Cluster, name, typ, reason string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	var evs corev1.EventList
	if err := cl.Client.List(ctx, &evs); err != nil {
		t.Fatalf("cannot list events: %v", err)
	}
	for _, e := range evs.Items {
		if e.InvolvedObject.Name == name && e.Type == typ && e.Reason == reason {
			return true
		}
	}
	return false
}

// startProviderEnv is StartProvider with extra environment variables.
func startProviderEnv(t *testing.T, bin string, c *Cluster, env []string, args ...string) *Provider {
	t.Helper()
	all := append([]string{"--kubeconfig", c.Kubeconfig, "--metrics-bind-address", "0"}, args...)
	return &Provider{Process: StartProcess(t, "provider-fakecloud", bin, all, env...)}
}
