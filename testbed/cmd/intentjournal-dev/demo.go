package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/demo"
)

// demoOptions are the options of `demo`.
type demoOptions struct {
	Line             string        `name:"line" env:"DEMO_LINE" default:"v2" enum:"v1,v2,v2-generated,gcpdns" help:"The crossplane line of provider-fakecloud: v2 (namespaced managed resources of fakecloud.m.intentjournal.io, the same names in two namespaces); v2-generated, the same provider's CLIRecordSets and CLINetworks, through upjet's Terraform CLI connector (give its --terraform flags with --provider-arg; make demo DEMO_LINE=v2-generated does); v1, the legacy line, cluster-scoped; or gcpdns, provider-gcpdns (upjet v2 over the real terraform-provider-google) against the fake Cloud DNS, its RecordSets in one zone (env DEMO_LINE)."`
	CRDs             string        `name:"crds" placeholder:"DIR" help:"Directory holding the line's CRD manifests: testbed/upjetv2/generated/package/crds for v2 and v2-generated, testbed/gcpdns/package/crds for gcpdns (required); v1's are built in."`
	PerKind          int           `name:"per-kind" env:"DEMO_N" default:"200" help:"RecordSets and Networks to create in each run, of each kind, spread over the line's namespaces; on gcpdns, RecordSets (env DEMO_N)."`
	CreateLatency    time.Duration `name:"create-latency" default:"0s" help:"The fake cloud's create latency until the kill (on gcpdns, how long the fake Cloud DNS holds each changes.create's answer); 0 picks one long enough for every create to be in flight at SIGKILL (on gcpdns at most 100s: terraform-provider-google gives up on a request after 120s)."`
	RestartLatency   time.Duration `name:"restart-latency" default:"1s" help:"The fake cloud's create latency from the kill on. Not on gcpdns: its fake's latency ends at the kill."`
	PageSize         int           `name:"page-size" env:"DEMO_PAGE_SIZE" default:"0" help:"gcpdns: the fake Cloud DNS's default page size of a list, what terraform-provider-google's create sees of the zone; 0 means --per-kind/20, at least 10 (env DEMO_PAGE_SIZE)."`
	ConvergeTimeout  time.Duration `name:"converge-timeout" default:"0s" help:"How long to wait after the restart for every managed resource to be Ready or paused; the rest count as stuck. 0 means 3m, or 200ms per resource when that is longer (400ms on gcpdns, whose wait runs from the kill)."`
	MaxReconcileRate int           `name:"max-reconcile-rate" default:"100" help:"The provider's --max-reconcile-rate."`
	KubeAPIQPS       float64       `name:"kube-api-qps" default:"200" help:"The provider's --kube-api-qps (its burst is twice this)."`
	ProviderArgs     []string      `name:"provider-arg" sep:"none" placeholder:"FLAG" help:"An extra flag for provider-fakecloud in every run, e.g. --provider-arg=--poll=1m; repeatable."`
	Runs             []string      `name:"runs" env:"DEMO_RUNS" sep:"," default:"unwrapped,wrapped,no-kill,unwrapped-no-kill" placeholder:"RUN,..." help:"The runs, in order, each a row of the table: unwrapped and wrapped (SIGKILLed with creates in flight, then restarted), no-kill (the wrapped provider never killed, against a cloud at --restart-latency from the start: the baseline of the wrapped run's time to converge), unwrapped-no-kill (the same with the unwrapped provider: the baseline of the cost of safety, set against no-kill in a second table) (env DEMO_RUNS)."`
	Scan             bool          `name:"scan" env:"DEMO_SCAN" default:"true" negatable:"" help:"After the unwrapped run with a kill, run intentjournal scan --apply --copies-within against what the crash left, the restarted provider still running, and print what it found and did in a third table (not on gcpdns) (env DEMO_SCAN)."`
	Parallel         int           `name:"parallel" default:"16" help:"Managed resources created concurrently."`
	FakeCloudBin     string        `name:"fakecloud-bin" placeholder:"PATH" help:"The fake cloud binary (default: fakecloud beside intentjournal-dev)."`
	FakeCloudDNSBin  string        `name:"fakeclouddns-bin" placeholder:"PATH" help:"gcpdns: the fake Cloud DNS binary (default: fakeclouddns beside intentjournal-dev)."`
	ProviderBin      string        `name:"provider-bin" placeholder:"PATH" help:"The line's provider binary (default: provider-fakecloud-LINE beside intentjournal-dev; on gcpdns, provider-gcpdns)."`
	Assets           string        `name:"assets" env:"KUBEBUILDER_ASSETS" placeholder:"DIR" help:"Directory holding kube-apiserver and etcd (env KUBEBUILDER_ASSETS; see hack/tools.sh env)."`
	Orphans          string        `name:"orphans" default:"orphans.json" placeholder:"FILE" help:"Where to write the wrapped run's orphan report."`
	WorkDir          string        `name:"work-dir" placeholder:"DIR" help:"Where to make the runs' temporary directories (default: the system's)."`
	Keep             bool          `name:"keep" help:"Keep the runs' directories: process logs, fake cloud state, journal, recovery report."`

	log *zap.Logger
}

