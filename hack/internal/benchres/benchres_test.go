package benchres

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    *Set
		wantErr string // substring; "" means no error
		is      error
	}{
		"Rounds": {
			reason: "Samples of a benchmark accumulate in input order; the -N suffix is dropped; other lines are skipped.",
			in: `goos: linux
goarch: amd64
pkg: github.com/intentjournal/intentjournal/journal
cpu: AMD EPYC
BenchmarkBegin/c=1-2         	    2883	    416564 ns/op	      2401 ops/s	      2401 writes/s
BenchmarkFsync4K-2           	    8400	    141672 ns/op	      7064 ops/s
PASS
ok  	github.com/intentjournal/intentjournal/journal	41.2s
BenchmarkBegin/c=1-2         	    2001	    500000 ns/op	      2000 ops/s	      2000 writes/s
`,
			want: &Set{
				CPU:   "AMD EPYC",
				Order: []string{"Begin/c=1", "Fsync4K"},
				Samples: map[string]map[string][]float64{
					"Begin/c=1": {"ns/op": {416564, 500000}, "ops/s": {2401, 2000}, "writes/s": {2401, 2000}},
					"Fsync4K":   {"ns/op": {141672}, "ops/s": {7064}},
				},
			},
		},
		"CustomUnitsAndLogs": {
			reason: "Custom units with parentheses and decimals parse; --- BENCH and log lines are skipped.",
			in: `BenchmarkRecoveryScale/N=1000-2         	       1	8625994391 ns/op	         5.451 api-write-s	         0.6250 ideal-s	       8.626 wall-s	         1.420 x-(ideal+api)
--- BENCH: BenchmarkRecoveryScale/N=1000-2
    bench_scale_test.go:54: created 1000 managed resources (1000 in all) in 2.328s
`,
			want: &Set{
				Order: []string{"RecoveryScale/N=1000"},
				Samples: map[string]map[string][]float64{
					"RecoveryScale/N=1000": {"ns/op": {8625994391}, "api-write-s": {5.451}, "ideal-s": {0.625}, "wall-s": {8.626}, "x-(ideal+api)": {1.42}},
				},
			},
		},
		"NoGOMAXPROCSSuffix": {
			reason: "With GOMAXPROCS=1 go test prints no suffix.",
			in:     "BenchmarkX 10 5 ns/op\n",
			want: &Set{
				Order:   []string{"X"},
				Samples: map[string]map[string][]float64{"X": {"ns/op": {5}}},
			},
		},
		"Empty": {
			reason: "Input without a result line is an error, not an empty table.",
			in:     "PASS\nok  \tpkg\t0.1s\n",
			is:     ErrNoResults,
		},
		"HeaderOnly": {
			reason: "A benchmark that printed its name and failed before its results leaves no sample.",
			in:     "BenchmarkX-2   \t\n--- FAIL: BenchmarkX-2\n",
			is:     ErrNoResults,
		},
		"BadValue": {
			reason:  "A value that is not a number names the line, the benchmark and the unit.",
			in:      "BenchmarkX-2 1 5 ns/op\nBenchmarkX-2 1 fast ns/op\n",
			wantErr: `line 2: benchmark X: value "fast" for ns/op`,
		},
		"OddFields": {
			reason:  "A value without a unit is an error: pairs would shift.",
			in:      "BenchmarkX-2 1 5 ns/op 7\n",
			wantErr: "line 1: benchmark X: want value/unit pairs",
		},
		"NoValues": {
			reason:  "An iteration count with nothing after it is an error.",
			in:      "BenchmarkX-2 1\n",
			wantErr: "line 1: benchmark X: want value/unit pairs",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tc.in))
			switch {
			case tc.is != nil:
				if !errors.Is(err, tc.is) {
					t.Fatalf("%s\nParse(...): error %v, want %v", tc.reason, err, tc.is)
				}
				return
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nParse(...): error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("%s\nParse(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nParse(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     []float64
		want   float64
	}{
		"Empty": {reason: "No samples have median 0.", in: nil, want: 0},
		"Odd":   {reason: "The middle value, whatever the input order.", in: []float64{3, 1, 2}, want: 2},
		"Even":  {reason: "The mean of the two middle values.", in: []float64{4, 1, 3, 2}, want: 2.5},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := append([]float64(nil), tc.in...)
			if diff := cmp.Diff(tc.want, Median(tc.in)); diff != "" {
				t.Errorf("%s\nMedian(%v): -want, +got:\n%s", tc.reason, tc.in, diff)
			}
			if diff := cmp.Diff(in, tc.in); diff != "" {
				t.Errorf("Median changed its input: -before, +after:\n%s", diff)
			}
		})
	}
}
