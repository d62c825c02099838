package demo

import (
	"time"

	"go.uber.org/zap"
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
