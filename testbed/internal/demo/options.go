package demo

import (
	"fmt"
	"time"

	"go.uber.org/zap"
)

// Mode selects the provider a run starts, and whether it crashes.
type Mode string

// Modes of a run, in the order Run runs them by default.
const (
	// ModeUnwrapped runs provider-fakecloud as upjet generates it.
	ModeUnwrapped Mode = "unwrapped"
	// ModeWrapped runs provider-fakecloud with --journal: intentjournal's
	// crash-safe create path and recovery pass.
	ModeWrapped Mode = "wrapped"
	// ModeNoKill runs the wrapped provider and never kills it: the
	// baseline the wrapped run's time to converge after the kill is
	// measured against (issue #18: converge after a kill within 2x of a run
	// with no kill). What the restarted provider faces is a cloud at
	// RestartLatency with every MR to converge, so the fair baseline is the
	// same provider, flags (--journal included), N, MaxReconcileRate and
	// QPS, creating all 2×PerKind MRs from scratch against a cloud at
	// RestartLatency from the start; its time to converge runs from the
	// provider's start to every MR Ready. CreateLatency plays no part. Its
	// Result has a Cost.
	ModeNoKill Mode = "no-kill"
	// ModeUnwrappedNoKill is ModeNoKill with the unwrapped provider (no
	// --journal flags): the baseline of the cost of safety (issue #34),
	// what the wrapped provider costs against unwrapped upjet when nothing
	// crashes (see Cost, CostRatios).
	ModeUnwrappedNoKill Mode = "unwrapped-no-kill"
)

// DefaultModes are the runs of Run by default, in order: the table's rows.
var DefaultModes = []Mode{ModeUnwrapped, ModeWrapped, ModeNoKill, ModeUnwrappedNoKill}

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	for _, m := range DefaultModes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown run %q: want unwrapped, wrapped, no-kill or unwrapped-no-kill", s)
}

// Wrapped reports whether the mode's provider runs with --journal.
func (m Mode) Wrapped() bool { return m == ModeWrapped || m == ModeNoKill }

// Kills reports whether the mode's run SIGKILLs and restarts the provider.
// A run that does not kill measures its Cost.
func (m Mode) Kills() bool { return m != ModeNoKill && m != ModeUnwrappedNoKill }

const (
	// zone holds the demo's record sets.
	zone = "example-com"
	// providerConfigName is the provider config every MR refers to.
	providerConfigName = "default"
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
	// minCloudDispatchLatency is the shortest automatic create latency on
	// a line whose creates each start a tofu process
	// (Line.DispatchedInCloud): every apply must reach the cloud before
	// the first one returns, and tofu processes in parallel on a small
	// machine start seconds apart.
	minCloudDispatchLatency = 30 * time.Second
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

// Options configure Run. The zero value of every field but Line, Binaries
// and AssetsDir means its default.
type Options struct {
	// Line is the crossplane line of the provider binary (see LineFor).
	Line     Line
	Binaries Binaries
	// CRDDir holds the line's CRD manifests (*.yaml). Default: the line's
	// embedded manifests; a line with none (v2) requires it.
	CRDDir string
	// AssetsDir holds kube-apiserver and etcd.
	AssetsDir string
	// PerKind is how many RecordSets and how many Networks each run
	// creates, spread over the line's namespaces. Default 200.
	PerKind int
	// CreateLatency is how long the fake cloud holds each create until the
	// kill. Default: long enough to cover the whole dispatch (at least 3 s),
	// so every dispatched create is still in flight at SIGKILL. The runs
	// with no kill do not use it.
	CreateLatency time.Duration
	// RestartLatency is the fake cloud's create latency from the kill on,
	// and that of the runs with no kill throughout. Default 1 s.
	RestartLatency time.Duration
	// ConvergeTimeout bounds the wait for convergence after the restart
	// (the runs with no kill: after the provider's start). Default: 3 min, or
	// 200 ms per MR when that is longer.
	ConvergeTimeout time.Duration
	// MaxReconcileRate is the provider's --max-reconcile-rate. Default 100.
	MaxReconcileRate int
	// KubeAPIQPS is the provider's --kube-api-qps, with a burst of twice
	// as many. Default 200: at controller-runtime's 20, a 4,000-per-kind
	// run spends over an hour in client-side throttling.
	KubeAPIQPS float64
	// ProviderArgs are extra flags of the provider, in every run.
	ProviderArgs []string
	// Parallel bounds the concurrent creates of managed resources. Default
	// 16.
	Parallel int
	// WorkDir is where the runs' temporary directories are made. Default
	// os.TempDir().
	WorkDir string
	// Keep keeps the temporary directories (logs, state, journal).
	Keep bool
	// Modes are the runs, in order. Default DefaultModes: unwrapped,
	// wrapped, no-kill, unwrapped-no-kill.
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
		least := minCreateLatency
		if o.Line.DispatchedInCloud {
			least = minCloudDispatchLatency
		}
		o.CreateLatency = max(least, d.Round(time.Second))
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
		o.Modes = DefaultModes
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
}
