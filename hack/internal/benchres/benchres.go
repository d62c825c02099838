// Package benchres reads the output of repeated `go test -bench` runs into
// samples per benchmark and unit, for the tools that turn it into
// docs/benchmarks.md (benchmd) and its plots (benchplot).
//
// A result line is
//
//	BenchmarkName/sub-2   <iterations>   <value> <unit>   <value> <unit> ...
//
// where the -2 suffix (GOMAXPROCS) is dropped from the name. Every other
// line (goos:, pkg:, PASS, ok, --- BENCH:, log lines) is skipped, except
// "cpu: ...", which is kept. A result line that cannot be read is an error
// naming its line number, never skipped: a silently dropped sample would
// shift a median.
package benchres

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrNoResults is returned by Parse when the input holds no result line.
var ErrNoResults = errors.New("benchres: no benchmark results")

// Set is the samples of every benchmark in one input.
type Set struct {
	// CPU is the value of the last "cpu:" line, if any.
	CPU string
	// Order lists the benchmark names in order of first appearance.
	Order []string
	// Samples holds every value, by benchmark name and unit, in input order.
	Samples map[string]map[string][]float64
}

// head matches "BenchmarkName-2" followed by the iteration count; the rest
// of the line is the value/unit pairs.
var head = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+(\d+)(?:\s+(.*))?$`)

// Parse reads go test -bench output from r. It fails with ErrNoResults when
// r holds no result line.
func Parse(r io.Reader) (*Set, error) {
	s := &Set{Samples: map[string]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimRight(sc.Text(), " \t\r")
		if c, ok := strings.CutPrefix(l, "cpu: "); ok {
			s.CPU = strings.TrimSpace(c)
			continue
		}
		m := head.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name, f := m[1], strings.Fields(m[3])
		if len(f) == 0 || len(f)%2 != 0 {
			return nil, fmt.Errorf("benchres: line %d: benchmark %s: want value/unit pairs after the iteration count, got %q", n, name, m[3])
		}
		if s.Samples[name] == nil {
			s.Samples[name] = map[string][]float64{}
			s.Order = append(s.Order, name)
		}
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("benchres: line %d: benchmark %s: value %q for %s: %w", n, name, f[i], f[i+1], err)
			}
			s.Samples[name][f[i+1]] = append(s.Samples[name][f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("benchres: cannot read benchmark output: %w", err)
	}
	if len(s.Order) == 0 {
		return nil, ErrNoResults
	}
	return s, nil
}

// Median returns the median of bench's samples in unit and how many there
// are; ok is false when there are none.
func (s *Set) Median(bench, unit string) (median float64, n int, ok bool) {
	v := s.Samples[bench][unit]
	if len(v) == 0 {
		return 0, 0, false
	}
	return Median(v), len(v), true
}

// Median returns the median of v, or 0 for an empty v.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
