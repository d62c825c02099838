package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGrowthLines(t *testing.T) {
	cases := map[string]struct {
		reason string
		pts    []passPoint
		want   []string
	}{
		"Curve": {
			reason: "Each pair of consecutive sizes: the ratio of N, of the value, and the second over the first.",
			pts: []passPoint{
				{N: 200, Wall: 2.5, PeakRSSMiB: 100},
				{N: 1000, Wall: 10.25, PeakRSSMiB: 150},
				{N: 4000, Wall: 41, PeakRSSMiB: 420},
				{N: 10000, Wall: 123, PeakRSSMiB: 1050},
			},
			want: []string{
				"pass wall: N 200->1000 x5.0 in N, x4.1 in time (0.82 of linear); 1000->4000 x4.0 in N, x4.0 in time (1.00 of linear); 4000->10000 x2.5 in N, x3.0 in time (1.20 of linear)",
				"peak RSS: N 200->1000 x5.0 in N, x1.5 in RSS (0.30 of linear); 1000->4000 x4.0 in N, x2.8 in RSS (0.70 of linear); 4000->10000 x2.5 in N, x2.5 in RSS (1.00 of linear)",
			},
		},
		"OneSize": {
			reason: "One size has nothing to compare with.",
			pts:    []passPoint{{N: 200, Wall: 2.5, PeakRSSMiB: 100}},
			want: []string{
				"pass wall: one size (N=200), no growth to state",
				"peak RSS: one size (N=200), no growth to state",
			},
		},
		"None": {
			reason: "No sizes, no panic.",
			want:   []string{"pass wall: no sizes", "peak RSS: no sizes"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, growthLines(tc.pts)); diff != "" {
				t.Errorf("%s\ngrowthLines: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
