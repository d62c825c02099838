package terraform_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"github.com/hashicorp/terraform-exec/tfexec"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/terraform"
)

// benchIntents is how many intents the benchmark resolves.
const benchIntents = 1000

// benchSingles returns how many single imports to time
// (INTENTJOURNAL_BENCH_SINGLES, default 100): their cost is extrapolated to
// benchIntents linearly.
func benchSingles(b *testing.B) int {
	if v := os.Getenv("INTENTJOURNAL_BENCH_SINGLES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > benchIntents {
			b.Fatalf("INTENTJOURNAL_BENCH_SINGLES=%q: want 1..%d", v, benchIntents)
		}
		return n
	}
	return 100
}

// BenchmarkImport compares one batched run over 1,000 intents with
// tfexec's Import called once per intent, in the same run, against the
// real fake cloud and provider:
//
//	cd testbed && go test ./integration/terraform -run '^$' -bench BenchmarkImport -benchtime 1x -count 3 -timeout 2h
func BenchmarkImport(b *testing.B) {
	r := newRig(b)
	ctx := context.Background()
	cands := make([]*recovery.Candidate, benchIntents)
	for i := range cands {
		cands[i] = candidate(i, "")
		cands[i].Intent.ExternalName = createNetwork(b, r.fc.Client, cands[i].Intent.Resource.Name, ourTags(cands[i]))
	}

	b.Run("Batched", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			im := r.importer(b, terraform.WithBatchSize(benchIntents), terraform.WithLogger(zapr.NewLogger(benchLogger(b))))
			// A first batch initialises the workspace (init runs once
			// per Importer), so that init is not timed. Its one missing
			// ID leaves the state empty.
			if _, err := im.ImportBatch(ctx, []*recovery.Candidate{candidate(benchIntents, missingID(benchIntents))}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := im.ImportBatch(ctx, cands)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if n := statuses(res)[terraform.StatusImported]; n != benchIntents {
				b.Fatalf("imported %d of %d", n, benchIntents)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/1000-intents")
	})

	b.Run("Single", func(b *testing.B) {
		singles := benchSingles(b)
		var per []time.Duration
		for b.Loop() {
			b.StopTimer()
			im := r.importer(b)
			tf := r.tf(b, im)
			// The workspace's configuration holds every resource, as a
			// workspace adopting 1,000 resources one by one would. The
			// names (net-NNNN) quote the same in Go as in HCL.
			var cfg strings.Builder
			for _, c := range cands {
				fmt.Fprintf(&cfg, "resource %q %q {\n  name = %q\n  lifecycle {\n    ignore_changes = all\n  }\n}\n\n",
					networkType.Type, strings.TrimPrefix(im.Address(c), networkType.Type+"."), c.Intent.Resource.Name)
			}
			if err := os.WriteFile(generatedFile(im, networkType), []byte(cfg.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := tf.Init(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			for _, c := range cands[:singles] {
				start := time.Now()
				if err := tf.Import(ctx, im.Address(c), c.Intent.ExternalName, tfexec.Lock(true)); err != nil {
					b.Fatalf("import %s: %v", im.Address(c), err)
				}
				per = append(per, time.Since(start))
			}
		}
		slices.Sort(per)
		median := per[len(per)/2]
		b.ReportMetric(median.Seconds(), "median-s/import")
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/float64(singles)*benchIntents, "s/1000-intents-extrapolated")
		b.ReportMetric(float64(singles), "singles-timed")
	})
}

// benchLogger logs each CLI command's duration when
// INTENTJOURNAL_BENCH_LOG is set.
func benchLogger(b *testing.B) *zap.Logger {
	if os.Getenv("INTENTJOURNAL_BENCH_LOG") == "" {
		return nil
	}
	return zaptest.NewLogger(b)
}
