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

// RowName is the mode's name in the demo's tables.
func (m Mode) RowName() string {
	switch m {
	case ModeWrapped:
		return "wrapped (--journal)"
	case ModeNoKill:
		return "wrapped, no kill"
	case ModeUnwrappedNoKill:
		return "unwrapped, no kill"
	}
	return string(m)
}

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
	// dnsDispatchRate is dispatchRate on a CloudDNS line: each create is
	// a terraform-provider-google apply in the provider's process, which
	// reads the zone's first page before its change (measured: 200 changes
	// in 13 s unwrapped and 10 s wrapped, start-up excluded, on 2 cores
	// under a load average of 6).
	dnsDispatchRate = 8.0
	// minDNSCreateLatency is the shortest automatic create latency on a
	// CloudDNS line: the end-to-end test's (testbed/gcpdns/e2e), which
	// kills 40 creates in flight with it.
	minDNSCreateLatency = 20 * time.Second
	// dnsClientTimeout is how long terraform-provider-google's HTTP client
	// waits for an answer: its request_timeout, 120 s when unset
	// (transport/config.go, synchronousTimeout). A changes.create held
	// longer fails in the provider, before any kill, as an ambiguous
	// create that upjet's next reconcile repeats.
	dnsClientTimeout = 120 * time.Second
	// maxDNSCreateLatency is the longest automatic create latency on a
	// CloudDNS line, well under dnsClientTimeout: the creates dispatched
	// within it are in flight at the kill, those after are not.
	maxDNSCreateLatency = 100 * time.Second
	// convergePerMR is the automatic convergence timeout per MR, when it
	// makes more than 3 min.
	convergePerMR = 200 * time.Millisecond
	// dnsConvergePerMR is convergePerMR on a CloudDNS line, where each
	// create is a Terraform apply in the provider's process (measured at
	// 4,000 RecordSets on 2 cores under a load average of 15 to 20: about 4
	// MRs Ready a second, wrapped or not, and the recovery pass's 2 min).
	dnsConvergePerMR = 400 * time.Millisecond
	// minPageSize is the smallest automatic page size of the fake Cloud
	// DNS's lists: its two apex record sets and a few of the demo's.
	minPageSize = 10
	// pageSizeDivisor sets the automatic page size: PerKind over it, so
	// that most record sets are past the first page.
	pageSizeDivisor = 20
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
	Line Line
	// Binaries are the fake cloud (on a CloudDNS line, the fake Cloud
	// DNS, fakeclouddns) and the line's provider.
	Binaries Binaries
	// CRDDir holds the line's CRD manifests (*.yaml). Default: the line's
	// embedded manifests; a line with none (v2) requires it.
	CRDDir string
	// AssetsDir holds kube-apiserver and etcd.
	AssetsDir string
	// PerKind is how many RecordSets and how many Networks each run
	// creates, spread over the line's namespaces; on a CloudDNS line, how
	// many RecordSets, Networks being none. Default 200.
	PerKind int
	// CreateLatency is how long the fake cloud holds each create until the
	// kill. Default: long enough to cover the whole dispatch (at least 3 s;
	// on a CloudDNS line, where it holds each changes.create's answer, at
	// least 20 s and PerKind/8 s but at most 100 s, under
	// terraform-provider-google's 120 s request timeout), so every
	// dispatched create is still in flight at SIGKILL. On a CloudDNS line
	// a latency of 120 s or more makes the creates fail in the provider
	// before the kill: Run warns.
	// The runs with no kill do not use it.
	CreateLatency time.Duration
	// RestartLatency is the fake cloud's create latency from the kill on,
	// and that of the runs with no kill throughout. Default 1 s. A
	// CloudDNS line does not use it: its fake's faults are cleared at the
	// kill, and the runs with no kill have none.
	RestartLatency time.Duration
	// PageSize is the fake Cloud DNS's default page size of a list, on a
	// CloudDNS line: what terraform-provider-google's record set create,
	// which reads the first page only, sees of the zone. Default PerKind/20,
	// at least 10, so that most record sets are past the first page.
	PageSize int
	// ConvergeTimeout bounds the wait for convergence after the restart
	// (the runs with no kill: after the provider's start). Default: 3 min, or
	// 200 ms per MR when that is longer (400 ms on a CloudDNS line).
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
	// Scan runs `intentjournal scan --apply --copies-within` after the
	// unwrapped run with a kill has measured what the crash left, the
	// restarted provider still running, and records in Result.Scan what it
	// found and did (ScanResult). Not on a CloudDNS line: scan has no
	// finder for the fake Cloud DNS.
	Scan bool
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
		rate, least := dispatchRate, minCreateLatency
		switch {
		case o.Line.DispatchedInCloud:
			least = minCloudDispatchLatency
		case o.Line.CloudDNS:
			rate, least = dnsDispatchRate, minDNSCreateLatency
		}
		d := time.Duration(float64(o.mrs()) / rate * float64(time.Second))
		o.CreateLatency = max(least, d.Round(time.Second))
		if o.Line.CloudDNS {
			o.CreateLatency = min(o.CreateLatency, maxDNSCreateLatency)
		}
	}
	if o.RestartLatency <= 0 {
		o.RestartLatency = time.Second
	}
	if o.PageSize <= 0 && o.Line.CloudDNS {
		o.PageSize = max(minPageSize, o.PerKind/pageSizeDivisor)
	}
	if o.ConvergeTimeout <= 0 {
		per := convergePerMR
		if o.Line.CloudDNS {
			per = dnsConvergePerMR
		}
		o.ConvergeTimeout = max(3*time.Minute, time.Duration(o.mrs())*per)
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

// mrs returns how many managed resources a run creates: PerKind of each of
// the line's kinds.
func (o Options) mrs() int { return o.PerKind * len(o.Line.Kinds()) }
