package adapter

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the adapter's Prometheus metrics. Setup registers them in
// controller-runtime's registry, which the manager's metrics endpoint
// serves.
type Metrics struct {
	// Begun counts intents begun, per kind.
	Begun *prometheus.CounterVec
	// Settled counts intents the create path brought to an end, per kind
	// and outcome (succeeded, settled, failed, adopted, cleared, reported,
	// conflict).
	Settled *prometheus.CounterVec
	// Open is the number of unsettled intents this process knows of.
	Open prometheus.Gauge
	// Commit is the latency of journal commits, from the start of the
	// transaction to the end of its fsync.
	Commit prometheus.Histogram
	// CommitErrors counts failed journal commits.
	CommitErrors prometheus.Counter
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		Begun: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "intentjournal_intents_begun_total",
			Help: "Create intents durably begun before an external create.",
		}, []string{"kind"}),
		Settled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "intentjournal_intents_settled_total",
			Help: "Create intent transitions recorded by the create path, by outcome.",
		}, []string{"kind", "outcome"}),
		Open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "intentjournal_open_intents",
			Help: "Unsettled create intents: creates whose result Kubernetes may not know yet.",
		}),
		Commit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "intentjournal_journal_commit_seconds",
			Help:    "Journal commit latency, transaction start to the end of its fsync.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		CommitErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "intentjournal_journal_commit_errors_total",
			Help: "Journal commits that failed (every write in them failed).",
		}),
	}
}

// Register registers every metric with reg. A metric already registered
// (a second Setup in one process, e.g. in tests) is not an error.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	for _, c := range m.collectors() {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				continue
			}
			return err
		}
	}
	return nil
}

// collectors lists every metric, for Register and the docs test.
func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Begun, m.Settled, m.Open, m.Commit, m.CommitErrors}
}

// observeCommit is the journal's CommitObserver.
func (m *Metrics) observeCommit(d time.Duration, _ int, err error) {
	m.Commit.Observe(d.Seconds())
	if err != nil {
		m.CommitErrors.Inc()
	}
}