// Run runs `demo`.
func (o *demoOptions) Run(e *cli.Env) error {
	o.log = e.Log
	return runDemo(e.Ctx, e.Stdout, *o)
}

// Help is the detailed help of `demo`.
func (o *demoOptions) Help() string {
	return "Runs the crash-and-recover demonstration four times, each on a fresh local control plane (envtest) and a fresh fake cloud: " +
		"creates RecordSets and Networks, SIGKILLs provider-fakecloud while their creates are in flight, restarts it and measures " +
		"409s, stuck managed resources, duplicate cloud objects, orphans reported against orphans present and the time to converge. " +
		"The first run uses the provider as upjet generates it, the second the provider with --journal. " +
		"The third, no-kill, runs the provider with --journal and never kills it, against a cloud at --restart-latency from the start: " +
		"its time from the provider's start to every resource Ready is the baseline, and the wrapped row shows its time after the kill as a multiple of it. " +
		"The fourth, unwrapped-no-kill, is the third with the provider as upjet generates it. " +
		"The runs with no kill also measure the cost of safety (issue #34): a second table shows the provider's CPU time and peak RSS and the API server's requests, " +
		"per managed resource created, from the provider's start to convergence, and the wrapped run's figures as multiples of the unwrapped one's. " +
		"--runs picks the runs. " +
		"--line picks the crossplane line: v2 (the default) with namespaced managed resources, or the legacy v1. " +
		"--line gcpdns runs provider-gcpdns, generated by upjet over the real terraform-provider-google, against the fake Cloud DNS: RecordSets in one zone whose list pages (--page-size) hold far fewer; " +
		"its table counts the record sets overwritten, the resources looping on 409 or stopped on an incomplete create, those Ready on their own record set, the zone's record sets and the recovery report's adoptions. " +
		"`make demo` builds what it needs and runs this.\n\n" +
		"Exit codes: 0 the wrapped runs (with and without the kill) left no duplicate, no stuck resource and reported exactly the orphans present " +
		"(gcpdns: no overwrite, no loop, every resource Ready on its own record set, every create in flight adopted, nothing sent off the machine); 1 otherwise, or an error. " +
		"The unwrapped runs do not set the exit code: their rows show what they left."
}

// errDemoFailed means a wrapped run did not meet the demo's invariants.
var errDemoFailed = errors.New("a wrapped run did not meet the invariants (0 duplicates, 0 stuck, orphans reported == present)")

// errDNSDemoFailed means a wrapped run of the gcpdns line did not meet its
// invariants (demo.DNSResult.Meets).
var errDNSDemoFailed = errors.New("a wrapped run did not meet the invariants (0 overwrites, 0 loops, every RecordSet Ready on its own record set, every create in flight adopted, orphans reported == present, nothing sent off the machine)")

// runDemo runs the demonstration, prints the table to out and writes the
// orphan report.
func runDemo(ctx context.Context, out io.Writer, o demoOptions) error {
	results, err := demoRuns(ctx, o)
	if err != nil {
		return err
	}
	return finishDemo(out, results, o)
}

