package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"

	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/fixtures"
	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/recovery"
)

// Mode selects the provider a run crashes.
type Mode string

// Modes of a run, in the order Run runs them.
const (
	// ModeUnwrapped runs provider-fakecloud as upjet generates it.
	ModeUnwrapped Mode = "unwrapped"
	// ModeWrapped runs provider-fakecloud with --journal: intentjournal's
	// crash-safe create path and recovery pass.
	ModeWrapped Mode = "wrapped"
)

const (
	// zone holds the demo's record sets.
	zone = "example-com"
	// providerConfigName is the ProviderConfig every MR refers to.
	providerConfigName = fixtures.ProviderConfigName
	// tagName is the external tag upjet writes with the MR's name.
	tagName = "crossplane-name"
	// dispatchedFraction of the MRs must have external-create-succeeded
	// before the provider is killed.
	dispatchedFraction = 0.9
	// dispatchRate is a conservative estimate of how many creates per second
	// provider-fakecloud dispatches with --kube-api-qps=200 (measured: 400
	// in under 8 s, start-up included, on 2 shared cores; about 6/s at
	// controller-runtime's 20 QPS); the automatic create latency covers the
	// whole dispatch at this rate, so that the creates are still in flight
	// at SIGKILL.
	dispatchRate = 20.0
	// minCreateLatency is the shortest automatic create latency.
	minCreateLatency = 3 * time.Second
	// readyTimeout bounds how long the fake cloud may take to come up.
	readyTimeout = 30 * time.Second
	// apiTimeout bounds each call to the API server or the fake cloud.
	apiTimeout = 30 * time.Second
)

// Binaries are the paths of the programs a run starts.
type Binaries struct {
	FakeCloud string
	Provider  string
}

// Options configure Run. The zero value of every field but Binaries and
// AssetsDir means its default.
type Options struct {
	Binaries Binaries
	// AssetsDir holds kube-apiserver and etcd.
	AssetsDir string
	// PerKind is how many RecordSets and how many Networks each run
	// creates. Default 200.
	PerKind int
	// CreateLatency is how long the fake cloud holds each create until the
	// kill. Default: long enough to cover the whole dispatch (at least 3 s),
	// so every dispatched create is still in flight at SIGKILL.
	CreateLatency time.Duration
	// RestartLatency is the fake cloud's create latency from the kill on.
	// Default 1 s.
	RestartLatency time.Duration
	// ConvergeTimeout bounds the wait for convergence after the restart.
	// Default: 3 min, or 200 ms per MR when that is longer.
	ConvergeTimeout time.Duration
	// MaxReconcileRate is the provider's --max-reconcile-rate. Default 100.
	MaxReconcileRate int
	// KubeAPIQPS is the provider's --kube-api-qps, with a burst of twice
	// as many. Default 200: at controller-runtime's 20, a 4,000-per-kind
	// run spends over an hour in client-side throttling.
	KubeAPIQPS float64
	// ProviderArgs are extra flags of the provider, in both runs.
	ProviderArgs []string
	// Parallel bounds the concurrent creates of managed resources. Default
	// 16.
	Parallel int
	// WorkDir is where the runs' temporary directories are made. Default
	// os.TempDir().
	WorkDir string
	// Keep keeps the temporary directories (logs, state, journal).
	Keep bool
	// Modes are the runs, in order. Default unwrapped then wrapped.
	Modes []Mode
	// Log receives progress at info level. Nil means no logging.
	Log *zap.Logger
}

