package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/go-logr/zapr"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/zap/zaptest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/demo"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

var (
	demoPerKind  = flag.Int("demo.per-kind", 5, "RecordSets and Networks per run of TestDemo")
	demoConverge = flag.Duration("demo.converge-timeout", 45*time.Second, "how long TestDemo's runs wait for convergence after the restart")
)

// TestDemo runs `intentjournal-dev demo` end to end with a few resources
// against the real binaries, per crossplane line: envtest, the fake cloud
// and the line's provider-fakecloud, built here from the line's module. On
// v2 (namespaced, the same names in two namespaces) the default four runs:
// the unwrapped provider must show the bug, the wrapped one must meet the
// invariants, the wrapped one never killed must converge cleanly as the
// baseline, and the unwrapped one never killed too, as the cost's
// baseline; both runs with no kill must measure a cost. On the legacy v1
// line the wrapped run alone keeps the test short. The exit code and
// orphans.json follow from them. No assertion is on time: the ratios to
// the runs with no kill are figures for docs, not tests.
func TestDemo(t *testing.T) {
	cases := map[string]struct {
		reason string
		line   demo.LineName
		runs   []string
	}{
		"v2": {reason: "The default line: the four runs, side by side.", line: demo.LineV2, runs: []string{"unwrapped", "wrapped", "no-kill", "unwrapped-no-kill"}},
		"v1": {reason: "The legacy line, wrapped only.", line: demo.LineV1, runs: []string{"wrapped"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			testDemo(t, tc.line, tc.runs)
		})
	}
}

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../../.."

