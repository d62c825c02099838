package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/internal/cli"
	"github.com/intentjournal/intentjournal/internal/demo"
	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/recovery"
)

// demoOptions are the options of `demo`.
type demoOptions struct {
	Line             string        `name:"line" env:"DEMO_LINE" default:"v2" enum:"v1,v2" help:"The crossplane line of provider-fakecloud: v2 (namespaced managed resources of fakecloud.m.intentjournal.io, the same names in two namespaces) or v1, the legacy line, cluster-scoped (env DEMO_LINE)."`
	CRDs             string        `name:"crds" placeholder:"DIR" help:"Directory holding the line's CRD manifests: adapter/upjetv2/internal/provider/crds for v2 (required); v1's are built in."`
	PerKind          int           `name:"per-kind" env:"DEMO_N" default:"200" help:"RecordSets and Networks to create in each run, of each kind, spread over the line's namespaces (env DEMO_N)."`
	CreateLatency    time.Duration `name:"create-latency" default:"0s" help:"The fake cloud's create latency until the kill; 0 picks one long enough for every create to be in flight at SIGKILL."`
	RestartLatency   time.Duration `name:"restart-latency" default:"1s" help:"The fake cloud's create latency from the kill on."`
	ConvergeTimeout  time.Duration `name:"converge-timeout" default:"0s" help:"How long to wait after the restart for every managed resource to be Ready or paused; the rest count as stuck. 0 means 3m, or 200ms per resource when that is longer."`
	MaxReconcileRate int           `name:"max-reconcile-rate" default:"100" help:"The provider's --max-reconcile-rate."`
	KubeAPIQPS       float64       `name:"kube-api-qps" default:"200" help:"The provider's --kube-api-qps (its burst is twice this)."`
	ProviderArgs     []string      `name:"provider-arg" sep:"none" placeholder:"FLAG" help:"An extra flag for provider-fakecloud in both runs, e.g. --provider-arg=--poll=1m; repeatable."`
	Parallel         int           `name:"parallel" default:"16" help:"Managed resources created concurrently."`
	FakeCloudBin     string        `name:"fakecloud-bin" placeholder:"PATH" help:"The fake cloud binary (default: fakecloud beside intentjournal-dev)."`
	ProviderBin      string        `name:"provider-bin" placeholder:"PATH" help:"The line's provider-fakecloud binary (default: provider-fakecloud-LINE beside intentjournal-dev)."`
	Assets           string        `name:"assets" env:"KUBEBUILDER_ASSETS" placeholder:"DIR" help:"Directory holding kube-apiserver and etcd (env KUBEBUILDER_ASSETS; see hack/tools.sh env)."`
	Orphans          string        `name:"orphans" default:"orphans.json" placeholder:"FILE" help:"Where to write the wrapped run's orphan report."`
	WorkDir          string        `name:"work-dir" placeholder:"DIR" help:"Where to make the runs' temporary directories (default: the system's)."`
	Keep             bool          `name:"keep" help:"Keep the runs' directories: process logs, fake cloud state, journal, recovery report."`

	log *zap.Logger
	// modes, when set, replaces the default unwrapped-then-wrapped runs;
	// for tests.
	modes []demo.Mode
}

// Run runs `demo`.
func (o *demoOptions) Run(e *cli.Env) error {
	o.log = e.Log
	return runDemo(e.Ctx, e.Stdout, *o)
}

// Help is the detailed help of `demo`.
func (o *demoOptions) Help() string {
	return "Runs the crash-and-recover demonstration twice, each on a fresh local control plane (envtest) and a fresh fake cloud: " +
		"creates RecordSets and Networks, SIGKILLs provider-fakecloud while their creates are in flight, restarts it and measures " +
		"409s, stuck managed resources, duplicate cloud objects, orphans reported against orphans present and the time to converge. " +
		"The first run uses the provider as upjet generates it, the second the provider with --journal. " +
		"--line picks the crossplane line: v2 (the default) with namespaced managed resources, or the legacy v1. `make demo` builds what it needs and runs this.\n\n" +
		"Exit codes: 0 the wrapped run left no duplicate, no stuck resource and reported exactly the orphans present; 1 otherwise, or an error."
}