// demoRuns checks the options and runs the demonstration.
func demoRuns(ctx context.Context, o demoOptions) ([]demo.Result, error) {
	if o.log == nil {
		o.log = zap.NewNop()
	}
	line, err := demo.LineFor(demo.LineName(o.Line))
	if err != nil {
		return nil, cli.UsageError("--line: %w", err)
	}
	if o.CRDs == "" && line.EmbeddedCRDs == nil {
		return nil, cli.UsageError("the %s line needs --crds DIR: its CRD manifests are in its module, %s", line, line.CRDDir)
	}
	bins, err := demoBinaries(o, line)
	if err != nil {
		return nil, err
	}
	if o.Assets == "" {
		return nil, cli.UsageError("no kube-apiserver and etcd: set --assets or KUBEBUILDER_ASSETS (run `make tools`, then `eval \"$(hack/tools.sh env)\"`)")
	}
	if o.PerKind < 1 {
		return nil, cli.UsageError("--per-kind must be at least 1, got %d", o.PerKind)
	}
	if o.PageSize < 0 {
		return nil, cli.UsageError("--page-size must be at least 1, or 0 for the default, got %d", o.PageSize)
	}
	modes, err := demoModes(o.Runs)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	results, err := demo.Run(ctx, demo.Options{
		Line:             line,
		CRDDir:           o.CRDs,
		Binaries:         bins,
		AssetsDir:        o.Assets,
		PerKind:          o.PerKind,
		CreateLatency:    o.CreateLatency,
		RestartLatency:   o.RestartLatency,
		PageSize:         o.PageSize,
		ConvergeTimeout:  o.ConvergeTimeout,
		MaxReconcileRate: o.MaxReconcileRate,
		KubeAPIQPS:       o.KubeAPIQPS,
		ProviderArgs:     o.ProviderArgs,
		Parallel:         o.Parallel,
		Scan:             o.Scan && !line.CloudDNS,
		WorkDir:          o.WorkDir,
		Keep:             o.Keep,
		Modes:            modes,
		Log:              o.log,
	})
	if err != nil {
		return nil, err
	}
	o.log.Info("Demo finished", zap.String("line", o.Line), zap.Duration("took", time.Since(start).Round(time.Second)))
	return results, nil
}

