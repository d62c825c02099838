// Command benchmd turns repeated `go test -bench` output into the markdown
// tables of docs/benchmarks.md: the median of every metric per benchmark
// over all runs, and side-by-side ratios of named pairs.
//
//	go test -run '^$' -bench . ./journal | benchmd -title Journal -ratio 'Begin/c=1:PlainUpdate/c=1:ns/op'
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type ratios []string

func (r *ratios) String() string     { return strings.Join(*r, ",") }
func (r *ratios) Set(s string) error { *r = append(*r, s); return nil }

func main() {
	var rs ratios
	title := flag.String("title", "Benchmarks", "section title")
	metrics := flag.String("metrics", "ns/op,ops/s", "comma-separated units to tabulate, as medians")
	flag.Var(&rs, "ratio", "A:B:unit[:target] prints median(A)/median(B) for unit; repeatable")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *title, strings.Split(*metrics, ","), rs); err != nil {
		fmt.Fprintln(os.Stderr, "benchmd:", err)
		os.Exit(1)
	}
}

// line matches "BenchmarkName/sub-2   N   v unit   v unit ...".
var line = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func run(in io.Reader, out io.Writer, title string, units []string, rs ratios) error {
	samples := map[string]map[string][]float64{} // bench -> unit -> values
	var order []string
	var cpu string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "cpu: ") {
			cpu = strings.TrimPrefix(l, "cpu: ")
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name, f := m[1], strings.Fields(m[2])
		if samples[name] == nil {
			samples[name] = map[string][]float64{}
			order = append(order, name)
		}
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return fmt.Errorf("benchmark %s: value %q: %w", name, f[i], err)
			}
			samples[name][f[i+1]] = append(samples[name][f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(order) == 0 {
		return fmt.Errorf("no benchmark results on standard input")
	}
	fmt.Fprintf(out, "### %s\n\n", title)
	if cpu != "" {
		fmt.Fprintf(out, "CPU: %s\n\n", cpu)
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
	for _, name := range order {
		s := samples[name]
		fmt.Fprintf(out, "| %s | %d |", name, len(s[units[0]]))
		for _, u := range units {
			fmt.Fprintf(out, " %s |", fmtNum(median(s[u])))
		}
		fmt.Fprintln(out)
	}
	if len(rs) > 0 {
		fmt.Fprintln(out, "\n| ratio | unit | median A | median B | A/B | target |")
		fmt.Fprintln(out, "|---|---|---:|---:|---:|---|")
	}
	for _, r := range rs {
		p := strings.Split(r, ":")
		if len(p) < 3 {
			return fmt.Errorf("ratio %q: want A:B:unit[:target]", r)
		}
		a, b := median(samples[p[0]][p[2]]), median(samples[p[1]][p[2]])
		if a == 0 || b == 0 {
			return fmt.Errorf("ratio %q: no samples for %s or %s in %s", r, p[0], p[1], p[2])
		}
		target := ""
		if len(p) > 3 {
			target = p[3]
		}
		fmt.Fprintf(out, "| %s / %s | %s | %s | %s | %.2f | %s |\n", p[0], p[1], p[2], fmtNum(a), fmtNum(b), a/b, target)
	}
	fmt.Fprintln(out)
	return nil
}

func median(v []float64) float64 {
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