func testDemo(t *testing.T, name demo.LineName, runs []string) {
	line, err := demo.LineFor(name)
	if err != nil {
		t.Fatal(err)
	}
	assets := testenv.KubebuilderAssets(t)
	bins := testbed.BuildBinariesIn(t, filepath.Join(repoRoot, line.ModuleDir), line.ProviderPackage)
	orphans := filepath.Join(t.TempDir(), "orphans.json")
	o := demoOptions{
		Line:             string(name),
		PerKind:          *demoPerKind,
		RestartLatency:   time.Second,
		ConvergeTimeout:  *demoConverge,
		MaxReconcileRate: 100,
		Parallel:         16,
		FakeCloudBin:     bins.FakeCloud,
		ProviderBin:      bins.Provider,
		Assets:           assets,
		Orphans:          orphans,
		WorkDir:          t.TempDir(),
		log:              zaptest.NewLogger(t),
		Runs:             runs,
		Scan:             true,
	}
	if line.EmbeddedCRDs == nil {
		o.CRDs = filepath.Join(repoRoot, line.CRDDir)
	}
	// envtest logs through controller-runtime's global logger, which
	// cli.Main sets for the demo command.
	ctrllog.SetLogger(zapr.NewLogger(o.log))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	results, err := demoRuns(ctx, o)
	if err != nil {
		t.Fatalf("demoRuns(): %v", err)
	}
	var out bytes.Buffer
	err = finishDemo(&out, results, o)
	t.Logf("\n%s", out.String())
	byMode := map[demo.Mode]demo.Result{}
	for _, r := range results {
		byMode[r.Mode] = r
	}
	if len(results) != len(runs) {
		t.Fatalf("demoRuns() returned %d results, want %d", len(results), len(runs))
	}

	if unwrapped, ok := byMode[demo.ModeUnwrapped]; ok {
		t.Run("UnwrappedShowsTheBug", func(t *testing.T) {
			if unwrapped.InFlight == 0 {
				t.Fatalf("no create was in flight at SIGKILL, so the run cannot show the bug: %+v", unwrapped)
			}
			if unwrapped.Duplicates == 0 && unwrapped.Stuck == 0 {
				t.Errorf("the unwrapped provider should leave duplicates or stuck MRs after a crash with %d creates in flight; got %+v", unwrapped.InFlight, unwrapped)
			}
			if len(unwrapped.OrphansPresent) == 0 {
				t.Errorf("the unwrapped provider should leave cloud objects bound to no MR; got %+v", unwrapped)
			}
		})
	}
	if unwrapped, ok := byMode[demo.ModeUnwrapped]; ok {
		t.Run("ScanAfterTheCrash", func(t *testing.T) {
			s := unwrapped.Scan
			if s == nil {
				t.Fatalf("no intentjournal scan ran after the unwrapped run: %+v", unwrapped)
			}
			if s.LoopsPresent == 0 || s.Present["Network"] == 0 {
				t.Fatalf("the crash left %d loops and %v orphans: nothing for the scan to find", s.LoopsPresent, s.Present)
			}
			cases := map[string]struct {
				reason    string
				got, want any
			}{
				"ExitCode":    {reason: "Its report needs an operator.", got: s.ExitCode, want: cli.ExitAttention},
				"Named":       {reason: "Every cloud object bound to no MR is named, the first copies the restarted provider made again among them.", got: s.Named, want: s.Present},
				"NamedBound":  {reason: "No object an MR is bound to is called an orphan.", got: s.NamedBound, want: 0},
				"LoopsFound":  {reason: "Every MR looping on already exists is found as such.", got: s.LoopsFound, want: s.LoopsPresent},
				"LoopsPaused": {reason: "--apply pauses every loop.", got: s.LoopsPaused, want: s.LoopsPresent},
				"Adopted":     {reason: "A stock provider leaves no strong proof: nothing is adopted.", got: s.Adopted, want: 0},
			}
			for name, tc := range cases {
				if diff := cmp.Diff(tc.want, tc.got); diff != "" {
					t.Errorf("%s: %s\n-want, +got:\n%s", name, tc.reason, diff)
				}
			}
			if s.RequestsTotal() == 0 || s.Lookups == 0 {
				t.Errorf("%d API requests and %d lookups counted, want both: the scan ran", s.RequestsTotal(), s.Lookups)
			}
			if !strings.Contains(out.String(), "unwrapped, then scan") {
				t.Errorf("the output has no scan table:\n%s", out.String())
			}
		})
	}
	wrapped := byMode[demo.ModeWrapped]
	t.Run("WrappedMeetsTheInvariants", func(t *testing.T) {
		if wrapped.InFlight == 0 {
			t.Fatalf("no create was in flight at SIGKILL, so the run proves nothing: %+v", wrapped)
		}
		cases := map[string]struct {
			reason    string
			got, want any
		}{
			"Available":  {reason: "provider-fakecloud has --journal.", got: wrapped.Available, want: true},
			"Duplicates": {reason: "No cloud object may be created twice.", got: wrapped.Duplicates, want: 0},
			"Stuck":      {reason: "Every MR must be Ready or paused.", got: wrapped.Stuck, want: 0},
			"Converged":  {reason: "Every MR must be Ready or paused before the timeout.", got: wrapped.Converged, want: true},
			"Orphans": {reason: "The report must name exactly the cloud objects bound to no MR.",
				got: wrapped.OrphansReported, want: wrapped.OrphansPresent},
		}
		for name, tc := range cases {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s: %s\n-want, +got:\n%s", name, tc.reason, diff)
			}
		}
	})

	if noKill, ok := byMode[demo.ModeNoKill]; ok {
		t.Run("NoKillConvergesCleanly", func(t *testing.T) {
			cases := map[string]struct {
				reason    string
				got, want any
			}{
				"Available":  {reason: "The baseline runs the provider with --journal.", got: noKill.Available, want: true},
				"InFlight":   {reason: "Nothing is killed, so nothing is in flight at a kill.", got: noKill.InFlight, want: 0},
				"Conflicts":  {reason: "Without a kill no create runs twice: no 409.", got: noKill.Conflicts, want: int64(0)},
				"Duplicates": {reason: "No cloud object may be created twice.", got: noKill.Duplicates, want: 0},
				"Stuck":      {reason: "Every MR must be Ready.", got: noKill.Stuck, want: 0},
				"Converged":  {reason: "The baseline must converge, or the ratio means nothing.", got: noKill.Converged, want: true},
				"Latency":    {reason: "The baseline's cloud is at the restart latency throughout.", got: noKill.CreateLatency, want: noKill.RestartLatency},
				"Report":     {reason: "The wrapped provider's recovery pass runs, and finds nothing.", got: noKill.ReportSource, want: "recovery report"},
				"Orphans":    {reason: "Nothing unbound, nothing reported.", got: len(noKill.OrphansPresent) + len(noKill.OrphansReported), want: 0},
			}
			for name, tc := range cases {
				if diff := cmp.Diff(tc.want, tc.got); diff != "" {
					t.Errorf("%s: %s\n-want, +got:\n%s", name, tc.reason, diff)
				}
			}
			if wrapped.Converged && !strings.Contains(out.String(), "x no kill)") {
				t.Errorf("the table does not show the wrapped run's time as a multiple of the no-kill run's:\n%s", out.String())
			}
		})
	}

	if unwrappedNoKill, ok := byMode[demo.ModeUnwrappedNoKill]; ok {
		t.Run("UnwrappedNoKillConvergesCleanly", func(t *testing.T) {
			cases := map[string]struct {
				reason    string
				got, want any
			}{
				"Converged":  {reason: "The cost's baseline must converge, or the ratios mean nothing.", got: unwrappedNoKill.Converged, want: true},
				"Stuck":      {reason: "Every MR must be Ready.", got: unwrappedNoKill.Stuck, want: 0},
				"Duplicates": {reason: "Without a kill upjet creates nothing twice.", got: unwrappedNoKill.Duplicates, want: 0},
				"InFlight":   {reason: "Nothing is killed, so nothing is in flight at a kill.", got: unwrappedNoKill.InFlight, want: 0},
				"Report":     {reason: "The unwrapped provider has no recovery pass.", got: unwrappedNoKill.ReportSource, want: "none"},
			}
			for name, tc := range cases {
				if diff := cmp.Diff(tc.want, tc.got); diff != "" {
					t.Errorf("%s: %s\n-want, +got:\n%s", name, tc.reason, diff)
				}
			}
		})
	}
	for _, m := range []demo.Mode{demo.ModeNoKill, demo.ModeUnwrappedNoKill} {
		r, ok := byMode[m]
		if !ok {
			continue
		}
		t.Run("Cost/"+string(m), func(t *testing.T) {
			c := r.Cost
			if c == nil {
				t.Fatalf("a run with no kill measured no cost: %+v", r)
			}
			if c.CPU <= 0 || c.PeakRSS <= 0 {
				t.Errorf("CPU %s, peak RSS %d bytes; want both positive: the provider ran", c.CPU, c.PeakRSS)
			}
			if c.Writes() < int64(r.Total()) {
				t.Errorf("Writes() = %d (%v), want at least one per MR created, %d", c.Writes(), c.Requests, r.Total())
			}
			if !strings.Contains(out.String(), "cost with no kill") || !strings.Contains(out.String(), runName(m)) {
				t.Errorf("the table shows no cost row of the %s run:\n%s", m, out.String())
			}
		})
	}
	if r := byMode[demo.ModeWrapped]; r.Cost != nil {
		t.Errorf("a run with a kill measured a cost: %+v", r.Cost)
	}

	t.Run("ExitCodeAndReport", func(t *testing.T) {
		if code := cli.ExitCode(err); code != cli.ExitOK {
			t.Errorf("finishDemo() exit code %d (%v), want %d", code, err, cli.ExitOK)
		}
		b, err := os.ReadFile(orphans)
		if err != nil {
			t.Fatalf("finishDemo() wrote no orphan report: %v", err)
		}
		if err := report.ValidateJSON(b); err != nil {
			t.Errorf("%s does not match the report schema: %v", orphans, err)
		}
	})
}

