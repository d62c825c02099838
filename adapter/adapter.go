package adapter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Config configures Setup.
type Config struct {
	// JournalPath is the journal file, on a volume that survives the pod
	// (a PersistentVolume). Required unless AnnotationOnly is set.
	JournalPath string
	// AnnotationOnly runs without a journal, for pods with no persistent
	// volume: the intent annotation, patched onto the managed resource
	// before every dispatch, is the only record, and recovery works from
	// annotations alone. It is weaker than the journal (see
	// docs/scale-out.md): what a create made after its managed resource
	// was deleted is not reported, and a create that succeeded but whose
	// external name was not yet patched when the process died is found
	// again only through the kind's Finder. JournalPath must be empty.
	AnnotationOnly bool
	// Replica names this process (default: the host name); Shard the
	// shard it serves, if any. Both go into every intent's owner.
	Replica, Shard string
	// Epoch identifies this boot of the process in every intent's owner
	// (default journal.NewEpoch(time.Now())). Set it when the same epoch
	// must also go into a Lease's holderIdentity before Setup runs.
	Epoch string
	// ClusterID identifies the cluster the provider serves (default: the
	// UID of its kube-system namespace, read with recovery.ClusterID, which
	// needs get on namespaces/kube-system). It goes into every intent's
	// owner and the recovery report, and binds the journal: a journal
	// written for another cluster is refused, naming both.
	ClusterID string
	// Kinds are the managed kinds the recovery pass scans for intent
	// annotations and incomplete creates.
	Kinds []schema.GroupVersionKind
	// Finders look up cloud resources per kind, for recovery and for
	// conflicts met by the create path.
	Finders map[schema.GroupKind]recovery.Finder
	// Deleters delete proven orphans under Policy.DeleteOrphans.
	Deleters map[schema.GroupKind]recovery.Deleter
	// KeyProbes, per kind, read just before a create's intent is begun
	// whether the key the create will take is free (DerivedFinders.Probes
	// does, for observe-by-template kinds, with WithVacantKeys). A free
	// key goes into the intent as VacantKey: what sits at it after a
	// crash is then the create's own (recovery.ProofKeyVacant) when no
	// other managed resource holds or intends the key. A probe that fails
	// fails the create, which is retried.
	KeyProbes map[schema.GroupKind]KeyProbe
	// Policy tunes recovery.
	Policy recovery.Policy
	// Classifier classifies failed creates; nil means
	// NewDefaultClassifier().
	Classifier Classifier
	// ReportPath, when set, receives the report of every recovery pass.
	ReportPath string
	// Registry receives the adapter's metrics (default: controller-runtime's
	// metrics.Registry, served on the manager's metrics endpoint). A metric
	// of the same name registered already there is kept, and this
	// adapter's is not exported: give each Adapter in one process its own.
	Registry prometheus.Registerer
	// Logger logs every intent transition at info level; the zero Logger
	// logs nothing. zap is the backend: a zapr Logger's zap.Logger is used
	// as it is, any other Logger receives what zap writes.
	Logger logr.Logger
	// LockTimeout bounds the wait for the journal's file lock (default
	// journal.DefaultLockTimeout).
	LockTimeout time.Duration
	// BeginHook, when set, runs just before every journal Begin with the
	// intent about to be begun. An error from it fails the create closed,
	// exactly as a failed Begin does. It exists for fault injection.
	BeginHook func(ctx context.Context, in journal.Intent) error
	// Scope, when set, limits recovery (the Recoverer's passes and the
	// create path's own resolution of an earlier intent) to the intents
	// it returns true for: this process's own, and those whose owner is
	// provably dead (see package ownership). It becomes
	// recovery.Options.Scope. Nil resolves every intent found.
	Scope func(journal.Intent) bool
	// Selector, when set, limits the recovery's annotation scan to the
	// managed resources of this process's label shard.
	Selector labels.Selector
	// RecoveryInterval, when positive, keeps the Recoverer passing every
	// RecoveryInterval after its first complete pass, so a live shard
	// takes over the intents of a peer whose Lease expired.
	RecoveryInterval time.Duration
	// RecoveryRetryInterval, when positive, replaces the Recoverer's
	// wait between passes that left something unresolved (default 30s).
	RecoveryRetryInterval time.Duration
	// ReconcileTimeout is the managed reconcilers' timeout
	// (managed.WithTimeout); default DefaultReconcileTimeout, upjet's.
	// Passes after the first resolve a create left incomplete with no
	// intent only once its pending mark is older than this plus
	// crossplane-runtime's 30s reconcile grace: by then no reconcile that
	// could still record its result is running. Give each controller
	// Adapter.ReconcileTimeout so the two always agree.
	ReconcileTimeout time.Duration
	// CreateLocker, when set, is held around every create from before the
	// intent is begun until the create has ended (for an async create,
	// until its callback), so two replicas never create the same managed
	// resource at once, e.g. while it is relabeled to another shard.
	CreateLocker CreateLocker
	// Owns, when set, reports whether this process owns the managed
	// resource namespace/name now (a hash bucket it holds). Reconciler
	// then keeps every other resource from reaching the reconciler,
	// rechecking each OwnsRecheck (default 10s).
	Owns        func(namespace, name string) bool
	OwnsRecheck time.Duration
	// RecoveryAfter, when set, holds the Recoverer's first pass (and so
	// every create, which waits for it) until it is closed: with hash
	// buckets, until the replica holds its buckets, so that the pass
	// covers what its previous boot left in them.
	RecoveryAfter <-chan struct{}
}

