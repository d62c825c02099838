package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	in := `cpu: AMD EPYC
BenchmarkBegin/c=1-2   400   2000000 ns/op   500.0 ops/s
BenchmarkPlain/c=1-2   400   1000000 ns/op   1000 ops/s
BenchmarkBegin/c=1-2   400   3000000 ns/op   333.3 ops/s
BenchmarkPlain/c=1-2   400   1000000 ns/op   1000 ops/s
BenchmarkBegin/c=1-2   400   2500000 ns/op   400.0 ops/s
BenchmarkPlain/c=1-2   400   2000000 ns/op   500.0 ops/s
PASS
`
	var out bytes.Buffer
	if err := run(strings.NewReader(in), &out, "T", []string{"ns/op", "ops/s"}, ratios{"Begin/c=1:Plain/c=1:ns/op:<= 1.2"}); err != nil {
		t.Fatal(err)
	}
	want := `### T

CPU: AMD EPYC

| benchmark | runs | median ns/op | median ops/s |
|---|---:|---:|---:|
| Begin/c=1 | 3 | 2500000 | 400 |
| Plain/c=1 | 3 | 1000000 | 1000 |

| ratio | unit | median A | median B | A/B | target |
|---|---|---:|---:|---:|---|
| Begin/c=1 / Plain/c=1 | ns/op | 2500000 | 1000000 | 2.50 | <= 1.2 |

`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("run (-want +got):\n%s", diff)
	}
	if err := run(strings.NewReader("PASS\n"), &out, "T", []string{"ns/op"}, nil); err == nil {
		t.Error("no results: want an error")
	}
	if err := run(strings.NewReader(in), &out, "T", []string{"ns/op", "ops/s"}, ratios{"Begin/c=1:Nope:ns/op"}); err == nil {
		t.Error("a ratio over a missing benchmark: want an error")
	}
	out.Reset()
	custom := "BenchmarkRecovery-2  1  17000 ns/op  17.2 wall-s  64.4 peak-rss-MiB\nBenchmarkRecovery-2  1  19000 ns/op  19.0 wall-s  70.0 peak-rss-MiB\n"
	if err := run(strings.NewReader(custom), &out, "R", []string{"wall-s", "peak-rss-MiB"}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| Recovery | 2 | 18.10 | 67.20 |") {
		t.Errorf("custom metrics table:\n%s", out.String())
	}
}
