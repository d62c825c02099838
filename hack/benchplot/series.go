package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/intentjournal/intentjournal/hack/internal/benchres"
)

// errNoSeries is wrapped by the errors for an input that lacks a series a
// plot needs.
var errNoSeries = errors.New("missing series")

// parseFile reads the go test -bench output in path.
func parseFile(path string) (*benchres.Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open benchmark output: %w", err)
	}
	defer f.Close()
	s, err := benchres.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// recoveryPoint is one size of BenchmarkRecoveryScale: medians across
// rounds, in seconds.
type recoveryPoint struct {
	N        int
	Runs     int
	Wall     float64
	Ideal    float64
	APIWrite float64
}

// IdealPlusAPI is the wall time the pass would take if it did nothing but
// wait for its lookups at full concurrency and make its API writes.
func (p recoveryPoint) IdealPlusAPI() float64 { return p.Ideal + p.APIWrite }

const recoveryBench = "RecoveryScale"

// recoveryPoints returns the medians of every BenchmarkRecoveryScale/N=...
// size in s, by ascending N.
func recoveryPoints(s *benchres.Set) ([]recoveryPoint, error) {
	var pts []recoveryPoint
	for _, name := range s.Order {
		n, ok, err := param(name, recoveryBench, "N")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		p := recoveryPoint{N: n}
		if p.Runs, err = medians(s, name, []metric{{"wall-s", 1, &p.Wall}, {"ideal-s", 1, &p.Ideal}, {"api-write-s", 1, &p.APIWrite}}); err != nil {
			return nil, err
		}
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: no Benchmark%s/N=... results (run go test -bench %s ./recovery)", errNoSeries, recoveryBench, recoveryBench)
	}
	slices.SortFunc(pts, func(a, b recoveryPoint) int { return a.N - b.N })
	return pts, nil
}

// passPoint is one size of BenchmarkProviderPass, the in-provider recovery
// pass of `make demo` as hack/passprofile -bench reports it
// (hack/passcurve.sh): medians across rounds.
type passPoint struct {
	N          int
	Runs       int
	Wall       float64 // seconds
	PeakRSSMiB float64
}

const passBench = "ProviderPass"

// passPoints returns the medians of every BenchmarkProviderPass/N=... size
// in s, by ascending N: the pass's wall time (ns/op, one iteration a
// pass) and the restarted provider's peak RSS.
func passPoints(s *benchres.Set) ([]passPoint, error) {
	var pts []passPoint
	for _, name := range s.Order {
		n, ok, err := param(name, passBench, "N")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		p := passPoint{N: n}
		if p.Runs, err = medians(s, name, []metric{{"ns/op", 1e9, &p.Wall}, {"peak-rss-MiB", 1, &p.PeakRSSMiB}}); err != nil {
			return nil, err
		}
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: no Benchmark%s/N=... results (run hack/passcurve.sh)", errNoSeries, passBench)
	}
	slices.SortFunc(pts, func(a, b passPoint) int { return a.N - b.N })
	return pts, nil
}

// metric is one unit of a benchmark's results and the field its median
// goes to, divided by per (1e9 turns ns/op into seconds).
type metric struct {
	unit string
	per  float64
	dst  *float64
}

// medians sets each metric of benchmark name to its median across rounds,
// which must be positive, and returns the most rounds any had.
func medians(s *benchres.Set, name string, ms []metric) (runs int, err error) {
	for _, m := range ms {
		v, n, ok := s.Median(name, m.unit)
		if !ok {
			return 0, fmt.Errorf("%w: %s has no %s samples", errNoSeries, name, m.unit)
		}
		if err := positive(name, m.unit, v); err != nil {
			return 0, err
		}
		*m.dst, runs = v/m.per, max(runs, n)
	}
	return runs, nil
}

// throughputSeries is one journal benchmark's median writes/s by
// concurrency.
type throughputSeries struct {
	Bench  string
	Label  string
	Points []throughputPoint
}

// throughputPoint is the median of one benchmark at one concurrency.
type throughputPoint struct {
	C          int
	Runs       int
	WritesPerS float64
}

// journalBenches are the series of the throughput plot, in legend order.
// The first two are the code under test, the others the plain-bbolt
// anchors; all count durable writes, so they compare per write.
var journalBenches = []struct{ bench, label string }{
	{"Begin", "journal Begin (1 write/op)"},
	{"BeginSettle", "journal Begin+Settle (2 writes/op)"},
	{"PlainUpdate", "anchor: bbolt Update, 1 Put per call"},
	{"BoltBatch", "anchor: bbolt Batch (10 ms max delay)"},
}

const journalUnit = "writes/s"

// journalSeries returns the median writes/s of every journalBenches
// benchmark at each concurrency c found in s, by ascending c. Every series
// must be present.
func journalSeries(s *benchres.Set) ([]throughputSeries, error) {
	var out []throughputSeries
	for _, jb := range journalBenches {
		ts := throughputSeries{Bench: jb.bench, Label: jb.label}
		for _, name := range s.Order {
			c, ok, err := param(name, jb.bench, "c")
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			v, runs, ok := s.Median(name, journalUnit)
			if !ok {
				return nil, fmt.Errorf("%w: %s has no %s samples", errNoSeries, name, journalUnit)
			}
			if err := positive(name, journalUnit, v); err != nil {
				return nil, err
			}
			ts.Points = append(ts.Points, throughputPoint{C: c, Runs: runs, WritesPerS: v})
		}
		if len(ts.Points) == 0 {
			return nil, fmt.Errorf("%w: no Benchmark%s/c=... results with %s (run go test -bench . ./journal)", errNoSeries, jb.bench, journalUnit)
		}
		slices.SortFunc(ts.Points, func(a, b throughputPoint) int { return a.C - b.C })
		out = append(out, ts)
	}
	return out, nil
}

// param reads the integer k of a sub-benchmark named bench/key=k. It
// reports ok false for a name of another benchmark, and an error for
// bench/key= followed by anything but a positive integer.
func param(name, bench, key string) (v int, ok bool, err error) {
	rest, found := strings.CutPrefix(name, bench+"/"+key+"=")
	if !found {
		return 0, false, nil
	}
	v, err = strconv.Atoi(rest)
	if err != nil || v <= 0 {
		return 0, false, fmt.Errorf("benchmark %s: %s=%q is not a positive integer", name, key, rest)
	}
	return v, true, nil
}

// positive rejects a median that cannot go on a log axis.
func positive(name, unit string, v float64) error {
	if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Errorf("benchmark %s: median %s is %v; a log axis needs a positive, finite value", name, unit, v)
	}
	return nil
}
