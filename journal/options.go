package journal

import (
	"os"
	"time"

	"github.com/go-logr/logr"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/internal/logging"
)

// Defaults for Open.
const (
	// DefaultLockTimeout is how long Open waits for another process to
	// release the journal's file lock before it returns ErrLocked. It is
	// long enough to ride out a rolling update in which the old pod is still
	// closing the journal, and short enough that a misconfiguration (two
	// live pods on one volume) is reported at once.
	DefaultLockTimeout = 10 * time.Second
	// DefaultMaxBatch bounds how many writes share one commit.
	DefaultMaxBatch = 1024
	// DefaultSlowCommit is the commit latency above which a warning is logged.
	DefaultSlowCommit = 500 * time.Millisecond
	// DefaultFileMode is the mode of a newly created journal file.
	DefaultFileMode os.FileMode = 0o600
)

// CommitObserver is told about every commit: how long the transaction took
// from start to the end of its fsync, how many writes it carried, and its
// error. It runs on the commit goroutine and must not block. Adapters use it
// to feed a commit-latency histogram without the journal importing a metrics
// library.
type CommitObserver func(d time.Duration, writes int, err error)

type options struct {
	logger      *zap.Logger
	lockTimeout time.Duration
	readOnly    bool
	maxBatch    int
	slowCommit  time.Duration
	fileMode    os.FileMode
	now         func() time.Time
	observer    CommitObserver
	holder      string
	cluster     string
}

func defaultOptions() options {
	return options{
		logger:      zap.NewNop(),
		lockTimeout: DefaultLockTimeout,
		maxBatch:    DefaultMaxBatch,
		slowCommit:  DefaultSlowCommit,
		fileMode:    DefaultFileMode,
		now:         time.Now,
		observer:    func(time.Duration, int, error) {},
	}
}

// Option configures Open. There is deliberately no option to skip fsync.
type Option func(*options)

// WithLogger sets the logger (zapr.NewLogger(z) for a zap.Logger z). The
// zero Logger logs nothing.
func WithLogger(l logr.Logger) Option {
	return func(o *options) { o.logger = logging.Zap(l) }
}

// WithLockTimeout sets how long Open waits for the file lock. Values <= 0
// mean DefaultLockTimeout: the journal never waits forever.
func WithLockTimeout(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			d = DefaultLockTimeout
		}
		o.lockTimeout = d
	}
}

// WithReadOnly opens the journal for inspection: a shared lock, no writes,
// no quarantine moves, and no holder file. A journal held by a running
// provider still reports ErrLocked, since bbolt's writer holds an exclusive
// lock.
func WithReadOnly() Option { return func(o *options) { o.readOnly = true } }

// WithMaxBatch bounds how many concurrent writes share one commit. Values
// < 1 mean DefaultMaxBatch.
func WithMaxBatch(n int) Option {
	return func(o *options) {
		if n < 1 {
			n = DefaultMaxBatch
		}
		o.maxBatch = n
	}
}

// WithSlowCommitThreshold sets the commit latency above which a warning is
// logged. Values <= 0 mean DefaultSlowCommit.
func WithSlowCommitThreshold(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			d = DefaultSlowCommit
		}
		o.slowCommit = d
	}
}

// WithCommitObserver sets a function told about every commit.
func WithCommitObserver(fn CommitObserver) Option {
	return func(o *options) {
		if fn != nil {
			o.observer = fn
		}
	}
}

// WithHolder sets the text written to the holder file beside the journal
// while it is open (default: "pid N on host H"). Another process that finds
// the journal locked names this holder in its LockedError.
func WithHolder(s string) Option { return func(o *options) { o.holder = s } }

// WithCluster binds the journal to the Kubernetes cluster with identity id
// (the UID of its kube-system namespace; see Owner.Cluster). A journal that
// records no cluster yet is bound to id when it is opened for writing. A
// journal bound to another cluster is refused: Open returns a
// *ClusterMismatchError naming both, and changes nothing in the file. Its
// intents name managed resources, by UID, of the cluster that wrote them;
// resolving them against another cluster could only clear or adopt the
// wrong things. An empty id checks nothing.
func WithCluster(id string) Option { return func(o *options) { o.cluster = id } }

// WithFileMode sets the mode of a newly created journal file.
func WithFileMode(m os.FileMode) Option { return func(o *options) { o.fileMode = m } }

// WithClock sets the clock used for timestamps. For tests.
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}
