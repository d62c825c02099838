package upjetv1

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// Config configures Setup.
type Config struct {
	// JournalPath is the journal file, on a volume that survives the pod
	// (a PersistentVolume). Required.
	JournalPath string
	// Replica names this process (default: the host name); Shard the
	// shard it serves, if any. Both go into every intent's owner.
	Replica, Shard string
	// Kinds are the managed kinds the recovery pass scans for intent
	// annotations and incomplete creates.
	Kinds []schema.GroupVersionKind
	// Finders look up cloud resources per kind, for recovery and for
	// conflicts met by the create path.
	Finders map[schema.GroupKind]recovery.Finder
	// Deleters delete proven orphans under Policy.DeleteOrphans.
	Deleters map[schema.GroupKind]recovery.Deleter
	// Policy tunes recovery.
	Policy recovery.Policy
	// Classifier classifies failed creates; nil means
	// NewDefaultClassifier().
	Classifier Classifier
	// ReportPath, when set, receives the report of every recovery pass.
	ReportPath string
	// Logger logs every intent transition at info level; nil means none.
	Logger *zap.Logger
	// LockTimeout bounds the wait for the journal's file lock (default
	// journal.DefaultLockTimeout).
	LockTimeout time.Duration
	// BeginHook, when set, runs just before every journal Begin with the
	// intent about to be begun. An error from it fails the create closed,
	// exactly as a failed Begin does. It exists for fault injection.
	BeginHook func(ctx context.Context, in journal.Intent) error
}

// Adapter is the crash-safe create path shared by a provider's kinds: the
// journal, the recovery Gate and Resolver, the owner of this process's
// intents and the metrics. Kind returns the wrapper for one managed kind.
type Adapter struct {
	j          *journal.Journal
	kube       client.Client
	cache      client.Reader
	resolver   *recovery.Resolver
	recoverer  *recovery.Recoverer
	owner      journal.Owner
	classifier Classifier
	log        *zap.Logger
	metrics    *Metrics
	beginHook  func(ctx context.Context, in journal.Intent) error
}

// Setup makes a provider's create path crash-safe in one call, before the
// manager starts: it registers the metrics, opens the journal and takes
// its file lock (so a second live process on the same volume fails here,
// not later), and adds to mgr the recovery.Recoverer, whose Gate keeps
// every create blocked until the recovery pass has scanned, plus a
// runnable that closes the journal when the manager stops. Pass the
// returned Adapter to each kind's controller Setup (see Kind).
func Setup(mgr manager.Manager, c Config) (*Adapter, error) {
	if c.JournalPath == "" {
		return nil, errors.New("cannot set up intentjournal: a journal path is required")
	}
	log := c.Logger
	if log == nil {
		log = zap.NewNop()
	}
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
	if err := m.Register(metrics.Registry); err != nil {
		return nil, fmt.Errorf("cannot register intentjournal metrics: %w", err)
	}
	owner := journal.Owner{Replica: c.Replica, Shard: c.Shard, Epoch: journal.NewEpoch(time.Now())}
	kube, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("cannot create the recovery's API client: %w", err)
	}
	j, err := journal.Open(c.JournalPath,
		journal.WithLogger(log.Named("journal")),
		journal.WithCommitObserver(m.observeCommit),
		journal.WithLockTimeout(c.LockTimeout),
		journal.WithHolder(fmt.Sprintf("%s pid %d epoch %s", owner.Replica, os.Getpid(), owner.Epoch)))
	if err != nil {
		return nil, fmt.Errorf("cannot open the intent journal: %w", err)
	}
	ro := recovery.Options{
		Journal:  j,
		Client:   kube,
		Kinds:    c.Kinds,
		Finders:  c.Finders,
		Deleters: c.Deleters,
		Policy:   c.Policy,
		Recorder: mgr.GetEventRecorderFor("intentjournal"),
		Logger:   log,
		Source:   recovery.Source{Cluster: mgr.GetConfig().Host, Owner: owner},
	}
	rec := recovery.NewRecoverer(ro)
	rec.ReportPath = c.ReportPath
	ro.Gate = rec.Gate()
	res, err := recovery.NewResolver(ro)
	if err != nil {
		_ = j.Close()
		return nil, fmt.Errorf("cannot create the recovery resolver: %w", err)
	}
	a := &Adapter{
		j: j, kube: kube, cache: mgr.GetClient(), resolver: res, recoverer: rec, owner: owner,
		classifier: c.Classifier, log: log.Named("intentjournal"), metrics: m, beginHook: c.BeginHook,
	}
	a.recountOpen(context.Background())
	if err := mgr.Add(rec); err != nil {
		_ = j.Close()
		return nil, fmt.Errorf("cannot add the recovery runnable: %w", err)
	}
	if err := mgr.Add(&closer{a: a}); err != nil {
		_ = j.Close()
		return nil, fmt.Errorf("cannot add the journal closer: %w", err)
	}
	a.log.Info("intent journal open; creates wait for the recovery pass",
		zap.String("journal", c.JournalPath), zap.Stringer("owner", owner), zap.Int("kinds", len(c.Kinds)))
	return a, nil
}

// Journal returns the adapter's journal.
func (a *Adapter) Journal() *journal.Journal { return a.j }

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
func (a *Adapter) Close() error { return a.j.Close() }

// recountOpen sets the open-intents gauge from the journal.
func (a *Adapter) recountOpen(ctx context.Context) {
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
type closer struct{ a *Adapter }

func (c *closer) NeedLeaderElection() bool { return false }

func (c *closer) Start(ctx context.Context) error {
	select {
	case <-c.a.recoverer.Done():
		c.a.recountOpen(ctx)
	case <-ctx.Done():
	}
	<-ctx.Done()
	if err := c.a.j.Close(); err != nil {
		c.a.log.Warn("cannot close the intent journal", zap.Error(err))
	}
	return nil
}

var _ manager.LeaderElectionRunnable = (*closer)(nil)
