package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/intentjournal/intentjournal/testbed/internal/demo"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// BenchmarkCostOfSafety measures issue #34, the cost of safety: what the
// wrapped provider costs against unwrapped upjet when nothing crashes. Each
// iteration runs the v2 line's demo with the two runs with no kill,
// unwrapped-no-kill and no-kill (wrapped), in turn first (every other
// iteration, counted across rounds, runs the wrapped one first), each on a fresh control plane and fake cloud
// with N RecordSets and N Networks. It reports, averaged over the
// iterations, each run's time to converge from the provider's start
// (unwrapped-converge-s, wrapped-converge-s), the provider's CPU time per
// create (-cpu-ms/create), peak RSS (-rss-MiB), API requests and writes per
// create (-reqs/create, -writes/create; see demo.Cost for what they count),
// and the wrapped figures over the unwrapped ones (converge-ratio,
// cpu-ratio, rss-ratio, reqs-ratio, writes-ratio). The goals, 1.05 for
// converge-ratio, 1.10 for cpu-ratio and 1 for writes-ratio, are printed,
// never asserted: the ns/op is that of both runs, start-up included, and
// means little. It fails when the wrapped run does not converge; a round
// whose unwrapped run does not is left out of the figures and counted in
// rounds-without-baseline.
//
// It needs the envtest tools (make tools) and builds the fake cloud and the
// v2 provider first, outside the timer. From the repository root, with its
// go.work:
//
//	go -C testbed test ./cmd/intentjournal-dev -run '^$' -bench 'BenchmarkCostOfSafety/N=200$' -benchtime 1x -count 3 -timeout 2h
//
// N=4000 waits up to the demo's default converge timeout, 200 ms per MR
// (about 27 minutes), per run.
func BenchmarkCostOfSafety(b *testing.B) {
	for _, n := range []int{200, 4000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchmarkCostOfSafety(b, n) })
	}
}

// costRounds counts the iterations of BenchmarkCostOfSafety in this
// process, so that the two runs take turns going first.
var costRounds int

// costFigures are the figures of one run with no kill the benchmark
// reports, summed over its iterations.
type costFigures struct {
	converge, cpu, rss, reqs, writes float64
	verbs                            map[string]float64 // per create, of costVerbs (the cost table's)
}

func (f *costFigures) add(r demo.Result) {
	f.converge += r.ConvergeTime.Seconds()
	f.cpu += float64(r.Cost.CPUPerCreate()) / float64(time.Millisecond)
	f.rss += float64(r.Cost.PeakRSS) / (1 << 20)
	f.reqs += r.Cost.AllRequestsPerCreate()
	f.writes += r.Cost.WritesPerCreate()
	if f.verbs == nil {
		f.verbs = map[string]float64{}
	}
	for _, v := range costVerbs {
		f.verbs[v] += r.Cost.RequestsPerCreate(v)
	}
}

func (f costFigures) report(b *testing.B, prefix string, n int) {
	for unit, v := range map[string]float64{"converge-s": f.converge, "cpu-ms/create": f.cpu, "rss-MiB": f.rss, "reqs/create": f.reqs, "writes/create": f.writes} {
		b.ReportMetric(v/float64(n), prefix+"-"+unit)
	}
	for _, v := range costVerbs {
		b.ReportMetric(f.verbs[v]/float64(n), prefix+"-"+v+"/create")
	}
}

func benchmarkCostOfSafety(b *testing.B, perKind int) {
	b.StopTimer()
	line, err := demo.LineFor(demo.LineV2)
	if err != nil {
		b.Fatal(err)
	}
	assets := testenv.KubebuilderAssets(b)
	bins := testbed.BuildBinariesIn(b, filepath.Join(repoRoot, line.ModuleDir), line.ProviderPackage)
	log := zaptest.NewLogger(b, zaptest.Level(zap.WarnLevel))
	// envtest logs through controller-runtime's global logger.
	ctrllog.SetLogger(zapr.NewLogger(log))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()

	var unwrapped, wrapped costFigures
	counted, skipped := 0, 0
	for range b.N {
		modes := []demo.Mode{demo.ModeUnwrappedNoKill, demo.ModeNoKill}
		// -benchtime 1x -count 3 makes three rounds of one iteration:
		// alternate across rounds too, not only across iterations.
		if costRounds++; costRounds%2 == 0 {
			slices.Reverse(modes)
		}
		o := demo.Options{
			Line:      line,
			CRDDir:    filepath.Join(repoRoot, line.CRDDir),
			Binaries:  demo.Binaries{FakeCloud: bins.FakeCloud, Provider: bins.Provider},
			AssetsDir: assets,
			PerKind:   perKind,
			WorkDir:   b.TempDir(),
			// Both runs converge in minutes at N=4000; the demo's default
			// (200 ms per MR, 27 minutes) would spend most of an hour on
			// a baseline that cannot converge (below).
			ConvergeTimeout: max(3*time.Minute, time.Duration(2*perKind)*75*time.Millisecond),
			Modes:           modes,
			Log:             log,
		}
		b.StartTimer()
		results, err := demo.Run(ctx, o)
		b.StopTimer()
		if err != nil {
			b.Fatalf("demo.Run(%v): %v", modes, err)
		}
		var got [2]*demo.Result
		for i := range results {
			r := &results[i]
			if r.Cost == nil {
				b.Fatalf("the %s run measured no cost", r.Mode)
			}
			switch {
			case r.Mode == demo.ModeNoKill && !r.Converged:
				b.Fatalf("the wrapped run did not converge within %s (%d stuck)", r.ConvergeTimeout, r.Stuck)
			case r.Mode == demo.ModeUnwrappedNoKill && !r.Converged:
				// Unwrapped upjet has defects the wrapped provider fixes:
				// crossplane-runtime's update recording a create's success
				// can lose five conflicts in a row and leave an MR at
				// "cannot determine creation result" for good (1 of
				// 8,000 MRs in a run at N=4000). Such a round has no
				// baseline: it is logged and left out of the figures.
				b.Logf("the unwrapped run did not converge within %s: %d of %d MRs stuck; this round is left out", r.ConvergeTimeout, r.Stuck, r.Total())
				skipped++
			case r.Mode == demo.ModeUnwrappedNoKill:
				got[0] = r
			case r.Mode == demo.ModeNoKill:
				got[1] = r
			}
		}
		if got[0] != nil && got[1] != nil {
			unwrapped.add(*got[0])
			wrapped.add(*got[1])
			counted++
		}
	}
	b.ReportMetric(float64(skipped), "rounds-without-baseline")
	if counted == 0 {
		return
	}
	unwrapped.report(b, "unwrapped", counted)
	wrapped.report(b, "wrapped", counted)
	// Ratios of the means, both runs having run b.N times.
	for unit, r := range map[string][2]float64{
		"converge-ratio": {wrapped.converge, unwrapped.converge},
		"cpu-ratio":      {wrapped.cpu, unwrapped.cpu},
		"rss-ratio":      {wrapped.rss, unwrapped.rss},
		"reqs-ratio":     {wrapped.reqs, unwrapped.reqs},
		"writes-ratio":   {wrapped.writes, unwrapped.writes},
	} {
		if r[1] > 0 {
			b.ReportMetric(r[0]/r[1], unit)
		}
	}
}
