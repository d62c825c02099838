package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/intentjournal/intentjournal/hack/internal/benchres"
	"github.com/intentjournal/intentjournal/internal/golden"
)

// The inputs under testdata/:
//   - journal.txt is one real round of go test -bench . ./journal (make bench);
//   - scale.txt has the shape BenchmarkRecoveryScale prints, over three
//     rounds, with figures chosen so that the medians can be checked by
//     hand (N=1000: wall 8.626, 7 and 9 s, median 8.626);
//   - pass.txt has the shape hack/passcurve.sh writes (hack/passprofile
//     -bench lines), three rounds at N=200 and 1000, two at 4000 and one
//     at 10000, with figures chosen so that the medians can be checked by
//     hand (N=4000: wall 40.9 and 42.3 s, median 41.6; RSS 412.5 and
//     420.5 MiB, median 416.5).

func mustParse(t *testing.T, in string) *benchres.Set {
	t.Helper()
	s, err := benchres.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatalf("benchres.Parse: %v", err)
	}
	return s
}

func TestRecoveryPoints(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    []recoveryPoint
		wantErr string
	}{
		"MediansByAscendingN": {
			reason: "Each size gets the median of each unit across rounds; sizes are sorted by N, not by input order.",
			in: `BenchmarkRecoveryScale/N=4000-2 1 1 ns/op 12 wall-s 2.5 ideal-s 9 api-write-s
BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 8 wall-s 0.625 ideal-s 5 api-write-s
BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 6 wall-s 0.625 ideal-s 4 api-write-s
BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 7 wall-s 0.625 ideal-s 6 api-write-s
BenchmarkRecovery4000-2 1 1 ns/op 11 wall-s 2.5 ideal-s 9 api-write-s
`,
			want: []recoveryPoint{
				{N: 1000, Runs: 3, Wall: 7, Ideal: 0.625, APIWrite: 5},
				{N: 4000, Runs: 1, Wall: 12, Ideal: 2.5, APIWrite: 9},
			},
		},
		"NoScaleResults": {
			reason:  "Other recovery benchmarks alone cannot make the plot.",
			in:      "BenchmarkRecovery4000-2 1 1 ns/op 11 wall-s\n",
			wantErr: "no BenchmarkRecoveryScale/N=... results",
		},
		"MissingUnit": {
			reason:  "A size without api-write-s cannot give ideal+api.",
			in:      "BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 8 wall-s 0.625 ideal-s\n",
			wantErr: "RecoveryScale/N=1000 has no api-write-s samples",
		},
		"BadN": {
			reason:  "N must be a positive integer.",
			in:      "BenchmarkRecoveryScale/N=1k-2 1 1 ns/op 8 wall-s 0.625 ideal-s 5 api-write-s\n",
			wantErr: `N="1k" is not a positive integer`,
		},
		"ZeroWall": {
			reason:  "A zero median cannot go on a log axis.",
			in:      "BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 0 wall-s 0.625 ideal-s 5 api-write-s\n",
			wantErr: "median wall-s is 0",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := recoveryPoints(mustParse(t, tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nrecoveryPoints: error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nrecoveryPoints: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nrecoveryPoints: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestJournalSeries(t *testing.T) {
	all := func(c string, begin, settle, plain, batch string) string {
		return "BenchmarkBegin/c=" + c + "-2 1 1 ns/op " + begin + " writes/s\n" +
			"BenchmarkBeginSettle/c=" + c + "-2 1 1 ns/op " + settle + " writes/s\n" +
			"BenchmarkPlainUpdate/c=" + c + "-2 1 1 ns/op " + plain + " writes/s\n" +
			"BenchmarkPlainUpdate2/c=" + c + "-2 1 1 ns/op 1 writes/s\n" +
			"BenchmarkBoltBatch/c=" + c + "-2 1 1 ns/op " + batch + " writes/s\n"
	}
	cases := map[string]struct {
		reason  string
		in      string
		want    []throughputSeries
		wantErr string
	}{
		"MediansByAscendingC": {
			reason: "Four series in legend order, each by ascending c, medians across rounds; PlainUpdate2 and Fsync4K are not plotted.",
			in: all("64", "40000", "36000", "2200", "5400") + all("1", "2400", "2600", "2500", "89") +
				all("1", "2000", "2000", "2000", "90") + all("1", "2200", "2200", "2400", "91") +
				"BenchmarkFsync4K-2 1 1 ns/op 7000 ops/s\n",
			want: []throughputSeries{
				{Bench: "Begin", Label: "journal Begin (1 write/op)", Points: []throughputPoint{{C: 1, Runs: 3, WritesPerS: 2200}, {C: 64, Runs: 1, WritesPerS: 40000}}},
				{Bench: "BeginSettle", Label: "journal Begin+Settle (2 writes/op)", Points: []throughputPoint{{C: 1, Runs: 3, WritesPerS: 2200}, {C: 64, Runs: 1, WritesPerS: 36000}}},
				{Bench: "PlainUpdate", Label: "anchor: bbolt Update, 1 Put per call", Points: []throughputPoint{{C: 1, Runs: 3, WritesPerS: 2400}, {C: 64, Runs: 1, WritesPerS: 2200}}},
				{Bench: "BoltBatch", Label: "anchor: bbolt Batch (10 ms max delay)", Points: []throughputPoint{{C: 1, Runs: 3, WritesPerS: 90}, {C: 64, Runs: 1, WritesPerS: 5400}}},
			},
		},
		"MissingAnchor": {
			reason:  "Without the anchor the plot would compare nothing.",
			in:      "BenchmarkBegin/c=1-2 1 1 ns/op 2400 writes/s\nBenchmarkBeginSettle/c=1-2 1 1 ns/op 2400 writes/s\n",
			wantErr: "no BenchmarkPlainUpdate/c=... results",
		},
		"OldOutputWithoutWritesPerS": {
			reason:  "Output from before writes/s was reported names the missing unit.",
			in:      "BenchmarkBegin/c=1-2 1 1 ns/op 2400 ops/s\n",
			wantErr: "Begin/c=1 has no writes/s samples",
		},
		"BadC": {
			reason:  "c must be a positive integer.",
			in:      "BenchmarkBegin/c=0-2 1 1 ns/op 2400 writes/s\n",
			wantErr: `c="0" is not a positive integer`,
		},
		"NaN": {
			reason:  "NaN parses as a float but cannot be plotted.",
			in:      "BenchmarkBegin/c=1-2 1 1 ns/op NaN writes/s\n",
			wantErr: "median writes/s is NaN",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := journalSeries(mustParse(t, tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\njournalSeries: error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				if !errors.Is(err, errNoSeries) && strings.Contains(tc.wantErr, "no ") {
					t.Errorf("%s\njournalSeries: error %v does not wrap errNoSeries", tc.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\njournalSeries: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\njournalSeries: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPassPoints(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    []passPoint
		wantErr string
	}{
		"MediansByAscendingN": {
			reason: "Each size gets the median wall (ns/op, in seconds) and peak RSS across rounds; sizes are sorted by N; other benchmarks are not read.",
			in: `BenchmarkProviderPass/N=4000 	1	40900000000 ns/op	177.5 intents/s	7259 intents	412.5 peak-rss-MiB	1.02 reqs/intent
BenchmarkProviderPass/N=200 	1	2600000000 ns/op	142.3 intents/s	370 intents	96 peak-rss-MiB	1.03 reqs/intent
BenchmarkProviderPass/N=200 	1	2400000000 ns/op	154.6 intents/s	371 intents	99 peak-rss-MiB	1.03 reqs/intent
BenchmarkProviderPass/N=200 	1	3100000000 ns/op	119.4 intents/s	370 intents	97 peak-rss-MiB	1.04 reqs/intent
BenchmarkProviderPassUnheld/N=200 	1	9000000000 ns/op	1 peak-rss-MiB
BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 8 wall-s 0.625 ideal-s 5 api-write-s
`,
			want: []passPoint{
				{N: 200, Runs: 3, Wall: 2.6, PeakRSSMiB: 97},
				{N: 4000, Runs: 1, Wall: 40.9, PeakRSSMiB: 412.5},
			},
		},
		"NoPassResults": {
			reason:  "The recovery benchmark's output is not the pass's.",
			in:      "BenchmarkRecoveryScale/N=1000-2 1 1 ns/op 8 wall-s 0.625 ideal-s 5 api-write-s\n",
			wantErr: "missing series: no BenchmarkProviderPass/N=... results (run hack/passcurve.sh)",
		},
		"MissingRSS": {
			reason:  "A line from before peak-rss-MiB was reported names the missing unit.",
			in:      "BenchmarkProviderPass/N=200 1 2600000000 ns/op 142.3 intents/s\n",
			wantErr: "ProviderPass/N=200 has no peak-rss-MiB samples",
		},
		"BadN": {
			reason:  "N must be a positive integer.",
			in:      "BenchmarkProviderPass/N=2k 1 2600000000 ns/op 96 peak-rss-MiB\n",
			wantErr: `N="2k" is not a positive integer`,
		},
		"ZeroWall": {
			reason:  "A zero wall (passprofile of a pass with nothing in flight) cannot go on a log axis.",
			in:      "BenchmarkProviderPass/N=200 1 0 ns/op 96 peak-rss-MiB\n",
			wantErr: "median ns/op is 0",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := passPoints(mustParse(t, tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\npassPoints: error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\npassPoints: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("%s\npassPoints: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// plotted is what the plots are drawn from, for testdata/series.golden.json.
type plotted struct {
	Recovery []recoveryPoint
	Journal  []throughputSeries
	Pass     []passPoint
}

func TestSeriesGolden(t *testing.T) {
	rs, err := parseFile(filepath.Join("testdata", "scale.txt"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := parseFile(filepath.Join("testdata", "journal.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := parseFile(filepath.Join("testdata", "pass.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var g plotted
	if g.Recovery, err = recoveryPoints(rs); err != nil {
		t.Fatal(err)
	}
	if g.Journal, err = journalSeries(js); err != nil {
		t.Fatal(err)
	}
	if g.Pass, err = passPoints(ps); err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	want := golden.Read(t, "series.golden.json", got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("series from testdata/ (-golden, +got); go test ./hack/benchplot -update if intended:\n%s", diff)
	}
}

func TestRunWritesPNGs(t *testing.T) {
	dir := t.TempDir()
	o := options{
		recoveryIn: filepath.Join("testdata", "scale.txt"), recoveryPNG: filepath.Join(dir, "recovery.png"),
		journalIn: filepath.Join("testdata", "journal.txt"), journalPNG: filepath.Join(dir, "journal.png"),
		passIn: filepath.Join("testdata", "pass.txt"), passPNG: filepath.Join(dir, "pass.png"),
	}
	var out bytes.Buffer
	if err := run(&out, o); err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, p := range []string{o.recoveryPNG, o.journalPNG, o.passPNG} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatalf("run wrote no %s: %v", p, err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s is not a PNG: %v", p, err)
		}
		b := img.Bounds()
		if b.Dx() < 600 || b.Dy() < 300 {
			t.Errorf("%s is %dx%d, want at least 600x300", p, b.Dx(), b.Dy())
		}
		// Lines in four colours, text and grid: far more than a blank
		// canvas's one colour.
		colours := map[[4]uint32]bool{}
		for y := b.Min.Y; y < b.Max.Y; y += 2 {
			for x := b.Min.X; x < b.Max.X; x += 2 {
				r, g, bl, a := img.At(x, y).RGBA()
				colours[[4]uint32{r, g, bl, a}] = true
			}
		}
		if len(colours) < 16 {
			t.Errorf("%s has %d distinct colours: nothing drawn?", p, len(colours))
		}
		if !strings.Contains(out.String(), p) {
			t.Errorf("run did not report writing %s:\n%s", p, out.String())
		}
	}
	// The pass's two panels side by side: wider than the other plots.
	if img, err := decodePNG(o.passPNG); err != nil {
		t.Error(err)
	} else if b := img.Bounds(); b.Dx() < 2*b.Dy() {
		t.Errorf("%s is %dx%d, want two panels side by side, at least twice as wide as high", o.passPNG, b.Dx(), b.Dy())
	}
	for _, want := range []string{"pass wall: N 200->1000 x5.0 in N", "peak RSS: N 200->1000 x5.0 in N"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run did not state the pass's growth %q:\n%s", want, out.String())
		}
	}
}

func decodePNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s is not a PNG: %w", path, err)
	}
	return img, nil
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("PASS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "out.png")
	cases := map[string]struct {
		reason  string
		o       options
		wantErr string
	}{
		"NothingToDo": {
			reason:  "No input is a usage error.",
			wantErr: "nothing to plot",
		},
		"InputWithoutPNG": {
			reason:  "An input without its output file is a usage error.",
			o:       options{journalIn: "testdata/journal.txt"},
			wantErr: "-journal and -journal-png go together",
		},
		"MissingFile": {
			reason:  "An input that does not exist names the file.",
			o:       options{recoveryIn: filepath.Join(dir, "nope.txt"), recoveryPNG: png},
			wantErr: "nope.txt: no such file",
		},
		"NoResults": {
			reason:  "An input without results says so and names the file.",
			o:       options{journalIn: empty, journalPNG: png},
			wantErr: "empty.txt: benchres: no benchmark results",
		},
		"WrongInput": {
			reason:  "Journal output given as the recovery input lacks the series.",
			o:       options{recoveryIn: "testdata/journal.txt", recoveryPNG: png},
			wantErr: "testdata/journal.txt: missing series: no BenchmarkRecoveryScale/N=... results",
		},
		"PassWithoutPNG": {
			reason:  "The pass input without its output file is a usage error.",
			o:       options{passIn: "testdata/pass.txt"},
			wantErr: "-pass and -pass-png go together",
		},
		"WrongPassInput": {
			reason:  "Recovery benchmark output given as the pass input lacks the series.",
			o:       options{passIn: "testdata/scale.txt", passPNG: png},
			wantErr: "testdata/scale.txt: missing series: no BenchmarkProviderPass/N=... results",
		},
		"UnwritableOutput": {
			reason:  "An output directory that does not exist names the file.",
			o:       options{journalIn: "testdata/journal.txt", journalPNG: filepath.Join(dir, "no", "such", "dir", "j.png")},
			wantErr: "cannot write",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := run(&bytes.Buffer{}, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("%s\nrun: error %v, want one containing %q", tc.reason, err, tc.wantErr)
			}
			if _, err := os.Stat(png); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s\nrun left %s behind after failing", tc.reason, png)
			}
		})
	}
}

func TestLogTicks(t *testing.T) {
	cases := map[string]struct {
		reason string
		lo, hi float64
		labels []string
	}{
		"TwoDecades":  {reason: "1, 2 and 5 of each decade are labelled.", lo: 0.5, hi: 30, labels: []string{"0.5", "1", "2", "5", "10", "20"}},
		"Large":       {reason: "Thousands and millions are written with k and M.", lo: 9000, hi: 2.5e6, labels: []string{"10k", "20k", "50k", "100k", "200k", "500k", "1M", "2M"}},
		"NotPositive": {reason: "A range a log axis cannot show gets no ticks, and no panic.", lo: 0, hi: 10},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, tk := range logTicks(tc.lo, tc.hi) {
				if tk.Label != "" {
					got = append(got, tk.Label)
				}
			}
			if diff := cmp.Diff(tc.labels, got); diff != "" {
				t.Errorf("%s\nlogTicks(%v, %v) labels: -want, +got:\n%s", tc.reason, tc.lo, tc.hi, diff)
			}
		})
	}
}