// TestDemoTable checks the table renderer against a golden file.
func TestDemoTable(t *testing.T) {
	results := []demo.Result{
		{
			Line: demo.LineV2, Mode: demo.ModeUnwrapped, Available: true, PerKind: 200, CreateLatency: 50 * time.Second, RestartLatency: time.Second,
			Dispatched: 372, InFlight: 364, Conflicts: 1092, Ready: 218, Stuck: 182, Duplicates: 182,
			OrphansPresent: make([]string, 364), ReportSource: "none",
			ConvergeTime: 3*time.Minute + 400*time.Millisecond, ConvergeTimeout: 3 * time.Minute,
		},
		{
			Line: demo.LineV2, Mode: demo.ModeWrapped, Available: true, PerKind: 200, CreateLatency: 50 * time.Second, RestartLatency: time.Second,
			Dispatched: 370, InFlight: 361, Ready: 398, Paused: 2, ReportSource: "recovery report",
			Converged: true, ConvergeTime: 14*time.Second + 300*time.Millisecond, ConvergeTimeout: 3 * time.Minute,
		},
		{
			Line: demo.LineV2, Mode: demo.ModeNoKill, Available: true, PerKind: 200, CreateLatency: time.Second, RestartLatency: time.Second,
			Ready: 400, ReportSource: "recovery report",
			Converged: true, ConvergeTime: 11 * time.Second, ConvergeTimeout: 3 * time.Minute,
		},
		{
			Line: demo.LineV2, Mode: demo.ModeUnwrappedNoKill, Available: true, PerKind: 200, CreateLatency: time.Second, RestartLatency: time.Second,
			Ready: 400, ReportSource: "none",
			Converged: true, ConvergeTime: 10 * time.Second, ConvergeTimeout: 3 * time.Minute,
		},
	}
	cases := map[string]struct {
		reason  string
		results []demo.Result
	}{
		"demo-table.txt": {
			reason:  "The three runs side by side; the unwrapped one never converged; the wrapped one shows its time as a multiple of the no-kill run's.",
			results: results[:3],
		},
		"demo-table-nokill-timeout.txt": {
			reason: "A no-kill run that never converged gives no ratio; a no-kill run alone still has a heading.",
			results: []demo.Result{results[1], {Line: demo.LineV2, Mode: demo.ModeNoKill, Available: true, PerKind: 200, CreateLatency: time.Second, RestartLatency: time.Second,
				Ready: 390, Stuck: 10, ConvergeTime: 3 * time.Minute, ConvergeTimeout: 3 * time.Minute}},
		},
		"demo-table-nokill-only.txt": {
			reason:  "The no-kill run alone: no kill latency in the heading.",
			results: results[2:3],
		},
		"demo-table-four.txt": {
			reason:  "The four default runs; the unwrapped run with no kill is a row like the wrapped one's, without a ratio.",
			results: results,
		},
		"demo-table-unwrapped-nokill-only.txt": {
			reason:  "The unwrapped run with no kill alone still has the no-kill heading.",
			results: results[3:],
		},
		"demo-table-v1.txt": {
			reason: "The legacy line's heading says cluster-scoped.",
			results: []demo.Result{{Line: demo.LineV1, Mode: demo.ModeWrapped, Available: true, PerKind: 5, CreateLatency: 3 * time.Second, RestartLatency: time.Second,
				Dispatched: 10, InFlight: 10, Ready: 10, Converged: true, ConvergeTime: 9 * time.Second, ConvergeTimeout: 45 * time.Second}},
		},
		"demo-table-unavailable.txt": {
			reason:  "A provider without --journal shows the wrapped run as unavailable.",
			results: []demo.Result{results[0], {Line: demo.LineV2, Mode: demo.ModeWrapped, PerKind: 200}, {Line: demo.LineV2, Mode: demo.ModeNoKill, PerKind: 200, CreateLatency: time.Second, RestartLatency: time.Second}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeDemoTable(&buf, tc.results); err != nil {
				t.Fatalf("%s: writeDemoTable(): %v", tc.reason, err)
			}
			golden.Assert(t, name, buf.Bytes())
		})
	}
}

