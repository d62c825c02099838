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

func TestRatios(t *testing.T) {
	in := `BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 8 wall-s 0.625 ideal-s
BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 6 wall-s 0.625 ideal-s
BenchmarkImport/Batched-2 1 1 ns/op 12 s/1000-intents
BenchmarkImport/Single-2 1 1 ns/op 1104 s/1000-intents-extrapolated 100 singles-timed
`
	cases := map[string]struct {
		reason  string
		ratio   string
		want    string // the ratio's table row
		wantErr string
	}{
		"UnitPair": {
			reason: "unitA|unitB divides medians reported in different units.",
			ratio:  "RecoveryScale/N=1000:RecoveryScale/N=1000:wall-s|ideal-s:",
			want:   "| RecoveryScale/N=1000 / RecoveryScale/N=1000 | wall-s / ideal-s | 7.00 | 0.62 | 11.20 |  |",
		},
		"UnitPairAcrossBenchmarks": {
			reason: "The Terraform ratio compares two sub-benchmarks' own units.",
			ratio:  "Import/Single:Import/Batched:s/1000-intents-extrapolated|s/1000-intents:>= 20",
			want:   "| Import/Single / Import/Batched | s/1000-intents-extrapolated / s/1000-intents | 1104 | 12.00 | 92.00 | >= 20 |",
		},
		"TargetWithColon": {
			reason: "Everything after the third colon is the target, colons included.",
			ratio:  "Import/Single:Import/Batched:s/1000-intents-extrapolated|s/1000-intents:linear: 100",
			want:   "| 92.00 | linear: 100 |",
		},
		"TooFewFields": {
			reason:  "A ratio needs A, B and a unit.",
			ratio:   "Import/Single:Import/Batched",
			wantErr: "want A:B:unit[:target]",
		},
		"HalfAUnitPair": {
			reason:  "unitA| without unitB is an error.",
			ratio:   "Import/Single:Import/Batched:s/1000-intents|:",
			wantErr: "want unit or unitA|unitB",
		},
		"MissingUnit": {
			reason:  "A unit the benchmark does not report is an error, not a 0 or Inf ratio.",
			ratio:   "Import/Single:Import/Batched:s/1000-intents:",
			wantErr: "no samples for Import/Single in s/1000-intents",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(strings.NewReader(in), &out, "T", []string{"wall-s"}, ratios{tc.ratio})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nrun: error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nrun: %v", tc.reason, err)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("%s\nrun: no row containing\n%s\nin\n%s", tc.reason, tc.want, out.String())
			}
		})
	}
}
