package main

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
)

// passResult is what the bench line reports of one pass.
type passResult struct {
	resolved   int
	wall       float64 // seconds, the pass line's wall
	peakRSSMiB float64
	requests   float64 // apiTotal's, WATCH left out
}

// benchLine writes r as one result line of go test -bench output, with
// one iteration of the pass's wall time, so that the lines of several
// runs, concatenated, are an input hack/internal/benchres reads and
// `benchplot -pass` plots:
//
//	BenchmarkProviderPass/N=4000 	1	40900000000 ns/op	177.4 intents/s	7259 intents	412.5 peak-rss-MiB	1.02 reqs/intent
func benchLine(name string, r passResult) string {
	rate := 0.0
	if r.wall > 0 {
		rate = float64(r.resolved) / r.wall
	}
	return fmt.Sprintf("Benchmark%s \t1\t%d ns/op\t%.1f intents/s\t%d intents\t%.1f peak-rss-MiB\t%.2f reqs/intent",
		name, int64(math.Round(r.wall*1e9)), rate, r.resolved, r.peakRSSMiB, r.requests/float64(max(r.resolved, 1)))
}

// procsSuffix is the GOMAXPROCS suffix benchres drops from a name.
var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// validBenchName accepts "" (no bench line) or a sub-benchmark name such
// as ProviderPass/N=4000: no spaces, no Benchmark prefix (benchLine adds
// it), and no -digits suffix, which benchres would take for GOMAXPROCS
// and drop.
func validBenchName(name string) error {
	switch {
	case name == "":
		return nil
	case strings.IndexFunc(name, unicode.IsSpace) >= 0:
		return fmt.Errorf("-bench %q: a benchmark name has no spaces", name)
	case strings.HasPrefix(name, "Benchmark"):
		return fmt.Errorf("-bench %q: give the name without its Benchmark prefix", name)
	case procsSuffix.MatchString(name):
		return fmt.Errorf("-bench %q: a name ending in -digits reads as a GOMAXPROCS suffix", name)
	}
	return nil
}