// TestDemoUsage checks the usage errors of `demo`.
func TestDemoUsage(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		o      demoOptions
		want   string
	}{
		"NoAssets": {
			reason: "Without kube-apiserver and etcd the demo names make tools.",
			o:      demoOptions{Line: "v1", PerKind: 1, FakeCloudBin: bin, ProviderBin: bin},
			want:   "make tools",
		},
		"MissingBinary": {
			reason: "A missing binary is named with its flag.",
			o:      demoOptions{Line: "v1", PerKind: 1, FakeCloudBin: filepath.Join(dir, "nope"), ProviderBin: bin, Assets: dir},
			want:   "--fakecloud-bin",
		},
		"BadPerKind": {
			reason: "At least one resource of each kind.",
			o:      demoOptions{Line: "v1", PerKind: 0, FakeCloudBin: bin, ProviderBin: bin, Assets: dir},
			want:   "--per-kind",
		},
		"UnknownLine": {
			reason: "Only the v1 and v2 lines exist.",
			o:      demoOptions{Line: "v3", PerKind: 1, FakeCloudBin: bin, ProviderBin: bin, Assets: dir},
			want:   "--line",
		},
		"V2WithoutCRDs": {
			reason: "The v2 line's CRDs live in its own module: the demo names the flag and the directory.",
			o:      demoOptions{Line: "v2", PerKind: 1, FakeCloudBin: bin, ProviderBin: bin, Assets: dir},
			want:   "--crds DIR: its CRD manifests are in its module, testbed/upjetv2/generated/package/crds",
		},
		"UnknownRun": {
			reason: "Only the unwrapped, wrapped, no-kill and unwrapped-no-kill runs exist.",
			o:      demoOptions{Line: "v1", PerKind: 1, FakeCloudBin: bin, ProviderBin: bin, Assets: dir, Runs: []string{"wrapped", "crash"}},
			want:   `--runs: unknown run "crash"`,
		},
		"RunTwice": {
			reason: "A run named twice is a mistake, not two rows.",
			o:      demoOptions{Line: "v1", PerKind: 1, FakeCloudBin: bin, ProviderBin: bin, Assets: dir, Runs: []string{"no-kill", "no-kill"}},
			want:   "--runs: no-kill twice",
		},
		"NoRuns": {
			reason: "At least one run.",
			o:      demoOptions{Line: "v1", PerKind: 1, FakeCloudBin: bin, ProviderBin: bin, Assets: dir},
			want:   "--runs",
		},
		"DefaultProviderPerLine": {
			reason: "Without --provider-bin the demo looks for the line's own provider build beside itself.",
			o:      demoOptions{Line: "v1", PerKind: 1, FakeCloudBin: bin, Assets: dir},
			want:   "provider-fakecloud-v1",
		},
		"GCPDNSWithoutCRDs": {
			reason: "provider-gcpdns's CRDs live in its own module: the demo names the flag and the directory.",
			o:      demoOptions{Line: "gcpdns", PerKind: 1, FakeCloudDNSBin: bin, ProviderBin: bin, Assets: dir},
			want:   "--crds DIR: its CRD manifests are in its module, testbed/gcpdns/package/crds",
		},
		"GCPDNSMissingFake": {
			reason: "The gcpdns line runs the fake Cloud DNS, not the fake cloud: its flag is named.",
			o:      demoOptions{Line: "gcpdns", CRDs: dir, PerKind: 1, FakeCloudBin: bin, FakeCloudDNSBin: filepath.Join(dir, "nope"), ProviderBin: bin, Assets: dir},
			want:   "--fakeclouddns-bin",
		},
		"GCPDNSDefaultProvider": {
			reason: "Without --provider-bin the gcpdns line looks for provider-gcpdns beside the demo.",
			o:      demoOptions{Line: "gcpdns", CRDs: dir, PerKind: 1, FakeCloudDNSBin: bin, Assets: dir},
			want:   "provider-gcpdns",
		},
		"BadPageSize": {
			reason: "A page size below 0 is a mistake; 0 picks one.",
			o:      demoOptions{Line: "gcpdns", CRDs: dir, PerKind: 1, PageSize: -1, FakeCloudDNSBin: bin, ProviderBin: bin, Assets: dir},
			want:   "--page-size",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := runDemo(context.Background(), &bytes.Buffer{}, tc.o)
			if code := cli.ExitCode(err); code != cli.ExitUsage || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nrunDemo() = exit %d, %v; want exit %d naming %q", tc.reason, code, err, cli.ExitUsage, tc.want)
			}
		})
	}
}

