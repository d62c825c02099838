package recovery

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Recoverer runs the recovery pass as a controller-runtime Runnable. Add it
// to the manager together with reconcilers that consult its Gate: they may
// not create for a resource until the pass has discovered every candidate
// and resolved that resource's. It needs leader election, so only the
// elected replica of a shard resolves its intents.
//
// The pass runs at start. While any candidate stays unresolved (a lookup
// failed, a kind has no finder, the API server refused a patch), it runs
// again every RetryInterval, and the Gate keeps those resources blocked.
// A pass that fails as a whole is retried the same way; the Recoverer never
// stops the manager, and never opens the Gate on a failed scan.
type Recoverer struct {
	opts Options
	// RetryInterval is the wait between passes while something is
	// unresolved (default 30s).
	RetryInterval time.Duration
	// ReportPath, when set, receives the report of every pass (atomically,
	// mode 0600).
	ReportPath string

	mu   sync.Mutex
	last *Report
	done chan struct{}
}

var (
	_ manager.Runnable               = (*Recoverer)(nil)
	_ manager.LeaderElectionRunnable = (*Recoverer)(nil)
)

// NewRecoverer returns a Recoverer for o. It sets o.Gate to a new Gate when
// none is given; read it with Gate.
func NewRecoverer(o Options) *Recoverer {
	if o.Gate == nil {
		o.Gate = NewGate()
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return &Recoverer{opts: o, RetryInterval: 30 * time.Second, done: make(chan struct{})}
}

// Gate returns the gate reconcilers must consult before creating.
func (r *Recoverer) Gate() *Gate { return r.opts.Gate }

// NeedLeaderElection returns true: recovery must run on one replica per
// shard at a time.
func (r *Recoverer) NeedLeaderElection() bool { return true }

// Report returns the report of the last completed pass, or nil.
func (r *Recoverer) Report() *Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Done is closed when a pass has left nothing unresolved.
func (r *Recoverer) Done() <-chan struct{} { return r.done }

// Start runs passes until nothing is unresolved or ctx ends. It returns nil
// in both cases.
func (r *Recoverer) Start(ctx context.Context) error {
	log := r.opts.Logger.Named("recovery")
	for pass := 1; ; pass++ {
		rep, err := Run(ctx, r.opts)
		if rep != nil {
			r.mu.Lock()
			r.last = rep
			r.mu.Unlock()
			if r.ReportPath != "" {
				if werr := WriteReportFile(r.ReportPath, rep); werr != nil {
					log.Error("cannot write the recovery report", zap.String("path", r.ReportPath), zap.Error(werr))
				}
			}
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			log.Error("recovery pass failed; creates stay blocked until a pass succeeds", zap.Int("pass", pass), zap.Error(err))
		case rep.Summary.Unresolved > 0:
			log.Info("recovery pass left intents unresolved; their creates stay blocked",
				zap.Int("pass", pass), zap.Int("unresolved", rep.Summary.Unresolved), zap.Duration("retry-in", r.RetryInterval))
		default:
			log.Info("recovery complete", zap.Int("pass", pass),
				zap.Int("adopted", rep.Summary.Adopted), zap.Int("cleared", rep.Summary.Cleared),
				zap.Int("conflicts", rep.Summary.Conflict), zap.Int("orphans", rep.Summary.Orphan))
			close(r.done)
			return nil
		}
		if !sleep(ctx, r.RetryInterval) {
			return nil
		}
	}
}