// errDemoFailed means the wrapped run did not meet the demo's invariants.
var errDemoFailed = errors.New("the wrapped run did not meet the invariants (0 duplicates, 0 stuck, orphans reported == present)")

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
	start := time.Now()
	results, err := demo.Run(ctx, demo.Options{
		Line:             line,
		CRDDir:           o.CRDs,
		Binaries:         bins,
		AssetsDir:        o.Assets,
		PerKind:          o.PerKind,
		CreateLatency:    o.CreateLatency,
		RestartLatency:   o.RestartLatency,
		ConvergeTimeout:  o.ConvergeTimeout,
		MaxReconcileRate: o.MaxReconcileRate,
		KubeAPIQPS:       o.KubeAPIQPS,
		ProviderArgs:     o.ProviderArgs,
		Parallel:         o.Parallel,
		WorkDir:          o.WorkDir,
		Keep:             o.Keep,
		Modes:            o.modes,
		Log:              o.log,
	})
	if err != nil {
		return nil, err
	}
	o.log.Info("Demo finished", zap.String("line", o.Line), zap.Duration("took", time.Since(start).Round(time.Second)))
	return results, nil
}

// finishDemo prints the table of results to out, writes the wrapped run's
// orphan report, and returns errDemoFailed when the wrapped run did not
// meet the invariants.
func finishDemo(out io.Writer, results []demo.Result, o demoOptions) error {
	var wrapped *demo.Result
	for i := range results {
		if results[i].Mode == demo.ModeWrapped {
			wrapped = &results[i]
		}
	}
	if err := writeDemoTable(out, results); err != nil {
		return err
	}
	switch {
	case wrapped == nil:
		return nil // a test ran the unwrapped provider alone
	case !wrapped.Available:
		return errors.New("the wrapped provider is unavailable: provider-fakecloud has no --journal flag")
	}
	rep := wrapped.Report
	if rep == nil {
		rep = demo.ComputedReport(*wrapped, time.Now())
		fmt.Fprintf(out, "\nThe wrapped provider wrote no recovery report; %s was computed from the fake cloud and the managed resources.\n", o.Orphans)
	}
	if err := recovery.WriteReportFile(o.Orphans, rep); err != nil {
		return fmt.Errorf("cannot write the orphan report: %w", err)
	}
	fmt.Fprintf(out, "\nOrphan report of the wrapped run: %s\n", o.Orphans)
	if !wrapped.MeetsInvariants() {
		return errDemoFailed
	}
	return nil
}

// demoBinaries resolves the fake cloud and the line's provider binaries, by
// default beside the running executable: fakecloud and
// provider-fakecloud-LINE.
func demoBinaries(o demoOptions, line demo.Line) (demo.Binaries, error) {
	b := demo.Binaries{FakeCloud: o.FakeCloudBin, Provider: o.ProviderBin}
	if b.FakeCloud == "" || b.Provider == "" {
		self, err := os.Executable()
		if err != nil {
			return b, fmt.Errorf("cannot find the intentjournal executable, to find the binaries beside it: %w", err)
		}
		dir := filepath.Dir(self)
		if b.FakeCloud == "" {
			b.FakeCloud = filepath.Join(dir, "fakecloud")
		}
		if b.Provider == "" {
			b.Provider = filepath.Join(dir, "provider-fakecloud-"+string(line.Name))
		}
	}
	for flag, path := range map[string]string{"--fakecloud-bin": b.FakeCloud, "--provider-bin": b.Provider} {
		if _, err := os.Stat(path); err != nil {
			return b, cli.UsageError("cannot use %s (%s): %v; build it, or run `make demo`", path, flag, err)
		}
	}
	return b, nil
}

// writeDemoTable prints the runs side by side, one row each.
func writeDemoTable(out io.Writer, results []demo.Result) error {
	if len(results) > 0 {
		r := results[0]
		fmt.Fprintf(out, "crash-and-recover, %s: %d RecordSets + %d Networks per run; fake cloud create latency %s until SIGKILL, %s after; provider restarted at once\n\n",
			lineSummary(r.Line), r.PerKind, r.PerKind, r.CreateLatency, r.RestartLatency)
	}
	t := tabular.New(out, "RUN", "MRS", "IN FLIGHT AT KILL", "409S AFTER RESTART", "MRS STUCK", "DUPLICATE CLOUD OBJECTS", "ORPHANS REPORTED/PRESENT", "TIME TO CONVERGE")
	for _, r := range results {
		name := string(r.Mode)
		if r.Mode == demo.ModeWrapped {
			name += " (--journal)"
		}
		if !r.Available {
			t.Row(name, "", "", "", "", "", "", "unavailable: the provider has no --journal flag")
			continue
		}
		converge := tabular.Age(r.ConvergeTime)
		if !r.Converged {
			converge = "never (gave up after " + tabular.Age(r.ConvergeTimeout) + ")"
		}
		t.Row(name,
			strconv.Itoa(r.Total()),
			strconv.Itoa(r.InFlight),
			strconv.FormatInt(r.Conflicts, 10),
			stuck(r),
			strconv.Itoa(r.Duplicates),
			fmt.Sprintf("%d/%d", len(r.OrphansReported), len(r.OrphansPresent)),
			converge)
	}
	return t.Flush()
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
