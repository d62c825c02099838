package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		want   procCPU
		wantOK bool
	}{
		{
			name:   "APIServer",
			in:     "9549 (kube-apiserver) S 9500 9549 9500 0 -1 4194560 523 0 0 0 7267 412 0 0 20 0 14 0 1000 0 0",
			want:   procCPU{comm: "kube-apiserver", secs: 76.79},
			wantOK: true,
		},
		{
			name:   "CommandWithSpacesAndParens",
			in:     "42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0",
			want:   procCPU{comm: "a (b) c", secs: 2},
			wantOK: true,
		},
		{name: "Truncated", in: "42 (x) R 1 2 3"},
		{name: "NoCommand", in: "42 x R"},
		{name: "NotANumber", in: "42 (x) R 1 42 42 0 -1 0 0 0 0 0 u s 0 0 20 0"},
		{name: "Empty", in: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseStat(tc.in)
			if ok != tc.wantOK {
				t.Fatalf("parseStat(%q) ok = %t, want %t", tc.in, ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(procCPU{})); diff != "" {
				t.Errorf("parseStat (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("9549 (kube-apiserver) S 9500 9549 9500 0 -1 4194560 523 0 0 0 7267 412 0 0 20 0")
	f.Add("1 ()) ( 0")
	f.Add(")(")
	f.Fuzz(func(t *testing.T, s string) {
		// Never a panic; a command it reads is the text between parentheses.
		if p, ok := parseStat(s); ok && !strings.Contains(s, "("+p.comm+")") {
			t.Errorf("parseStat(%q) read command %q", s, p.comm)
		}
	})
}

// TestWaitLine: the nth matching line, read as the log grows, a line
// split across two writes included.
func TestWaitLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "provider.log")
	if err := os.WriteFile(path, []byte("{\"msg\":\"pass\",\"n\":1}\n{\"msg\":\"other\"}\n{\"msg\":\"pa"), 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.WriteString("ss\",\"n\":2}\n")
		_ = f.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := waitLine(ctx, path, `"msg":"pass"`, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"msg":"pass","n":2}`; got != want {
		t.Errorf("waitLine = %q, want %q", got, want)
	}
}

func TestTotalLine(t *testing.T) {
	scrape := func(counts map[string]float64) apiScrape { return apiScrape{counts: counts} }
	cases := map[string]struct {
		reason   string
		a, b     apiScrape
		resolved int
		want     string
	}{
		"GetAndPatchPerIntent": {
			reason: "Every verb and resource counts, a non-resource GET too; WATCH and etcd do not.",
			a: scrape(map[string]float64{
				"api GET recordsets": 100, "api PATCH recordsets": 100, "api WATCH recordsets": 5, "etcd get": 1000,
			}),
			b: scrape(map[string]float64{
				"api GET recordsets": 600, "api PATCH recordsets": 600, "api GET networks": 500,
				"api PATCH networks": 500, "api POST events": 20, "api GET ": 2,
				"api WATCH recordsets": 8, "api WATCHLIST networks": 1, "etcd get": 9000,
			}),
			resolved: 2000,
			want:     "API requests over the pass: 2022, 1.01 per resolved intent (WATCH excluded: the API server counts a watch when it ends; 4 ended in the pass)",
		},
		"CounterReset": {
			reason:   "A counter that went down (the API server restarted) adds nothing.",
			a:        scrape(map[string]float64{"api GET recordsets": 600, "api PATCH recordsets": 10}),
			b:        scrape(map[string]float64{"api GET recordsets": 5, "api PATCH recordsets": 30}),
			resolved: 20,
			want:     "API requests over the pass: 20, 1.00 per resolved intent (WATCH excluded: the API server counts a watch when it ends; 0 ended in the pass)",
		},
		"NothingResolved": {
			reason:   "No intent: per one, not a division by zero.",
			a:        scrape(map[string]float64{}),
			b:        scrape(map[string]float64{"api LIST recordsets": 3}),
			resolved: 0,
			want:     "API requests over the pass: 3, 3.00 per resolved intent (WATCH excluded: the API server counts a watch when it ends; 0 ended in the pass)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req, watch := apiTotal(tc.a, tc.b)
			if diff := cmp.Diff(tc.want, totalLine(req, watch, tc.resolved)); diff != "" {
				t.Errorf("%s\ntotalLine(apiTotal): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	cases := map[string]struct {
		reason  string
		o       options
		wantErr string
	}{
		"BadBench": {reason: "A bench name that would not parse back fails before any wait.", o: options{pass: 2, bench: "Provider Pass"}, wantErr: "no spaces"},
		"NoPass":   {reason: "Pass 0 does not exist.", o: options{pass: 0}, wantErr: "-pass must be at least 1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			err := run(ctx, tc.o, &strings.Builder{})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s\nrun: error %v, want one containing %q", tc.reason, err, tc.wantErr)
			}
		})
	}
}