// DefaultReconcileTimeout is the managed reconciler timeout of upjet's
// generated controllers (managed.WithTimeout(3*time.Minute)).
const DefaultReconcileTimeout = 3 * time.Minute

// Adapter is the crash-safe create path shared by a provider's kinds: the
// journal, the recovery Gate and Resolver, the owner of this process's
// intents and the metrics. Kind returns the create path of one managed
// kind, which a line's Kind wraps around the kind's connector and
// callbacks. A nil *Adapter wraps nothing: Kind returns nil,
// HoldUntilRecovered its manager, ReconcileTimeout the default, Requeue
// and RequeueBucket nothing.
type Adapter struct {
	j           *journal.Journal
	kube        client.Client
	cache       *typedCacheReader
	resolver    *recovery.Resolver
	recoverer   *recovery.Recoverer
	owner       journal.Owner
	classifier  Classifier
	log         *zap.Logger
	metrics     *Metrics
	beginHook   func(ctx context.Context, in journal.Intent) error
	probes      map[schema.GroupKind]KeyProbe
	scope       func(journal.Intent) bool
	line        Line
	locker      CreateLocker
	owns        func(namespace, name string) bool
	ownsRecheck time.Duration
	timeout     time.Duration
	// scheme builds the list types Requeue reads from cache.
	scheme *runtime.Scheme

	kmu   sync.Mutex
	kinds []*Kind // every Kind made, for Requeue
}

