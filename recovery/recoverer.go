package recovery

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
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
//
// With Interval set, it keeps running a pass every Interval after the first
// has resolved everything: that is how a live shard takes over the intents
// of a peer that died (see Options.Scope), and how it resolves creates left
// incomplete in resources that moved to it (a bucket rebalance, a relabel)
// after its first pass. Those later passes never consider an intent of
// this process's own epoch, whatever Scope says: it is a live create. An
// incomplete create that no intent explains (the process died between
// crossplane-runtime's pending mark and the create's intent) is taken,
// subject to Scope, once its mark is IncompleteGrace old: by then the
// reconcile that wrote it has ended (see Options.IncompleteAge).
type Recoverer struct {
	opts Options
	log  *zap.Logger
	// RetryInterval is the wait between passes while something is
	// unresolved (default 30s).
	RetryInterval time.Duration
	// ReportPath, when set, receives the report of every pass (atomically,
	// mode 0600).
	ReportPath string
	// Interval, when positive, runs a pass every Interval for as long as
	// the Recoverer runs, after the first pass has left nothing
	// unresolved. Zero stops after that first complete pass.
	Interval time.Duration
	// IncompleteGrace is the later passes' Options.IncompleteAge: the
	// managed reconciler's timeout plus crossplane-runtime's 30s reconcile
	// grace, plus a margin for clock skew and the pending mark's one-second
	// resolution. The default, DefaultIncompleteGrace, fits upjet's
	// generated controllers (managed.WithTimeout(3*time.Minute)); use
	// IncompleteGraceFor with any other timeout.
	IncompleteGrace time.Duration

	mu     sync.Mutex
	last   *report.Report
	done   chan struct{}
	passed chan struct{}
}

var (
	_ manager.Runnable               = (*Recoverer)(nil)
	_ manager.LeaderElectionRunnable = (*Recoverer)(nil)
)

// NewRecoverer returns a Recoverer for o. It sets o.Gate to a new Gate and
// o.Sightings to new Sightings when none are given; read them with Gate
// and Sightings, to share them with the create path's Resolver.
func NewRecoverer(o Options) *Recoverer {
	if o.Gate == nil {
		o.Gate = NewGate()
	}
	if o.Sightings == nil {
		o.Sightings = NewSightings()
	}
	return &Recoverer{opts: o, log: logging.Zap(o.Logger), RetryInterval: 30 * time.Second, IncompleteGrace: DefaultIncompleteGrace, done: make(chan struct{}), passed: make(chan struct{})}
}

// reconcileGrace is what crossplane-runtime's managed reconciler adds to
// its timeout for the whole reconcile (reconcileGracePeriod in
// pkg/reconciler/managed); skewMargin covers clock skew between nodes and
// the pending mark's one-second resolution.
const (
	reconcileGrace = 30 * time.Second
	skewMargin     = 5 * time.Second
)

// DefaultIncompleteGrace is IncompleteGraceFor(3*time.Minute), the timeout
// of upjet's generated controllers.
var DefaultIncompleteGrace = IncompleteGraceFor(3 * time.Minute)

// IncompleteGraceFor returns the age after which a pending mark written by
// a managed reconciler with this timeout (managed.WithTimeout) cannot
// belong to a reconcile still running.
func IncompleteGraceFor(reconcileTimeout time.Duration) time.Duration {
	return reconcileTimeout + reconcileGrace + skewMargin
}

// Gate returns the gate reconcilers must consult before creating.
func (r *Recoverer) Gate() *Gate { return r.opts.Gate }

// NeedLeaderElection returns true: recovery must run on one replica per
// shard at a time.
func (r *Recoverer) NeedLeaderElection() bool { return true }

// Sightings returns the Sightings the Recoverer's passes share.
func (r *Recoverer) Sightings() *Sightings { return r.opts.Sightings }

// Report returns the report of the last completed pass, or nil.
func (r *Recoverer) Report() *report.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Done is closed when a pass has left nothing unresolved.
func (r *Recoverer) Done() <-chan struct{} { return r.done }

// Passed is closed when the first pass has run to its end, whatever it
// left unresolved (the Gate keeps those resources blocked): from then on
// the reconcilers no longer compete with the pass for the API server. A
// pass that failed as a whole (its scan) does not count.
func (r *Recoverer) Passed() <-chan struct{} { return r.passed }

// Start runs passes until nothing is unresolved (or, with Interval, until
// ctx ends). It returns nil in every case.
func (r *Recoverer) Start(ctx context.Context) error {
	log := r.log.Named("recovery")
	opts := r.opts
	complete, passed := false, false
	for pass := 1; ; pass++ {
		rep, err := Run(ctx, opts)
		if err == nil && !passed {
			passed = true
			close(r.passed)
		}
		if rep != nil {
			r.mu.Lock()
			r.last = rep
			r.mu.Unlock()
			if r.ReportPath != "" {
				if werr := report.WriteFile(r.ReportPath, rep); werr != nil {
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
			if !complete {
				complete = true
				close(r.done)
				opts.Scope = takeoverScope(r.opts.Source.Owner, r.opts.Scope)
				opts.IncompleteAge = r.IncompleteGrace
			}
			if r.Interval <= 0 {
				return nil
			}
		}
		wait := r.RetryInterval
		if complete && r.Interval > 0 {
			wait = r.Interval
		}
		if !sleep(ctx, wait) {
			return nil
		}
	}
}

// takeoverScope limits the passes after the first complete one to intents
// that this process is not running now: any owner but self's epoch, that
// scope (if any) accepts. An unknown owner (an incomplete create with no
// intent) passes to scope; Options.IncompleteAge holds it back until the
// reconcile that left it must have ended.
func takeoverScope(self journal.Owner, scope func(journal.Intent) bool) func(journal.Intent) bool {
	return func(in journal.Intent) bool {
		if in.Owner.Epoch != "" && in.Owner.Epoch == self.Epoch {
			return false
		}
		return scope == nil || scope(in)
	}
}
