package demo

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSetDefaults checks the defaults a run derives from the line and
// its size. The v2 figures at 4,000 per kind are those docs/demo.md
// recorded (create latency 6m40s, gave up after 26m40s).
func TestSetDefaults(t *testing.T) {
	type derived struct {
		CreateLatency, ConvergeTimeout time.Duration
		PageSize                       int
	}
	line := func(n LineName) Line {
		l, err := LineFor(n)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	cases := map[string]struct {
		reason string
		o      Options
		want   derived
	}{
		"V2": {reason: "400 MRs at 20 a second: 20 s; no page size off the Cloud DNS line.",
			o: Options{Line: line(LineV2), PerKind: 200}, want: derived{CreateLatency: 20 * time.Second, ConvergeTimeout: 3 * time.Minute}},
		"V2At4000": {reason: "The public report's size on the v2 line, as docs/demo.md recorded it.",
			o: Options{Line: line(LineV2), PerKind: 4000}, want: derived{CreateLatency: 6*time.Minute + 40*time.Second, ConvergeTimeout: 26*time.Minute + 40*time.Second}},
		"GCPDNS": {reason: "200 RecordSets at 8 a second: 25 s; pages of 10 (200/20).",
			o: Options{Line: line(LineGCPDNS), PerKind: 200}, want: derived{CreateLatency: 25 * time.Second, ConvergeTimeout: 3 * time.Minute, PageSize: 10}},
		"GCPDNSSmall": {reason: "40 RecordSets, the e2e test's size: its 20 s at least, pages of 10 at least.",
			o: Options{Line: line(LineGCPDNS), PerKind: 40}, want: derived{CreateLatency: 20 * time.Second, ConvergeTimeout: 3 * time.Minute, PageSize: 10}},
		"GCPDNSAt4000": {reason: "4,000 RecordSets, one kind: 500 s to dispatch at 8 a second, cut to 100 s, under terraform-provider-google's 120 s request timeout; 1,600 s to converge at 400 ms each, pages of 200.",
			o: Options{Line: line(LineGCPDNS), PerKind: 4000}, want: derived{CreateLatency: 100 * time.Second, ConvergeTimeout: 1600 * time.Second, PageSize: 200}},
		"GCPDNSAt800": {reason: "800 RecordSets: 100 s at 8 a second, the longest automatic latency; 320 s to converge.",
			o: Options{Line: line(LineGCPDNS), PerKind: 800}, want: derived{CreateLatency: 100 * time.Second, ConvergeTimeout: 320 * time.Second, PageSize: 40}},
		"GCPDNSGiven": {reason: "What the caller set stays.",
			o:    Options{Line: line(LineGCPDNS), PerKind: 200, PageSize: 7, CreateLatency: time.Minute, ConvergeTimeout: time.Hour},
			want: derived{CreateLatency: time.Minute, ConvergeTimeout: time.Hour, PageSize: 7}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.o
			o.setDefaults()
			got := derived{CreateLatency: o.CreateLatency, ConvergeTimeout: o.ConvergeTimeout, PageSize: o.PageSize}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nsetDefaults(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestModeRowName(t *testing.T) {
	want := []string{"unwrapped", "wrapped (--journal)", "wrapped, no kill", "unwrapped, no kill"}
	var got []string
	for _, m := range DefaultModes {
		got = append(got, m.RowName())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RowName() of DefaultModes: -want, +got:\n%s", diff)
	}
}