func (o *Options) setDefaults() {
	if o.PerKind <= 0 {
		o.PerKind = 200
	}
	if o.CreateLatency <= 0 {
		d := time.Duration(float64(2*o.PerKind) / dispatchRate * float64(time.Second))
		o.CreateLatency = max(minCreateLatency, d.Round(time.Second))
	}
	if o.RestartLatency <= 0 {
		o.RestartLatency = time.Second
	}
	if o.ConvergeTimeout <= 0 {
		o.ConvergeTimeout = max(3*time.Minute, time.Duration(2*o.PerKind)*200*time.Millisecond)
	}
	if o.MaxReconcileRate <= 0 {
		o.MaxReconcileRate = 100
	}
	if o.KubeAPIQPS <= 0 {
		o.KubeAPIQPS = 200
	}
	if o.Parallel <= 0 {
		o.Parallel = 16
	}
	if len(o.Modes) == 0 {
		o.Modes = []Mode{ModeUnwrapped, ModeWrapped}
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
}

// Result is what one run measured.
type Result struct {
	Mode Mode
	// Available is false when the provider binary has no --journal flag, so
	// the wrapped run could not happen; the other fields are then zero.
	Available bool
	// PerKind is how many MRs of each kind the run created.
	PerKind int
	// CreateLatency is the fake cloud's create latency until the kill.
	CreateLatency time.Duration
	// RestartLatency is the fake cloud's create latency from the kill on.
	RestartLatency time.Duration
	// Dispatched is how many MRs had external-create-succeeded at SIGKILL.
	Dispatched int
	// InFlight is how many MRs had no external name at SIGKILL although the
	// fake cloud had made their object: creates the crash interrupted.
	InFlight int
	// Conflicts counts the fake cloud's 409s after the restart.
	Conflicts int64
	// Ready and Paused count the MRs at the end; Stuck are the others.
	Ready, Paused, Stuck int
	// Duplicates counts cloud objects beyond one per MR.
	Duplicates int
	// OrphansPresent are the IDs of cloud objects bound to no MR: no MR's
	// crossplane.io/external-name names them.
	OrphansPresent []string
	// OrphansReported are the IDs the recovery report lists as orphans.
	OrphansReported []string
	// ReportSource says where OrphansReported came from: "recovery report",
	// or "none" when the run had no recovery pass or the provider wrote no
	// report.
	ReportSource string
	// Converged is true when every MR was Ready or paused before
	// ConvergeTimeout.
	Converged bool
	// ConvergeTime runs from the restart to convergence, or to the timeout.
	ConvergeTime time.Duration
	// ConvergeTimeout is how long the run waited at most.
	ConvergeTimeout time.Duration
	// Report is the wrapped provider's last recovery report, if any.
	Report *recovery.Report
	// Dir is the run's directory when Options.Keep is set.
	Dir string
}

// Total returns how many MRs the run created.
func (r Result) Total() int { return 2 * r.PerKind }

// MeetsInvariants reports whether the run left no duplicate, no stuck MR,
// and an orphan report that names exactly the orphans present.
func (r Result) MeetsInvariants() bool {
	return r.Available && r.Duplicates == 0 && r.Stuck == 0 && sameSet(r.OrphansPresent, r.OrphansReported)
}

// Run runs o.Modes in order, each on a fresh control plane and a fresh fake
// cloud, and returns their results. It stops at the first error.
func Run(ctx context.Context, o Options) ([]Result, error) {
	o.setDefaults()
	if o.Binaries.FakeCloud == "" || o.Binaries.Provider == "" {
		return nil, errors.New("the fake cloud and provider binaries are required")
	}
	if o.AssetsDir == "" {
		return nil, errors.New("the directory holding kube-apiserver and etcd is required (set KUBEBUILDER_ASSETS or run `make tools`)")
	}
	var out []Result
	for _, m := range o.Modes {
		r, err := runMode(ctx, o, m)
		if err != nil {
			return out, fmt.Errorf("%s run: %w", m, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// SupportsJournal reports whether the provider binary has the --journal
// flag of the wrapped create path.
func SupportsJournal(ctx context.Context, provider string) (bool, error) {
	var buf bytes.Buffer
	cmd := exec.CommandContext(ctx, provider, "--help")
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil && buf.Len() == 0 {
		return false, fmt.Errorf("cannot run %s --help: %w", provider, err)
	}
	return strings.Contains(buf.String(), "-journal"), nil
}

// run holds what one run started, so that cleanup can stop it.
type run struct {
	o    Options
	mode Mode
	log  *zap.Logger
	dir  string

	cluster  *cluster
	cloud    *process
	cloudURL string
	fc       *fakecloud.Client
	provider *process
}

// runMode runs one crash-and-recover cycle with the provider of mode m.
func runMode(ctx context.Context, o Options, m Mode) (res Result, err error) {
	res = Result{Mode: m, PerKind: o.PerKind, CreateLatency: o.CreateLatency, RestartLatency: o.RestartLatency,
		ConvergeTimeout: o.ConvergeTimeout, Available: true}
	log := o.Log.With(zap.String("run", string(m)))
	if m == ModeWrapped {
		ok, err := SupportsJournal(ctx, o.Binaries.Provider)
		if err != nil {
			return res, err
		}
		if !ok {
			log.Warn("The provider binary has no --journal flag: the wrapped provider is unavailable", zap.String("provider", o.Binaries.Provider))
			res.Available = false
			return res, nil
		}
	}
	if err := os.MkdirAll(orDefault(o.WorkDir, os.TempDir()), 0o755); err != nil {
		return res, fmt.Errorf("cannot create the work directory: %w", err)
	}
	dir, err := os.MkdirTemp(o.WorkDir, "intentjournal-demo-"+string(m)+"-")
	if err != nil {
		return res, fmt.Errorf("cannot create the run directory: %w", err)
	}
	r := &run{o: o, mode: m, log: log, dir: dir}
	defer func() {
		switch {
		case ctx.Err() != nil:
			log.Info("Interrupted: stopping every process this run started")
		case err != nil:
			// The logs go with the run directory; show their ends.
			for _, p := range []*process{r.provider, r.cloud} {
				if p != nil {
					log.Warn("Last lines of a process log", zap.String("process", p.name), zap.String("log", p.tail(20)))
				}
			}
		}
		err = errors.Join(err, r.cleanup())
	}()
	if o.Keep {
		res.Dir = dir
	}

	log.Info("Starting the control plane", zap.String("dir", dir))
	if r.cluster, err = startCluster(o.AssetsDir, dir); err != nil {
		return res, err
	}
	log.Info("Starting the fake cloud", zap.Duration("create-latency", o.CreateLatency))
	if err := r.startCloud(ctx); err != nil {
		return res, err
	}
	if err := r.createProviderConfig(ctx); err != nil {
		return res, err
	}
	start := time.Now()
	log.Info("Creating managed resources", zap.Int("recordsets", o.PerKind), zap.Int("networks", o.PerKind), zap.Int("parallel", o.Parallel))
	if err := r.createResources(ctx); err != nil {
		return res, err
	}
	log.Info("Created managed resources", zap.Duration("took", time.Since(start).Round(time.Millisecond)))

	r.provider = newProcess(log, dir, "provider-fakecloud", o.Binaries.Provider, r.providerArgs()...)
	log.Info("Starting the provider", zap.Strings("args", r.provider.args))
	if err := r.provider.start(); err != nil {
		return res, err
	}
	if res.Dispatched, err = r.waitDispatched(ctx); err != nil {
		return res, err
	}
	r.provider.kill()
	log.Info("SIGKILLed the provider", zap.Int("dispatched", res.Dispatched), zap.Int("total", res.Total()))

	atKill, err := r.stats(ctx)
	if err != nil {
		return res, err
	}
	mrs, err := r.listMRs(ctx)
	if err != nil {
		return res, err
	}
	res.InFlight = inFlight(mrs, atKill)
	log.Info("Creates in flight at SIGKILL: the cloud made them, no MR records their ID",
		zap.Int("in-flight", res.InFlight), zap.Int("cloud-objects", len(atKill.Objects.RecordSets)+len(atKill.Objects.Networks)))
	if err := r.fc.SetFaults(ctx, fakecloud.Faults{Latency: fakecloud.Latencies{Create: o.RestartLatency}}); err != nil {
		return res, fmt.Errorf("cannot set the fake cloud's create latency: %w", err)
	}

	if err := r.provider.start(); err != nil {
		return res, err
	}
	restart := time.Now()
	log.Info("Restarted the provider; waiting for convergence", zap.Duration("timeout", o.ConvergeTimeout))
	conv, err := r.waitConverged(ctx, atKill, restart)
	if err != nil {
		return res, err
	}
	res.ConvergeTime = time.Since(restart)
	res.Converged = conv

	final, err := r.stats(ctx)
	if err != nil {
		return res, err
	}
	if mrs, err = r.listMRs(ctx); err != nil {
		return res, err
	}
	res.Conflicts = conflicts(final) - conflicts(atKill)
	res.Ready, res.Paused, res.Stuck = states(mrs)
	res.Duplicates = duplicates(final)
	res.OrphansPresent = unbound(mrs, final)
	res.ReportSource = "none"
	if m == ModeWrapped {
		// Stop the provider first, so that the report is its last word.
		r.provider.stop(syscall.SIGTERM)
		rep, err := recovery.ReadReportFile(r.reportPath())
		switch {
		case errors.Is(err, os.ErrNotExist):
			log.Warn("The provider wrote no recovery report", zap.String("path", r.reportPath()))
		case err != nil:
			return res, fmt.Errorf("cannot read the recovery report: %w", err)
		default:
			res.Report, res.ReportSource = rep, "recovery report"
			res.OrphansReported = reportedOrphans(rep)
		}
	}
	log.Info("Run finished",
		zap.Bool("converged", res.Converged), zap.Duration("converge-time", res.ConvergeTime.Round(time.Second)),
		zap.Int64("conflicts", res.Conflicts), zap.Int("stuck", res.Stuck), zap.Int("duplicates", res.Duplicates),
		zap.Int("orphans-present", len(res.OrphansPresent)), zap.Int("orphans-reported", len(res.OrphansReported)))
	return res, nil
}

// cleanup stops everything the run started and removes its directory
// unless Options.Keep is set.
func (r *run) cleanup() error {
	var errs []error
	if r.provider != nil {
		r.provider.stop(syscall.SIGKILL)
	}
	if r.cloud != nil {
		r.cloud.stop(syscall.SIGTERM)
	}
	if r.cluster != nil {
		errs = append(errs, r.cluster.stop())
	}
	if r.o.Keep {
		r.log.Info("Kept the run directory", zap.String("dir", r.dir))
	} else if err := os.RemoveAll(r.dir); err != nil {
		errs = append(errs, fmt.Errorf("cannot remove %s: %w", r.dir, err))
	}
	return errors.Join(errs...)
}

func (r *run) reportPath() string { return filepath.Join(r.dir, "recovery-report.json") }

func (r *run) providerArgs() []string {
	args := []string{
		"--kubeconfig", r.cluster.kubeconfig,
		"--metrics-bind-address", "0",
		fmt.Sprintf("--max-reconcile-rate=%d", r.o.MaxReconcileRate),
		fmt.Sprintf("--kube-api-qps=%g", r.o.KubeAPIQPS),
		fmt.Sprintf("--kube-api-burst=%d", int(2*r.o.KubeAPIQPS)),
	}
	args = append(args, r.o.ProviderArgs...)
	if r.mode == ModeWrapped {
		args = append(args,
			"--journal", filepath.Join(r.dir, "intents.db"),
			"--replica", "demo-0",
			"--recovery-report", r.reportPath())
	}
	return args
}

// startCloud starts the fake cloud and waits until it serves.
func (r *run) startCloud(ctx context.Context) error {
	ready := filepath.Join(r.dir, "fakecloud.ready")
	faults := fmt.Sprintf(`{"latency":{"create":%q}}`, r.o.CreateLatency)
	r.cloud = newProcess(r.log, r.dir, "fakecloud", r.o.Binaries.FakeCloud,
		"--state", filepath.Join(r.dir, "fakecloud.json"), "--ready-file", ready, "--addr", "127.0.0.1:0", "--faults", faults)
	if err := r.cloud.start(); err != nil {
		return err
	}
	err := poll(ctx, readyTimeout, 50*time.Millisecond, func() (bool, error) {
		if exited, err := r.cloud.exited(); exited {
			return false, fmt.Errorf("the fake cloud exited (%v); the end of its log is logged above", err)
		}
		b, err := os.ReadFile(ready)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		r.cloudURL = strings.TrimSpace(string(b))
		if r.cloudURL == "" {
			return false, nil
		}
		r.fc = fakecloud.NewClient(r.cloudURL)
		hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return r.fc.Healthy(hctx) == nil, nil
	})
	if err != nil {
		return fmt.Errorf("cannot start the fake cloud: %w", err)
	}
	r.log.Info("Fake cloud serving", zap.String("url", r.cloudURL))
	return nil
}

// waitDispatched waits until dispatchedFraction of the MRs have
// external-create-succeeded, that is their asynchronous create is running,
// and returns how many have. It gives up waiting, and returns what it has,
// once the first dispatched create is three quarters through its latency:
// later, creates would start to return before the kill.
func (r *run) waitDispatched(ctx context.Context) (int, error) {
	total := 2 * r.o.PerKind
	want := int(math.Ceil(dispatchedFraction * float64(total)))
	var first time.Time
	lastLog := time.Now()
	n := 0
	err := poll(ctx, 0, r.pollInterval(), func() (bool, error) {
		if exited, err := r.provider.exited(); exited {
			return false, fmt.Errorf("the provider exited (%v); the end of its log is logged above", err)
		}
		mrs, err := r.listMRs(ctx)
		if err != nil {
			return false, err
		}
		n = 0
		for _, mg := range mrs {
			if !meta.GetExternalCreateSucceeded(mg).IsZero() {
				n++
			}
		}
		if n > 0 && first.IsZero() {
			first = time.Now()
		}
		if time.Since(lastLog) >= 5*time.Second {
			r.log.Info("Dispatching creates", zap.Int("dispatched", n), zap.Int("total", total))
			lastLog = time.Now()
		}
		if n >= want {
			return true, nil
		}
		if !first.IsZero() && time.Since(first) >= r.o.CreateLatency*3/4 {
			r.log.Warn("Killing before most creates were dispatched: the create latency is shorter than the dispatch; raise the create latency",
				zap.Int("dispatched", n), zap.Int("total", total), zap.Duration("create-latency", r.o.CreateLatency))
			return true, nil
		}
		return false, nil
	})
	return n, err
}

// waitConverged waits until every MR is Ready or paused, or until
// ConvergeTimeout after restart. It reports whether they converged.
func (r *run) waitConverged(ctx context.Context, atKill fakecloud.Stats, restart time.Time) (bool, error) {
	total := 2 * r.o.PerKind
	lastLog := time.Now()
	converged := false
	err := poll(ctx, 0, r.pollInterval(), func() (bool, error) {
		if exited, err := r.provider.exited(); exited {
			return false, fmt.Errorf("the restarted provider exited (%v); the end of its log is logged above", err)
		}
		mrs, err := r.listMRs(ctx)
		if err != nil {
			return false, err
		}
		ready, paused, stuck := states(mrs)
		if len(mrs) == total && stuck == 0 {
			converged = true
			return true, nil
		}
		if time.Since(restart) >= r.o.ConvergeTimeout {
			r.log.Info("Gave up waiting for convergence", zap.Duration("timeout", r.o.ConvergeTimeout), zap.Int("stuck", stuck))
			return true, nil
		}
		if time.Since(lastLog) >= 10*time.Second {
			s, err := r.stats(ctx)
			if err != nil {
				return false, err
			}
			r.log.Info("Converging", zap.Duration("since-restart", time.Since(restart).Round(time.Second)),
				zap.Int("ready", ready), zap.Int("paused", paused), zap.Int("not-ready", stuck),
				zap.Int64("conflicts", conflicts(s)-conflicts(atKill)))
			lastLog = time.Now()
		}
		return false, nil
	})
	return converged, err
}

// pollInterval is how often the run lists the MRs: listing thousands of
// them costs the API server.
func (r *run) pollInterval() time.Duration {
	if r.o.PerKind > 500 {
		return 2 * time.Second
	}
	return 250 * time.Millisecond
}

func (r *run) stats(ctx context.Context) (fakecloud.Stats, error) {
	var s fakecloud.Stats
	err := retryTransient(ctx, r.log, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		var err error
		s, err = r.fc.Stats(ctx)
		return err
	})
	if err != nil {
		return s, fmt.Errorf("cannot read the fake cloud's stats: %w", err)
	}
	return s, nil
}

// poll calls cond every interval until it returns true or an error, ctx is
// done, or timeout (when positive) passes.
func poll(ctx context.Context, timeout, interval time.Duration, cond func() (bool, error)) error {
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("gave up after %s", timeout)
		case <-tick.C:
		}
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// isReady reports whether mg's Ready condition is True.
func isReady(mg resource.Managed) bool {
	return mg.GetCondition(xpv1.TypeReady).Status == corev1.ConditionTrue
}
