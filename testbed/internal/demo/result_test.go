package demo

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRatio(t *testing.T) {
	conv := func(d time.Duration) Result { return Result{Converged: true, ConvergeTime: d} }
	cases := map[string]struct {
		reason    string
		r, base   Result
		want      float64
		wantValid bool
	}{
		"Slower":           {reason: "37 s after the kill against 28 s with none.", r: conv(37 * time.Second), base: conv(28 * time.Second), want: 37.0 / 28.0, wantValid: true},
		"Faster":           {reason: "A ratio under 1 is a ratio too.", r: conv(10 * time.Second), base: conv(20 * time.Second), want: 0.5, wantValid: true},
		"RunNotConverged":  {reason: "A run that gave up has no time to compare.", r: Result{ConvergeTime: time.Minute}, base: conv(time.Second)},
		"BaseNotConverged": {reason: "Nor has a baseline that gave up.", r: conv(time.Second), base: Result{ConvergeTime: time.Minute}},
		"NoBase":           {reason: "No no-kill run: the zero Result.", r: conv(time.Second)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := tc.r.Ratio(tc.base)
			if diff := cmp.Diff([]any{tc.want, tc.wantValid}, []any{got, ok}); diff != "" {
				t.Errorf("%s\nRatio() -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	cases := map[string]struct {
		reason  string
		want    Mode
		wantErr bool
	}{
		"unwrapped":         {reason: "The upjet provider as generated.", want: ModeUnwrapped},
		"wrapped":           {reason: "With --journal, killed.", want: ModeWrapped},
		"no-kill":           {reason: "With --journal, never killed.", want: ModeNoKill},
		"unwrapped-no-kill": {reason: "Without --journal, never killed.", want: ModeUnwrappedNoKill},
		"nokill":            {reason: "Names are exact.", wantErr: true},
		"":                  {reason: "Empty is no run.", wantErr: true},
	}
	for s, tc := range cases {
		t.Run(s, func(t *testing.T) {
			got, err := ParseMode(s)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("%s\nParseMode(%q) = %q, %v; want %q, error %v", tc.reason, s, got, err, tc.want, tc.wantErr)
			}
		})
	}
	type kind struct{ Kills, Wrapped bool }
	want := map[Mode]kind{
		ModeUnwrapped:       {Kills: true},
		ModeWrapped:         {Kills: true, Wrapped: true},
		ModeNoKill:          {Wrapped: true},
		ModeUnwrappedNoKill: {},
	}
	got := map[Mode]kind{}
	for _, m := range DefaultModes {
		got[m] = kind{Kills: m.Kills(), Wrapped: m.Wrapped()}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kills() and Wrapped() of DefaultModes -want +got:\n%s", diff)
	}
}