// demoModes parses --runs: at least one run, none twice.
func demoModes(runs []string) ([]demo.Mode, error) {
	if len(runs) == 0 {
		return nil, cli.UsageError("--runs: name at least one of unwrapped, wrapped, no-kill, unwrapped-no-kill")
	}
	var modes []demo.Mode
	for _, s := range runs {
		m, err := demo.ParseMode(strings.TrimSpace(s))
		if err != nil {
			return nil, cli.UsageError("--runs: %w", err)
		}
		if slices.Contains(modes, m) {
			return nil, cli.UsageError("--runs: %s twice", m)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// finishDemo prints the table of results to out, and the table of costs
// when a run with no kill measured one, writes the wrapped run's orphan
// report, and returns errDemoFailed when a wrapped run (after the kill or
// with none) did not meet the invariants. The unwrapped runs set no exit
// code: their rows show what they left, and the cost table notes an
// unwrapped no-kill run that is no clean baseline.
func finishDemo(out io.Writer, results []demo.Result, o demoOptions) error {
	wrapped, noKill := byMode(results, demo.ModeWrapped), byMode(results, demo.ModeNoKill)
	failed := errDemoFailed
	if o.Line == string(demo.LineGCPDNS) {
		failed = errDNSDemoFailed
		if err := demo.WriteDNSTable(out, results); err != nil {
			return err
		}
	} else if err := writeDemoTable(out, results); err != nil {
		return err
	}
	if err := writeCostTable(out, results); err != nil {
		return err
	}
	if err := demo.WriteScanTable(out, results); err != nil {
		return err
	}
	for _, r := range []*demo.Result{wrapped, noKill} {
		if r != nil && !r.Available {
			return errors.New("the wrapped provider is unavailable: provider-fakecloud has no --journal flag")
		}
	}
	if wrapped != nil {
		rep := wrapped.Report
		if rep == nil {
			rep = demo.ComputedReport(*wrapped, time.Now())
			fmt.Fprintf(out, "\nThe wrapped provider wrote no recovery report; %s was computed from the fake cloud and the managed resources.\n", o.Orphans)
		}
		if err := report.WriteFile(o.Orphans, rep); err != nil {
			return fmt.Errorf("cannot write the orphan report: %w", err)
		}
		fmt.Fprintf(out, "\nOrphan report of the wrapped run: %s\n", o.Orphans)
	}
	for _, r := range []*demo.Result{wrapped, noKill} {
		if r != nil && !r.MeetsInvariants() {
			return failed
		}
	}
	return nil
}

// byMode returns the result of the run of mode m, or nil.
func byMode(results []demo.Result, m demo.Mode) *demo.Result {
	for i := range results {
		if results[i].Mode == m {
			return &results[i]
		}
	}
	return nil
}

// demoBinaries resolves the fake cloud and the line's provider binaries, by
// default beside the running executable: fakecloud and
// provider-fakecloud-LINE, or on the gcpdns line fakeclouddns and
// provider-gcpdns.
func demoBinaries(o demoOptions, line demo.Line) (demo.Binaries, error) {
	fakeFlag, fake, fakeName := "--fakecloud-bin", o.FakeCloudBin, "fakecloud"
	providerName := "provider-fakecloud-" + string(line.Name)
	if line.CloudDNS {
		fakeFlag, fake, fakeName = "--fakeclouddns-bin", o.FakeCloudDNSBin, "fakeclouddns"
		providerName = "provider-gcpdns"
	}
	b := demo.Binaries{FakeCloud: fake, Provider: o.ProviderBin}
	if b.FakeCloud == "" || b.Provider == "" {
		self, err := os.Executable()
		if err != nil {
			return b, fmt.Errorf("cannot find the intentjournal executable, to find the binaries beside it: %w", err)
		}
		dir := filepath.Dir(self)
		if b.FakeCloud == "" {
			b.FakeCloud = filepath.Join(dir, fakeName)
		}
		if b.Provider == "" {
			b.Provider = filepath.Join(dir, providerName)
		}
	}
	for flag, path := range map[string]string{fakeFlag: b.FakeCloud, "--provider-bin": b.Provider} {
		if _, err := os.Stat(path); err != nil {
			return b, cli.UsageError("cannot use %s (%s): %v; build it, or run `make demo`", path, flag, err)
		}
	}
	return b, nil
}

// writeDemoTable prints the runs side by side, one row each. The runs
// with a kill time their convergence from the restart, the runs with no
// kill from the provider's start; the wrapped row shows its time as a
// multiple of the wrapped no-kill run's.
func writeDemoTable(out io.Writer, results []demo.Result) error {
	fmt.Fprint(out, demoHeading(results))
	noKill := byMode(results, demo.ModeNoKill)
	t := tabular.New(out, "RUN", "MRS", "IN FLIGHT AT KILL", "409S AFTER (RE)START", "MRS STUCK", "DUPLICATE CLOUD OBJECTS", "ORPHANS REPORTED/PRESENT", "TIME TO CONVERGE")
	for _, r := range results {
		name := runName(r.Mode)
		if !r.Available {
			t.Row(name, "", "", "", "", "", "", "unavailable: the provider has no --journal flag")
			continue
		}
		converge := tabular.Age(r.ConvergeTime)
		if !r.Converged {
			converge = "never (gave up after " + tabular.Age(r.ConvergeTimeout) + ")"
		}
		if ratio, ok := r.Ratio(derefOr(noKill)); ok && r.Mode == demo.ModeWrapped {
			converge += fmt.Sprintf(" (%.1fx no kill)", ratio)
		}
		inFlight := strconv.Itoa(r.InFlight)
		if !r.Mode.Kills() {
			inFlight = "-"
		}
		t.Row(name,
			strconv.Itoa(r.Total()),
			inFlight,
			strconv.FormatInt(r.Conflicts, 10),
			stuck(r),
			strconv.Itoa(r.Duplicates),
			fmt.Sprintf("%d/%d", len(r.OrphansReported), len(r.OrphansPresent)),
			converge)
	}
	return t.Flush()
}

// runName is a run's name in the table.
func runName(m demo.Mode) string { return m.RowName() }

// derefOr returns *r, or the zero Result when r is nil.
func derefOr(r *demo.Result) demo.Result {
	if r == nil {
		return demo.Result{}
	}
	return *r
}

// demoHeading is the line above the table: the line, the size, and the
// fake cloud's create latencies of the runs with a kill and of those
// without.
func demoHeading(results []demo.Result) string {
	if len(results) == 0 {
		return ""
	}
	r := results[0]
	if k := slices.IndexFunc(results, func(r demo.Result) bool { return r.Mode.Kills() }); k >= 0 {
		r = results[k]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "crash-and-recover, %s: %d RecordSets + %d Networks per run", lineSummary(r.Line), r.PerKind, r.PerKind)
	if r.Mode.Kills() {
		fmt.Fprintf(&b, "; fake cloud create latency %s until SIGKILL, %s after; provider restarted at once", r.CreateLatency, r.RestartLatency)
	}
	if k := slices.IndexFunc(results, func(r demo.Result) bool { return !r.Mode.Kills() }); k >= 0 {
		fmt.Fprintf(&b, "; no kill: create latency %s throughout, converge timed from the provider's start", results[k].RestartLatency)
	}
	b.WriteString("\n\n")
	return b.String()
}

// stuck renders the stuck MRs, and the paused ones when there are any:
// paused MRs converged, reported for an operator, but are not Ready.
func stuck(r demo.Result) string {
	if r.Paused == 0 {
		return strconv.Itoa(r.Stuck)
	}
	return fmt.Sprintf("%d (+%d paused)", r.Stuck, r.Paused)
}

// lineSummary names the line and the scope of its managed resources, for
// the table's heading.
func lineSummary(name demo.LineName) string {
	l, err := demo.LineFor(name)
	if err != nil {
		return "line " + string(name)
	}
	if l.Namespaced() {
		return fmt.Sprintf("line %s, namespaced (%s in %s)", l, l.Group, strings.Join(l.Namespaces, ", "))
	}
	return fmt.Sprintf("line %s, cluster-scoped (%s)", l, l.Group)
}
