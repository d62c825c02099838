package demo

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCost(t *testing.T) {
	c := Cost{
		PerKind: 200, CPU: 6 * time.Second, PeakRSS: 80 << 20,
		Requests: map[string]int64{"GET": 400, "LIST": 8, "WATCH": 4, "CREATE": 40, "UPDATE": 800, "PATCH": 400, "APPLY": 2, "DELETE": 1, "DELETECOLLECTION": 1},
	}
	type figures struct {
		Creates                    int
		CPUPerCreate               time.Duration
		AllRequests, Writes        int64
		GETPerCreate, AllPerCreate float64
		WritesPerCreate            float64
		NonePerCreate              float64
	}
	figuresOf := func(c Cost) figures {
		return figures{
			Creates: c.Creates(), CPUPerCreate: c.CPUPerCreate(), AllRequests: c.AllRequests(), Writes: c.Writes(),
			GETPerCreate: c.RequestsPerCreate("GET"), AllPerCreate: c.AllRequestsPerCreate(), WritesPerCreate: c.WritesPerCreate(),
			NonePerCreate: c.RequestsPerCreate("CONNECT"),
		}
	}
	cases := map[string]struct {
		reason string
		c      Cost
		want   figures
	}{
		"Run": {
			reason: "400 MRs; writes are CREATE, UPDATE, PATCH, APPLY, DELETE and DELETECOLLECTION; every verb counts in the total, WATCH too.",
			c:      c,
			want: figures{Creates: 400, CPUPerCreate: 15 * time.Millisecond, AllRequests: 1656, Writes: 1244,
				GETPerCreate: 1, AllPerCreate: 4.14, WritesPerCreate: 3.11},
		},
		"NoCreate": {
			reason: "No MR: no figure per create, and no division by zero.",
			c:      Cost{CPU: time.Second, Requests: map[string]int64{"GET": 1}},
			want:   figures{AllRequests: 1},
		},
		"Zero": {reason: "The zero Cost.", want: figures{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, figuresOf(tc.c)); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCostRatios(t *testing.T) {
	run := func(converged bool, d time.Duration, c *Cost) Result {
		return Result{PerKind: 200, Converged: converged, ConvergeTime: d, Cost: c}
	}
	unwrapped := &Cost{PerKind: 200, CPU: 4 * time.Second, PeakRSS: 100 << 20, Requests: map[string]int64{"GET": 600, "UPDATE": 800, "PATCH": 400}}
	wrapped := &Cost{PerKind: 200, CPU: 5 * time.Second, PeakRSS: 110 << 20, Requests: map[string]int64{"GET": 1000, "UPDATE": 800, "PATCH": 400}}
	cases := map[string]struct {
		reason             string
		wrapped, unwrapped Result
		want               CostRatio
		wantOK             bool
	}{
		"Both": {
			reason:    "Each figure of the wrapped run over the unwrapped one's.",
			wrapped:   run(true, 21*time.Second, wrapped),
			unwrapped: run(true, 20*time.Second, unwrapped),
			want:      CostRatio{ConvergeTime: 1.05, CPUPerCreate: 1.25, PeakRSS: 1.1, RequestsPerCreate: 2200.0 / 1800.0, WritesPerCreate: 1},
			wantOK:    true,
		},
		"WrappedNotConverged": {
			reason:  "A run that gave up has no cost to compare.",
			wrapped: run(false, time.Minute, wrapped), unwrapped: run(true, 20*time.Second, unwrapped),
		},
		"UnwrappedNotConverged": {
			reason:  "Nor has a baseline that gave up.",
			wrapped: run(true, 21*time.Second, wrapped), unwrapped: run(false, time.Minute, unwrapped),
		},
		"NoCost": {
			reason:  "A run with a kill has no Cost.",
			wrapped: run(true, 21*time.Second, wrapped), unwrapped: run(true, 20*time.Second, nil),
		},
		"NoWrites": {
			reason:  "A baseline with no write gives no ratio of writes: no ratio at all.",
			wrapped: run(true, 21*time.Second, wrapped), unwrapped: run(true, 20*time.Second, &Cost{PerKind: 200, CPU: time.Second, PeakRSS: 1, Requests: map[string]int64{"GET": 1}}),
		},
		"NoBaseline": {
			reason:  "The zero Result.",
			wrapped: run(true, 21*time.Second, wrapped),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := CostRatios(tc.wrapped, tc.unwrapped)
			if diff := cmp.Diff([]any{tc.want, tc.wantOK}, []any{got, ok}); diff != "" {
				t.Errorf("%s\nCostRatios() -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
