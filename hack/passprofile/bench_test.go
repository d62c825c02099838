package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/hack/internal/benchres"
)

func TestBenchLine(t *testing.T) {
	cases := map[string]struct {
		reason string
		name   string
		r      passResult
		want   string
	}{
		"Pass": {
			reason: "docs/recovery-at-scale.md's last step: 7,259 intents in 40.9 s.",
			name:   "ProviderPass/N=4000",
			r:      passResult{resolved: 7259, wall: 40.9, peakRSSMiB: 412.5, requests: 7404},
			want:   "BenchmarkProviderPass/N=4000 \t1\t40900000000 ns/op\t177.5 intents/s\t7259 intents\t412.5 peak-rss-MiB\t1.02 reqs/intent",
		},
		"NothingResolved": {
			reason: "A pass with nothing to resolve divides by one, not zero.",
			name:   "ProviderPass/N=200",
			r:      passResult{wall: 0.002, peakRSSMiB: 80, requests: 3},
			want:   "BenchmarkProviderPass/N=200 \t1\t2000000 ns/op\t0.0 intents/s\t0 intents\t80.0 peak-rss-MiB\t3.00 reqs/intent",
		},
		"ZeroWall": {
			reason: "A zero wall gives a zero rate, not +Inf.",
			name:   "ProviderPass/N=200",
			r:      passResult{resolved: 5, peakRSSMiB: 80, requests: 10},
			want:   "BenchmarkProviderPass/N=200 \t1\t0 ns/op\t0.0 intents/s\t5 intents\t80.0 peak-rss-MiB\t2.00 reqs/intent",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, benchLine(tc.name, tc.r)); diff != "" {
				t.Errorf("%s\nbenchLine: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestBenchLineRoundTrip: the lines of several runs, concatenated with
// the rest of passprofile's output, are an input benchres reads, with
// every unit benchplot -pass needs.
func TestBenchLineRoundTrip(t *testing.T) {
	in := strings.Join([]string{
		"run directory /tmp/intentjournal-demo-v2-wrapped-1",
		benchLine("ProviderPass/N=200", passResult{resolved: 370, wall: 2.5, peakRSSMiB: 96.25, requests: 380}),
		"provider peak RSS: 96.2 MiB (VmHWM, pid 4)",
		benchLine("ProviderPass/N=4000", passResult{resolved: 7259, wall: 40.9, peakRSSMiB: 412.5, requests: 7404}),
		benchLine("ProviderPass/N=200", passResult{resolved: 372, wall: 3, peakRSSMiB: 97, requests: 390}),
	}, "\n") + "\n"
	got, err := benchres.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatalf("benchres.Parse: %v", err)
	}
	want := &benchres.Set{
		Order: []string{"ProviderPass/N=200", "ProviderPass/N=4000"},
		Samples: map[string]map[string][]float64{
			"ProviderPass/N=200": {
				"ns/op": {2.5e9, 3e9}, "intents/s": {148, 124}, "intents": {370, 372},
				"peak-rss-MiB": {96.2, 97}, "reqs/intent": {1.03, 1.05},
			},
			"ProviderPass/N=4000": {
				"ns/op": {40.9e9}, "intents/s": {177.5}, "intents": {7259},
				"peak-rss-MiB": {412.5}, "reqs/intent": {1.02},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("benchres.Parse(bench lines): -want, +got:\n%s", diff)
	}
}

func TestValidBenchName(t *testing.T) {
	cases := map[string]struct {
		reason  string
		name    string
		wantErr string
	}{
		"None":          {reason: "No -bench, no line.", name: ""},
		"SubBenchmark":  {reason: "The name passcurve.sh gives.", name: "ProviderPass/N=4000"},
		"Space":         {reason: "A space would end the name early.", name: "Provider Pass", wantErr: "no spaces"},
		"Prefixed":      {reason: "benchLine adds the prefix.", name: "BenchmarkProviderPass/N=1", wantErr: "without its Benchmark prefix"},
		"ProcsSuffix":   {reason: "benchres would drop -4 as GOMAXPROCS.", name: "ProviderPass/N=1-4", wantErr: "GOMAXPROCS"},
		"DigitsNoDash":  {reason: "Digits without a dash are part of the name.", name: "ProviderPass2"},
		"DashNotDigits": {reason: "A dash before letters is part of the name.", name: "ProviderPass/v2-generated"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := validBenchName(tc.name)
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("%s\nvalidBenchName(%q): %v", tc.reason, tc.name, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s\nvalidBenchName(%q): error %v, want one containing %q", tc.reason, tc.name, err, tc.wantErr)
			}
		})
	}
}
