package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
	"github.com/intentjournal/intentjournal/testbed/internal/offguard"
)

// Run runs o.Modes in order, each on a fresh control plane and a fresh fake
// cloud, and returns their results. It stops at the first error.
func Run(ctx context.Context, o Options) ([]Result, error) {
	o.setDefaults()
	if o.Line.Name == "" {
		return nil, errors.New("the crossplane line is required")
	}
	if o.Binaries.FakeCloud == "" || o.Binaries.Provider == "" {
		return nil, errors.New("the fake cloud and provider binaries are required")
	}
	if o.AssetsDir == "" {
		return nil, errors.New("the directory holding kube-apiserver and etcd is required (set KUBEBUILDER_ASSETS or run `make tools`)")
	}
	crdFS, err := o.crds()
	if err != nil {
		return nil, err
	}
	if o.Line.CloudDNS && o.CreateLatency >= dnsClientTimeout {
		o.Log.Warn("The create latency reaches terraform-provider-google's request timeout: its creates fail before the kill, and upjet repeats them",
			zap.Duration("create-latency", o.CreateLatency), zap.Duration("request-timeout", dnsClientTimeout))
	}
	var out []Result
	for _, m := range o.Modes {
		r, err := runMode(ctx, o, crdFS, m)
		if err != nil {
			return out, fmt.Errorf("%s run: %w", m, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// crds returns the line's CRD manifests: those of CRDDir, or the line's
// embedded ones.
func (o Options) crds() (fs.FS, error) {
	switch {
	case o.CRDDir != "":
		if _, err := os.Stat(o.CRDDir); err != nil {
			return nil, fmt.Errorf("cannot read the %s line's CRD manifests: %w", o.Line, err)
		}
		return os.DirFS(o.CRDDir), nil
	case o.Line.EmbeddedCRDs != nil:
		return o.Line.EmbeddedCRDs, nil
	}
	return nil, fmt.Errorf("the %s line's CRD manifests are required: its provider-fakecloud's module holds them, in %s", o.Line, o.Line.CRDDir)
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
	o     Options
	crdFS fs.FS
	mode  Mode
	log   *zap.Logger
	dir   string

	cluster  *cluster
	tracker  *tracker
	cloud    *process
	cloudURL string
	fc       *fakecloud.Client
	// dns is the fake Cloud DNS's client, on a CloudDNS line (fc is nil).
	dns *dnsClient
	// guard refuses what the provider sends off the machine, on a
	// CloudDNS line.
	guard    *offguard.Guard
	provider *process
	// requestsBefore is the API server's request count just before the
	// provider's start, in a run with no kill (see Cost).
	requestsBefore requestCounts
}

// runMode runs one crash-and-recover cycle with the provider of mode m.
func runMode(ctx context.Context, o Options, crdFS fs.FS, m Mode) (res Result, err error) {
	res = Result{Line: o.Line.Name, Mode: m, PerKind: o.PerKind, CreateLatency: o.CreateLatency, RestartLatency: o.RestartLatency,
		ConvergeTimeout: o.ConvergeTimeout, Available: true}
	if !m.Kills() {
		// A run with no kill has its cloud at RestartLatency throughout.
		res.CreateLatency = o.RestartLatency
	}
	if o.Line.CloudDNS {
		// The fake Cloud DNS's faults are cleared at the kill; a run with
		// no kill has none.
		res.RestartLatency = 0
		if !m.Kills() {
			res.CreateLatency = 0
		}
		res.DNS = &DNSResult{PageSize: o.PageSize}
	}
	log := o.Log.With(zap.String("line", string(o.Line.Name)), zap.String("run", string(m)))
	if m.Wrapped() {
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
	dir, err := os.MkdirTemp(o.WorkDir, "intentjournal-demo-"+string(o.Line.Name)+"-"+string(m)+"-")
	if err != nil {
		return res, fmt.Errorf("cannot create the run directory: %w", err)
	}
	r := &run{o: o, crdFS: crdFS, mode: m, log: log, dir: dir}
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

	if err := r.launch(ctx); err != nil {
		return res, err
	}
	if o.Line.CloudDNS {
		if err := r.runDNS(ctx, &res, time.Now()); err != nil {
			return res, err
		}
		r.logFinishedDNS(res)
		return res, nil
	}
	if !m.Kills() {
		if err := r.measure(ctx, &res, fakecloud.Stats{}, time.Now()); err != nil {
			return res, err
		}
		r.logFinished(res)
		return res, nil
	}
	runStart := time.Now()
	atKill, err := r.crash(ctx, &res)
	if err != nil {
		return res, err
	}
	restart, err := r.restart(ctx)
	if err != nil {
		return res, err
	}
	if err := r.measure(ctx, &res, atKill, restart); err != nil {
		return res, err
	}
	r.logFinished(res)
	if o.Scan && m == ModeUnwrapped {
		if err := r.scanAfter(ctx, &res, runStart); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (r *run) logFinished(res Result) {
	r.log.Info("Run finished",
		zap.Bool("converged", res.Converged), zap.Duration("converge-time", res.ConvergeTime.Round(time.Second)),
		zap.Int64("conflicts", res.Conflicts), zap.Int("stuck", res.Stuck), zap.Int("duplicates", res.Duplicates),
		zap.Int("orphans-present", len(res.OrphansPresent)), zap.Int("orphans-reported", len(res.OrphansReported)))
}

// launch starts the control plane, the fake cloud and the provider, and
// creates the provider config and the managed resources.
func (r *run) launch(ctx context.Context) (err error) {
	o, log := r.o, r.log
	log.Info("Starting the control plane", zap.String("dir", r.dir))
	if r.cluster, err = startCluster(o.AssetsDir, r.crdFS, r.dir); err != nil {
		return err
	}
	log.Info("Starting the fake cloud", zap.Duration("create-latency", r.cloudLatency()))
	if o.Line.CloudDNS {
		if err := r.startCloudDNS(ctx); err != nil {
			return err
		}
		if r.guard, err = offguard.Start(); err != nil {
			return err
		}
	} else if err := r.startCloud(ctx); err != nil {
		return err
	}
	if err := r.createProviderConfig(ctx); err != nil {
		return err
	}
	if r.tracker, err = startTracker(ctx, r.cluster.config, r.cluster.client.RESTMapper(), o.Line.Kinds()); err != nil {
		return err
	}
	start := time.Now()
	log.Info("Creating managed resources", zap.String("group", o.Line.Group), zap.Strings("namespaces", o.Line.Namespaces),
		zap.Int("per-kind", o.PerKind), zap.Int("kinds", len(o.Line.Kinds())), zap.Int("parallel", o.Parallel))
	if err := r.createResources(ctx); err != nil {
		return err
	}
	log.Info("Created managed resources", zap.Duration("took", time.Since(start).Round(time.Millisecond)))
	if !r.mode.Kills() {
		// The cost's window opens here: the demo's own creates are done.
		if r.requestsBefore, err = r.scrapeRequests(ctx); err != nil {
			return err
		}
	}

	r.provider = newProcess(log, r.dir, o.Line.providerName(), o.Binaries.Provider, r.providerArgs()...)
	if r.guard != nil {
		r.provider.env = r.guard.Env()
	}
	log.Info("Starting the provider", zap.Strings("args", r.provider.args))
	return r.provider.start()
}

// crash SIGKILLs the provider once enough creates are dispatched, records
// in res how many were dispatched and in flight, and returns the fake
// cloud's stats at the kill.
func (r *run) crash(ctx context.Context, res *Result) (atKill fakecloud.Stats, err error) {
	log := r.log
	if res.Dispatched, err = r.waitDispatched(ctx); err != nil {
		return atKill, err
	}
	r.provider.kill()
	log.Info("SIGKILLed the provider", zap.Int("dispatched", res.Dispatched), zap.Int("total", res.Total()))
	if atKill, err = r.stats(ctx); err != nil {
		return atKill, err
	}
	mrs, err := r.listMRs(ctx)
	if err != nil {
		return atKill, err
	}
	res.InFlight = inFlight(mrs, atKill)
	log.Info("Creates in flight at SIGKILL: the cloud made them, no MR records their ID",
		zap.Int("in-flight", res.InFlight), zap.Int("cloud-objects", len(atKill.Objects.RecordSets)+len(atKill.Objects.Networks)))
	return atKill, nil
}

// restart shortens the fake cloud's create latency and starts the provider
// again, returning when it did.
func (r *run) restart(ctx context.Context) (time.Time, error) {
	if err := r.fc.SetFaults(ctx, fakecloud.Faults{Latency: fakecloud.Latencies{Create: r.o.RestartLatency}}); err != nil {
		return time.Time{}, fmt.Errorf("cannot set the fake cloud's create latency: %w", err)
	}
	if err := r.provider.start(); err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

// measure waits for convergence after restart and records in res what the
// crash left: 409s since the kill, MR states, duplicates, orphans present
// and, for the wrapped provider, the orphans its recovery report names. A
// run with no kill measures from the provider's start, with zero Stats at
// the "kill", and samples its Cost the moment it sees convergence.
func (r *run) measure(ctx context.Context, res *Result, atKill fakecloud.Stats, restart time.Time) error {
	o, log := r.o, r.log
	if r.mode.Kills() {
		log.Info("Restarted the provider; waiting for convergence", zap.Duration("timeout", o.ConvergeTimeout))
	} else {
		log.Info("Started the provider, not to be killed; waiting for convergence", zap.Duration("timeout", o.ConvergeTimeout))
	}
	conv, err := r.waitConverged(ctx, atKill, restart)
	if err != nil {
		return err
	}
	res.ConvergeTime = time.Since(restart)
	res.Converged = conv
	if !r.mode.Kills() {
		if res.Cost, err = r.sampleCost(ctx); err != nil {
			return err
		}
	}

	final, err := r.stats(ctx)
	if err != nil {
		return err
	}
	mrs, err := r.listMRs(ctx)
	if err != nil {
		return err
	}
	res.Conflicts = conflicts(final) - conflicts(atKill)
	res.Ready, res.Paused, res.Stuck = states(mrs)
	res.Duplicates = duplicates(mrs, final)
	res.Unbound = unbound(mrs, final)
	res.OrphansPresent = ids(res.Unbound)
	return r.readReport(res)
}

// readReport stops the wrapped provider, so that its recovery report is
// its last word, and records the report in res. The unwrapped provider
// writes none: res.ReportSource says "none".
func (r *run) readReport(res *Result) error {
	res.ReportSource = "none"
	if !r.mode.Wrapped() {
		return nil
	}
	r.provider.stop(syscall.SIGTERM)
	rep, err := report.ReadFile(r.reportPath())
	switch {
	case errors.Is(err, os.ErrNotExist):
		r.log.Warn("The provider wrote no recovery report", zap.String("path", r.reportPath()))
	case err != nil:
		return fmt.Errorf("cannot read the recovery report: %w", err)
	default:
		res.Report, res.ReportSource = rep, "recovery report"
		res.OrphansReported = reportedOrphans(rep)
	}
	return nil
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
	r.guard.Close()
	r.tracker.stop()
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

// cloudLatency is the fake cloud's create latency at its start:
// CreateLatency until the kill, or RestartLatency throughout a run with no
// kill (see ModeNoKill, ModeUnwrappedNoKill); on a CloudDNS line, none in
// a run with no kill.
func (r *run) cloudLatency() time.Duration {
	switch {
	case r.mode.Kills():
		return r.o.CreateLatency
	case r.o.Line.CloudDNS:
		return 0
	}
	return r.o.RestartLatency
}

// providerEndpoint is the endpoint of the provider config: the fake
// cloud's URL, or the fake Cloud DNS's dns_custom_endpoint.
func (r *run) providerEndpoint() string {
	if r.o.Line.CloudDNS {
		return r.cloudURL + fakeclouddns.APIPrefix
	}
	return r.cloudURL
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
	if r.mode.Wrapped() {
		// --hold-controllers: the integration docs/integrating.md
		// recommends; the recovery pass does not share the API server
		// with the controllers (docs/recovery-at-scale.md).
		args = append(args,
			"--journal", filepath.Join(r.dir, "intents.db"),
			"--replica", "demo-0",
			"--recovery-report", r.reportPath(),
			"--hold-controllers")
	}
	return args
}

// startCloud starts the fake cloud and waits until it serves.
func (r *run) startCloud(ctx context.Context) error {
	ready := filepath.Join(r.dir, "fakecloud.ready")
	faults := fmt.Sprintf(`{"latency":{"create":%q}}`, r.cloudLatency())
	r.cloud = newProcess(r.log, r.dir, "fakecloud", r.o.Binaries.FakeCloud,
		"--state", filepath.Join(r.dir, "fakecloud.json"), "--ready-file", ready, "--addr", "127.0.0.1:0", "--faults", faults)
	if err := r.cloud.start(); err != nil {
		return err
	}
	url, err := waitServing(ctx, r.cloud, ready, func(ctx context.Context, url string) error { return fakecloud.NewClient(url).Healthy(ctx) })
	if err != nil {
		return fmt.Errorf("cannot start the fake cloud: %w", err)
	}
	r.cloudURL, r.fc = url, fakecloud.NewClient(url)
	r.log.Info("Fake cloud serving", zap.String("url", r.cloudURL))
	return nil
}

// waitServing waits, up to readyTimeout, until the fake p has written its
// base URL to the file ready and healthy(url) succeeds, and returns the URL.
func waitServing(ctx context.Context, p *process, ready string, healthy func(context.Context, string) error) (string, error) {
	var url string
	err := poll(ctx, readyTimeout, 50*time.Millisecond, func() (bool, error) {
		if exited, err := p.exited(); exited {
			return false, fmt.Errorf("%s exited (%v); the end of its log is logged above", p.name, err)
		}
		b, err := os.ReadFile(ready)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if url = strings.TrimSpace(string(b)); url == "" {
			return false, nil
		}
		hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return healthy(hctx, url) == nil, nil
	})
	return url, err
}

// waitDispatched waits until dispatchedFraction of the MRs' creates are
// dispatched (see dispatched), and returns how many are. It gives up waiting, and returns what it has,
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
		var err error
		if n, err = r.dispatched(ctx); err != nil {
			return false, err
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

// dispatched returns how many creates are dispatched: the MRs that carry
// external-create-succeeded, or, on a line whose creates reach the cloud
// well after that (Line.DispatchedInCloud), the creates the cloud holds.
// The cloud commits a create when it arrives and answers after its
// latency, so either way a dispatched create is in flight until then.
func (r *run) dispatched(ctx context.Context) (int, error) {
	if r.o.Line.DispatchedInCloud {
		s, err := r.stats(ctx)
		return int(s.Total().Creates), err
	}
	mrs, err := r.tracker.list(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range mrs {
		if m.CreateSucceeded {
			n++
		}
	}
	return n, nil
}

// waitConverged waits until every MR is Ready or paused, or until
// ConvergeTimeout after restart (a run with no kill: the provider's start). It
// reports whether they converged.
func (r *run) waitConverged(ctx context.Context, atKill fakecloud.Stats, restart time.Time) (bool, error) {
	total := 2 * r.o.PerKind
	lastLog := time.Now()
	converged := false
	err := poll(ctx, 0, r.pollInterval(), func() (bool, error) {
		if exited, err := r.provider.exited(); exited {
			return false, fmt.Errorf("the provider exited after its (re)start (%v); the end of its log is logged above", err)
		}
		mrs, err := r.tracker.list(ctx)
		if err != nil {
			return false, err
		}
		ready, paused, stuck := states(mrs)
		if len(mrs) == total && stuck == 0 {
			// The watch says so; the API server must agree.
			if mrs, err = r.listMRs(ctx); err != nil {
				return false, err
			}
			if _, _, stuck = states(mrs); len(mrs) == total && stuck == 0 {
				converged = true
				return true, nil
			}
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

// pollInterval is how often the run reads the tracked MRs: a copy of
// each, in memory.
func (r *run) pollInterval() time.Duration {
	if r.o.PerKind > 500 {
		return time.Second
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
