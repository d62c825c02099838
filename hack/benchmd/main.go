// Command benchmd turns repeated `go test -bench` output into the markdown
// tables of docs/benchmarks.md: the median of every metric per benchmark
// over all runs, and side-by-side ratios of named pairs.
//
//	go test -run '^$' -bench . ./journal | benchmd -title Journal -ratio 'Begin/c=1:PlainUpdate/c=1:ns/op'
//
// A ratio is A:B:unit[:target], the median of A over the median of B in
// unit; unit may be unitA|unitB when the two are reported in different
// units (e.g. wall-s|ideal-s). target is free text shown beside it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/intentjournal/intentjournal/hack/internal/benchres"
)

type ratios []string

func (r *ratios) String() string     { return strings.Join(*r, ",") }
func (r *ratios) Set(s string) error { *r = append(*r, s); return nil }

func main() {
	var rs ratios
	title := flag.String("title", "Benchmarks", "section title")
	metrics := flag.String("metrics", "ns/op,ops/s", "comma-separated units to tabulate, as medians")
	flag.Var(&rs, "ratio", "A:B:unit[:target] prints median(A)/median(B) for unit (or unitA|unitB); repeatable")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *title, strings.Split(*metrics, ","), rs); err != nil {
		fmt.Fprintln(os.Stderr, "benchmd:", err)
		os.Exit(1)
	}
}

// ratio is one parsed -ratio flag.
type ratio struct {
	a, b, unitA, unitB, target string
}

func parseRatio(s string) (ratio, error) {
	p := strings.SplitN(s, ":", 4)
	if len(p) < 3 || p[0] == "" || p[1] == "" || p[2] == "" {
		return ratio{}, fmt.Errorf("ratio %q: want A:B:unit[:target]", s)
	}
	r := ratio{a: p[0], b: p[1], unitA: p[2], unitB: p[2]}
	if ua, ub, ok := strings.Cut(p[2], "|"); ok {
		if ua == "" || ub == "" {
			return ratio{}, fmt.Errorf("ratio %q: want unit or unitA|unitB", s)
		}
		r.unitA, r.unitB = ua, ub
	}
	if len(p) == 4 {
		r.target = p[3]
	}
	return r, nil
}

func (r ratio) unit() string {
	if r.unitA == r.unitB {
		return r.unitA
	}
	return r.unitA + " / " + r.unitB
}

func run(in io.Reader, out io.Writer, title string, units []string, rs ratios) error {
	parsed := make([]ratio, 0, len(rs))
	for _, s := range rs {
		r, err := parseRatio(s)
		if err != nil {
			return err
		}
		parsed = append(parsed, r)
	}
	set, err := benchres.Parse(in)
	if errors.Is(err, benchres.ErrNoResults) {
		return fmt.Errorf("no benchmark results on standard input")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "### %s\n\n", title)
	if set.CPU != "" {
		fmt.Fprintf(out, "CPU: %s\n\n", set.CPU)
	}
	fmt.Fprint(out, "| benchmark | runs |")
	for _, u := range units {
		fmt.Fprintf(out, " median %s |", u)
	}
	fmt.Fprint(out, "\n|---|---:|")
	for range units {
		fmt.Fprint(out, "---:|")
	}
	fmt.Fprintln(out)
	for _, name := range set.Order {
		runs := 0
		for _, u := range units {
			runs = max(runs, len(set.Samples[name][u]))
		}
		fmt.Fprintf(out, "| %s | %d |", name, runs)
		for _, u := range units {
			fmt.Fprintf(out, " %s |", fmtNum(benchres.Median(set.Samples[name][u])))
		}
		fmt.Fprintln(out)
	}
	if len(parsed) > 0 {
		fmt.Fprintln(out, "\n| ratio | unit | median A | median B | A/B | target |")
		fmt.Fprintln(out, "|---|---|---:|---:|---:|---|")
	}
	for _, r := range parsed {
		a, _, okA := set.Median(r.a, r.unitA)
		b, _, okB := set.Median(r.b, r.unitB)
		if !okA || !okB || b == 0 {
			return fmt.Errorf("ratio %s:%s: no samples for %s in %s or for %s in %s", r.a, r.b, r.a, r.unitA, r.b, r.unitB)
		}
		fmt.Fprintf(out, "| %s / %s | %s | %s | %s | %.2f | %s |\n", r.a, r.b, r.unit(), fmtNum(a), fmtNum(b), a/b, r.target)
	}
	fmt.Fprintln(out)
	return nil
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