// Setup makes a provider's create path crash-safe in one call, before the
// manager starts: it registers the metrics, opens the journal and takes
// its file lock (so a second live process on the same volume fails here,
// not later), and adds to mgr the recovery.Recoverer, whose Gate keeps
// every create blocked until the recovery pass has scanned, plus a
// runnable that closes the journal when the manager stops. l is the
// crossplane line the provider runs (adapter/upjetv1 or adapter/upjetv2
// passes its own). Pass the returned Adapter to each kind's controller
// Setup (see Kind).
func Setup(mgr manager.Manager, c Config, l Line) (*Adapter, error) {
	switch {
	case l == nil:
		return nil, errors.New("cannot set up intentjournal: no crossplane line")
	case c.JournalPath == "" && !c.AnnotationOnly:
		return nil, errors.New("cannot set up intentjournal: a journal path is required unless AnnotationOnly is set")
	case c.JournalPath != "" && c.AnnotationOnly:
		return nil, errors.New("cannot set up intentjournal: AnnotationOnly runs without a journal; JournalPath must be empty")
	}
	log := logging.Zap(c.Logger)
	if c.Replica == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("cannot name the replica: %w", err)
		}
		c.Replica = h
	}
	if c.Classifier == nil {
		dc, err := NewDefaultClassifier()
		if err != nil {
			return nil, err
		}
		c.Classifier = dc
	}
	m := NewMetrics()
	if c.Registry == nil {
		c.Registry = metrics.Registry
	}
	if err := m.Register(c.Registry); err != nil {
		return nil, fmt.Errorf("cannot register intentjournal metrics: %w", err)
	}
	if c.Epoch == "" {
		c.Epoch = journal.NewEpoch(time.Now())
	}
	kube, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("cannot create the recovery's API client: %w", err)
	}
	if c.ClusterID == "" {
		ctx, cancel := context.WithTimeout(context.Background(), clusterIDTimeout)
		c.ClusterID, err = recovery.ClusterID(ctx, kube)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("cannot set up intentjournal: %w", err)
		}
	}
	owner := journal.Owner{Replica: c.Replica, Shard: c.Shard, Epoch: c.Epoch, Cluster: c.ClusterID}
	var j *journal.Journal
	if !c.AnnotationOnly {
		j, err = journal.Open(c.JournalPath,
			journal.WithCluster(c.ClusterID),
			journal.WithLogger(zapr.NewLogger(log.Named("journal"))),
			journal.WithCommitObserver(m.observeCommit),
			journal.WithLockTimeout(c.LockTimeout),
			journal.WithHolder(fmt.Sprintf("%s pid %d epoch %s", owner.Replica, os.Getpid(), owner.Epoch)))
		if err != nil {
			return nil, fmt.Errorf("cannot open the intent journal: %w", err)
		}
	}
	cached := typedCacheReader{cache: mgr.GetClient(), scheme: mgr.GetScheme()}
	ro := recovery.Options{
		Journal: j,
		Client:  kube,
		// The pass runs as a leader-elected runnable, after the manager's
		// caches started; each managed resource it reads is in them.
		Reader:   cached,
		Kinds:    c.Kinds,
		Finders:  c.Finders,
		Deleters: c.Deleters,
		Policy:   c.Policy,
		Recorder: l.EventRecorder(mgr, "intentjournal"),
		Logger:   zapr.NewLogger(log),
		Source:   report.Source{Cluster: mgr.GetConfig().Host, ClusterUID: c.ClusterID, Owner: owner},
		Scope:    c.Scope,
		Selector: c.Selector,
	}
	rec := recovery.NewRecoverer(ro)
	rec.ReportPath = c.ReportPath
	rec.Interval = c.RecoveryInterval
	if c.ReconcileTimeout <= 0 {
		c.ReconcileTimeout = DefaultReconcileTimeout
	}
	rec.IncompleteGrace = recovery.IncompleteGraceFor(c.ReconcileTimeout)
	if c.RecoveryRetryInterval > 0 {
		rec.RetryInterval = c.RecoveryRetryInterval
	}
	ro.Gate, ro.Sightings = rec.Gate(), rec.Sightings()
	res, err := recovery.NewResolver(ro)
	if err != nil {
		closeJournal(j)
		return nil, fmt.Errorf("cannot create the recovery resolver: %w", err)
	}
	a := &Adapter{
		j: j, kube: kube, cache: &cached, scheme: mgr.GetScheme(), resolver: res, recoverer: rec, owner: owner,
		classifier: c.Classifier, log: log.Named("intentjournal"), metrics: m, beginHook: c.BeginHook, probes: c.KeyProbes,
		scope: c.Scope, line: l, locker: c.CreateLocker, owns: c.Owns, ownsRecheck: c.OwnsRecheck, timeout: c.ReconcileTimeout,
	}
	if a.ownsRecheck <= 0 {
		a.ownsRecheck = 10 * time.Second
	}
	a.recountOpen(context.Background())
	var runRec manager.Runnable = rec
	if c.RecoveryAfter != nil {
		runRec = &after{wait: c.RecoveryAfter, r: rec}
	}
	if err := mgr.Add(runRec); err != nil {
		closeJournal(j)
		return nil, fmt.Errorf("cannot add the recovery runnable: %w", err)
	}
	if err := mgr.Add(&closer{a: a, mgr: mgr}); err != nil {
		closeJournal(j)
		return nil, fmt.Errorf("cannot add the journal closer: %w", err)
	}
	register(mgr, a)
	if c.AnnotationOnly {
		a.log.Info("annotation-only mode: the intent annotation is the only record; creates wait for the recovery pass",
			zap.Stringer("owner", owner), zap.Int("kinds", len(c.Kinds)))
		return a, nil
	}
	a.log.Info("intent journal open; creates wait for the recovery pass",
		zap.String("journal", c.JournalPath), zap.Stringer("owner", owner), zap.Int("kinds", len(c.Kinds)))
	return a, nil
}