// TestDemoFlags parses demo's flags and environment with kong.
func TestDemoFlags(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   []string
		env    map[string]string
		want   demoOptions
	}{
		"Defaults": {
			reason: "Without flags the demo runs 200 of each kind and picks its latency and timeout itself.",
			want: demoOptions{Line: "v2", PerKind: 200, RestartLatency: time.Second, MaxReconcileRate: 100, KubeAPIQPS: 200, Parallel: 16, Scan: true, Orphans: "orphans.json",
				Runs: []string{"unwrapped", "wrapped", "no-kill", "unwrapped-no-kill"}},
		},
		"Env": {
			reason: "DEMO_LINE picks the line, DEMO_N the size, DEMO_RUNS the runs and KUBEBUILDER_ASSETS the control plane binaries.",
			env:    map[string]string{"DEMO_LINE": "v1", "DEMO_N": "4000", "DEMO_RUNS": "unwrapped-no-kill,no-kill", "KUBEBUILDER_ASSETS": "/assets"},
			want: demoOptions{Line: "v1", PerKind: 4000, RestartLatency: time.Second, MaxReconcileRate: 100, KubeAPIQPS: 200, Parallel: 16, Scan: true, Orphans: "orphans.json", Assets: "/assets",
				Runs: []string{"unwrapped-no-kill", "no-kill"}},
		},
		"GCPDNSEnv": {
			reason: "DEMO_LINE=gcpdns picks the Cloud DNS line, DEMO_PAGE_SIZE the fake's page size.",
			env:    map[string]string{"DEMO_LINE": "gcpdns", "DEMO_PAGE_SIZE": "25"},
			want: demoOptions{Line: "gcpdns", PerKind: 200, PageSize: 25, RestartLatency: time.Second, MaxReconcileRate: 100, KubeAPIQPS: 200, Parallel: 16, Scan: true, Orphans: "orphans.json",
				Runs: []string{"unwrapped", "wrapped", "no-kill", "unwrapped-no-kill"}},
		},
		"GCPDNSFlags": {
			reason: "The fake Cloud DNS's binary and page size as flags.",
			args:   []string{"--line=gcpdns", "--fakeclouddns-bin=/bin/fakeclouddns", "--page-size=10", "--provider-bin=/bin/provider-gcpdns"},
			want: demoOptions{Line: "gcpdns", PerKind: 200, PageSize: 10, FakeCloudDNSBin: "/bin/fakeclouddns", ProviderBin: "/bin/provider-gcpdns",
				RestartLatency: time.Second, MaxReconcileRate: 100, KubeAPIQPS: 200, Parallel: 16, Scan: true, Orphans: "orphans.json",
				Runs: []string{"unwrapped", "wrapped", "no-kill", "unwrapped-no-kill"}},
		},
		"Flags": {
			reason: "Provider flags pass through, commas and all; --no-scan turns the scan after the unwrapped run off.",
			args: []string{"--line=v1", "--crds=/crds", "--per-kind=3", "--converge-timeout=40s", "--create-latency=5s", "--keep", "--kube-api-qps=50",
				"--provider-arg=--poll=1m", "--provider-arg=--sync=1h,2h", "--runs=no-kill", "--no-scan"},
			want: demoOptions{Line: "v1", CRDs: "/crds", PerKind: 3, ConvergeTimeout: 40 * time.Second, CreateLatency: 5 * time.Second, Keep: true,
				RestartLatency: time.Second, MaxReconcileRate: 100, KubeAPIQPS: 50, Parallel: 16, Orphans: "orphans.json",
				ProviderArgs: []string{"--poll=1m", "--sync=1h,2h"}, Runs: []string{"no-kill"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"DEMO_LINE", "DEMO_N", "DEMO_RUNS", "DEMO_PAGE_SIZE", "DEMO_SCAN", "KUBEBUILDER_ASSETS"} {
				t.Setenv(k, "") // restored when the test ends
				os.Unsetenv(k)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var c struct {
				Demo demoOptions `cmd:""`
			}
			p, err := kong.New(&c, kong.Exit(func(int) { t.Fatal("kong exited") }))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Parse(append([]string{"demo"}, tc.args...)); err != nil {
				t.Fatalf("%s\nParse(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, c.Demo, cmp.AllowUnexported(demoOptions{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestFinishDemoGCPDNS checks what the gcpdns line's end prints and
// returns: its own table, no cost table, the orphan report, and the exit
// code of the wrapped runs' invariants.
func TestFinishDemoGCPDNS(t *testing.T) {
	// adopted is a recovery report that adopted n record sets.
	adopted := func(n int) *report.Report {
		rep := report.New(report.Source{Owner: journal.Owner{Replica: "demo-0"}}, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))
		for i := range n {
			id := fmt.Sprintf("projects/intentjournal-demo/managedZones/zone-a/rrsets/rec-%05d.example.com./A", i)
			rep.Add(report.Entry{
				IntentID: fmt.Sprintf("intent-%d", i),
				Resource: journal.ResourceRef{APIVersion: "dns.gcp.m.intentjournal.io/v1beta1", Kind: "RecordSet", Namespace: "team-a", Name: fmt.Sprintf("rec-%05d", i), UID: fmt.Sprintf("uid-%d", i)},
				Sources:  []string{report.SourceJournal}, ExternalName: id,
				Found:   []report.Found{{ID: id, Owned: true, Adopted: true, Proof: "IntentID"}},
				Outcome: report.OutcomeAdopted, Reason: "Adopted",
			})
		}
		return rep
	}
	clean := func(m demo.Mode, inFlight int) demo.Result {
		return demo.Result{Line: demo.LineGCPDNS, Mode: m, Available: true, PerKind: 40, InFlight: inFlight, Converged: true, ConvergeTime: 7 * time.Second,
			Report: adopted(inFlight), ReportSource: "recovery report",
			DNS: &demo.DNSResult{PageSize: 10, RRSets: 42, Settled: true, States: demo.DNSStates{Ready: 40, Bound: 40}}}
	}
	overwritten := clean(demo.ModeWrapped, 3)
	overwritten.DNS.Overwrites, overwritten.DNS.OverwritesTotal = 1, 1
	noKillLooping := clean(demo.ModeNoKill, 0)
	noKillLooping.DNS.States = demo.DNSStates{Ready: 39, Bound: 39, Looping: 1}
	cases := map[string]struct {
		reason  string
		results []demo.Result
		wantErr error
	}{
		"Clean":         {reason: "Every create in flight adopted, nothing overwritten, nothing looping: exit 0.", results: []demo.Result{clean(demo.ModeWrapped, 3), clean(demo.ModeNoKill, 0)}},
		"Overwrite":     {reason: "One record set overwritten by the wrapped provider fails the demo.", results: []demo.Result{overwritten}, wantErr: errDNSDemoFailed},
		"NoKillLooping": {reason: "The wrapped provider never killed must meet them too.", results: []demo.Result{clean(demo.ModeWrapped, 3), noKillLooping}, wantErr: errDNSDemoFailed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			orphans := filepath.Join(t.TempDir(), "orphans.json")
			var out bytes.Buffer
			err := finishDemo(&out, tc.results, demoOptions{Line: "gcpdns", Orphans: orphans})
			if diff := cmp.Diff(tc.wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nfinishDemo(): -want, +got:\n%s", tc.reason, diff)
			}
			if !strings.Contains(out.String(), "MRS LOOPING ON 409") || strings.Contains(out.String(), "cost with no kill") {
				t.Errorf("%s\nfinishDemo() printed no gcpdns table, or a cost table:\n%s", tc.reason, out.String())
			}
			if _, err := report.ReadFile(orphans); err != nil {
				t.Errorf("%s\nfinishDemo() wrote no orphan report: %v", tc.reason, err)
			}
		})
	}
}