// warnUnwrapped warns when no managed kind has been wrapped by the time
// the first recovery pass ends: the journal is open but no create goes
// through it. That is a provider whose controllers were set up with a
// manager FromManager cannot see through (wrapped again), or whose
// generated controllers were made without the intentjournal template. A
// kind set up later (upjet's SetupGated, when its CRD appears) still
// registers then.
func (a *Adapter) warnUnwrapped() {
	a.kmu.Lock()
	n := len(a.kinds)
	a.kmu.Unlock()
	if n == 0 {
		a.log.Warn("no managed kind is wrapped: creates do not go through the intent journal; " +
			"set up the controllers with the manager HoldUntilRecovered returns, or the one given to Setup")
	}
}

// clusterIDTimeout bounds Setup's read of the cluster's identity.
const clusterIDTimeout = 30 * time.Second

// closeJournal closes j, if any, on a failed Setup.
func closeJournal(j *journal.Journal) {
	if j != nil {
		_ = j.Close()
	}
}

// Journal returns the adapter's journal, or nil in annotation-only mode.
func (a *Adapter) Journal() *journal.Journal { return a.j }

// ReconcileTimeout returns the managed reconciler timeout the recovery
// assumes (Config.ReconcileTimeout); pass it to managed.WithTimeout. A nil
// Adapter, one that wraps nothing, returns DefaultReconcileTimeout.
func (a *Adapter) ReconcileTimeout() time.Duration {
	if a == nil {
		return DefaultReconcileTimeout
	}
	return a.timeout
}

// Line returns the crossplane line Setup was given; nil for a nil a. A
// line's package reads back what its own Setup put in it.
func (a *Adapter) Line() Line {
	if a == nil {
		return nil
	}
	return a.line
}

// AnnotationOnly reports whether the adapter runs without a journal.
func (a *Adapter) AnnotationOnly() bool { return a.j == nil }

// Gate returns the recovery Gate the create path consults.
func (a *Adapter) Gate() *recovery.Gate { return a.recoverer.Gate() }

// Recoverer returns the recovery runnable Setup added to the manager.
func (a *Adapter) Recoverer() *recovery.Recoverer { return a.recoverer }

// recoveryDone reports whether the recovery pass has finished with nothing
// unresolved (and so will not run again).
func (a *Adapter) recoveryDone() bool {
	select {
	case <-a.recoverer.Done():
		return true
	default:
		return false
	}
}

// Owner returns the owner this process writes into its intents.
func (a *Adapter) Owner() journal.Owner { return a.owner }

// Close closes the journal. The manager closes it when it stops; Close is
// for callers that never started the manager.
func (a *Adapter) Close() error {
	if a.j == nil {
		return nil
	}
	return a.j.Close()
}

// recountOpen sets the open-intents gauge from the journal. In
// annotation-only mode the gauge counts only this process's transitions.
func (a *Adapter) recountOpen(ctx context.Context) {
	if a.j == nil {
		return
	}
	n := 0
	for _, err := range a.j.Unsettled(ctx) {
		var ce *journal.CorruptError
		if err == nil || errors.As(err, &ce) {
			n++
		}
	}
	a.metrics.Open.Set(float64(n))
}

// closer recounts the open intents once recovery is done and closes the
// journal when the manager stops. It runs on every replica.
type closer struct {
	a   *Adapter
	mgr manager.Manager
}

func (c *closer) NeedLeaderElection() bool { return false }

func (c *closer) Start(ctx context.Context) error {
	select {
	case <-c.a.recoverer.Done():
		c.a.recountOpen(ctx)
		c.a.warnUnwrapped()
	case <-ctx.Done():
	}
	<-ctx.Done()
	unregister(c.mgr, c.a)
	if c.a.j == nil {
		return nil
	}
	if err := c.a.j.Close(); err != nil {
		c.a.log.Warn("cannot close the intent journal", zap.Error(err))
	}
	return nil
}

var _ manager.LeaderElectionRunnable = (*closer)(nil)
