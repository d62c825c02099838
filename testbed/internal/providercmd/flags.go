package providercmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter"
)

// Exit codes of provider-fakecloud (RunMain).
const (
	ExitOK    = 0 // clean shutdown, e.g. on SIGTERM
	ExitError = 1 // the manager could not be built or failed while running
	ExitUsage = 2 // bad flags
	// ExitPriorityQueueHang: the graceful stop hung in controller-runtime's
	// priority queue, an upstream deadlock (ErrPriorityQueueHang), after
	// everything of intentjournal's had stopped. internal/testbed's
	// ExitPriorityQueueHang is the same number.
	ExitPriorityQueueHang = 3
)

// LeaderElectionID is the Lease name the provider's replicas compete for.
const LeaderElectionID = "crossplane-leader-election-provider-fakecloud"

// Options holds the flags of provider-fakecloud that both lines have; a
// line registers its own (RunMain's addFlags).
type Options struct {
	Kubeconfig               string
	SyncPeriod               time.Duration
	PollInterval             time.Duration
	PollStateMetricInterval  time.Duration
	MaxReconcileRate         int
	LeaderElection           bool
	LeaderElectionNamespace  string
	MetricsBindAddress       string
	PprofBindAddress         string
	EnableManagementPolicies bool
	Debug                    bool
	// DeleteOrphans sets recovery's delete-orphans policy.
	DeleteOrphans bool
	// RecoveryConcurrency is how many intents a recovery pass resolves at
	// once.
	RecoveryConcurrency int
	// Journal, when set, makes the create path crash-safe with the intent
	// journal at this path; empty runs upjet's create path unwrapped.
	Journal string
	// AnnotationOnly makes creates crash-safe with the intent annotation
	// as the only record, for pods with no persistent volume.
	AnnotationOnly bool
	Replica, Shard string
	// RecoveryReport receives the report of every recovery pass.
	RecoveryReport string
	// LogAPIWrites logs every write request to the API server, for tests
	// that count API writes per create.
	LogAPIWrites bool
	// LogAPIReads logs every read request to the API server, for
	// attributing a recovery pass's LISTs.
	LogAPIReads bool
	// QueueSocket, when set, is the unix socket on which the provider
	// serves what its controllers' work queues hold (QueueTracker), for
	// tests that must know it has nothing left to do.
	QueueSocket string
	// Scale holds the scale-out flags (see scaleout.go).
	Scale ScaleOutFlags
	// ReconcileTimeout is the managed reconcilers' timeout.
	ReconcileTimeout time.Duration
	// HoldControllers starts the managed controllers only after the first
	// recovery pass (the line's Adapter.HoldUntilRecovered).
	HoldControllers bool
	// KubeQPS and KubeBurst are the API server client's rate limits.
	KubeQPS   float64
	KubeBurst int
}

// ParseFlags parses args into Options, and into the flags addFlags, when
// set, registers (a line's own). Usage and errors go to out.
func ParseFlags(args []string, out io.Writer, addFlags func(*flag.FlagSet)) (Options, error) {
	var o Options
	fs := flag.NewFlagSet(progName(), flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Empty means $KUBECONFIG, the in-cluster config, or ~/.kube/config.")
	fs.DurationVar(&o.SyncPeriod, "sync", time.Hour, "Controller manager cache sync period, e.g. 300ms, 1.5h or 2h45m.")
	fs.DurationVar(&o.PollInterval, "poll", 10*time.Minute, "How often an individual resource is checked for drift.")
	fs.DurationVar(&o.PollStateMetricInterval, "poll-state-metric", 5*time.Second, "State metric recording interval.")
	fs.IntVar(&o.MaxReconcileRate, "max-reconcile-rate", 10, "The global maximum rate per second at which resources may be checked for drift from the desired state.")
	fs.BoolVar(&o.LeaderElection, "leader-election", false, "Use leader election for the controller manager.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", "crossplane-system", "Namespace of the leader election Lease; used with --leader-election outside a cluster.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", "127.0.0.1:8080", `Address the Prometheus metrics endpoint binds to; "0" disables it.`)
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", "", `Address the pprof endpoint (/debug/pprof/) binds to, e.g. 127.0.0.1:6060; empty or "0" disables it.`)
	fs.BoolVar(&o.EnableManagementPolicies, "enable-management-policies", true, "Enable support for Management Policies.")
	fs.BoolVar(&o.Debug, "debug", false, "Run with debug logging.")
	fs.StringVar(&o.Journal, "journal", "", "Path of the intent journal that makes creates crash-safe (on a persistent volume). Empty runs without it.")
	fs.BoolVar(&o.AnnotationOnly, "annotation-only", false, "Make creates crash-safe without a journal: the intent annotation, patched before every dispatch, is the only record (weaker; see docs/scale-out.md). Excludes --journal.")
	fs.StringVar(&o.Replica, "replica", "", "Replica name written into create intents (default: the host name). Used with --journal or --annotation-only.")
	fs.StringVar(&o.Shard, "shard", "", "Shard this replica serves, written into create intents. Used with --journal or --annotation-only.")
	fs.StringVar(&o.RecoveryReport, "recovery-report", "", "File that receives the report of every recovery pass. Used with --journal or --annotation-only.")
	fs.IntVar(&o.RecoveryConcurrency, "recovery-concurrency", 16, "How many intents a recovery pass resolves at once. Used with --journal or --annotation-only.")
	fs.BoolVar(&o.DeleteOrphans, "delete-orphans", false, "Let recovery delete orphaned cloud resources proven ours by a UID tag, intent ID or recorded ID (never crossplane tags alone, never a look-alike). Used with --journal or --annotation-only.")
	fs.BoolVar(&o.LogAPIWrites, "log-api-writes", false, "Log every write request to the API server at info level.")
	fs.BoolVar(&o.LogAPIReads, "log-api-reads", false, "Log every read request (GET, LIST, WATCH) to the API server at info level, with its query.")
	fs.StringVar(&o.QueueSocket, "queue-socket", "", "Serve what the controllers' work queues hold for each object, as JSON, on this unix socket (for tests).")
	fs.Float64Var(&o.KubeQPS, "kube-api-qps", defaultQPS, "Client-side limit of requests per second to the API server (controller-runtime's default, 20).")
	fs.IntVar(&o.KubeBurst, "kube-api-burst", defaultBurst, "Client-side burst of requests to the API server (controller-runtime's default, 30).")
	fs.StringVar(&o.Scale.ShardName, "shard-name", "", "Serve only the label shard of this name: the cache lists and watches only managed resources labelled --shard-label=NAME, and leader election (with --leader-election) is per shard.")
	fs.StringVar(&o.Scale.ShardLabel, "shard-label", "intentjournal.io/shard", "Label key that assigns managed resources to shards; used with --shard-name.")
	fs.IntVar(&o.Scale.Buckets, "buckets", 0, "Split managed resources into this many FNV-32a hash buckets, each owned through a Lease; every replica takes its fair share. 0 disables.")
	fs.StringVar(&o.Scale.BucketLeaseNamespace, "bucket-lease-namespace", "crossplane-system", "Namespace of the bucket, member and create Leases; used with --buckets.")
	fs.BoolVar(&o.Scale.CreateLease, "create-lease", false, "Hold a Lease per managed resource from before each create until it ends, so two replicas never create one resource at once.")
	fs.StringVar(&o.Scale.LeaderElectionID, "leader-election-id", "", "Name of the leader-election Lease (default: "+LeaderElectionID+", or "+LeaderElectionID+"-shard-NAME with --shard-name).")
	fs.DurationVar(&o.Scale.LeaseDuration, "lease-duration", 60*time.Second, "Duration of the leader-election, bucket, member and create Leases.")
	fs.DurationVar(&o.Scale.RecoveryInterval, "recovery-interval", 0, "Keep running recovery passes this often after the first, to take over intents of peers found dead (default with --buckets: --lease-duration).")
	fs.DurationVar(&o.Scale.RecoveryRetry, "recovery-retry-interval", 0, "Wait between recovery passes that left something unresolved (default 30s).")
	fs.DurationVar(&o.ReconcileTimeout, "reconcile-timeout", adapter.DefaultReconcileTimeout, "Timeout of the managed reconcilers. Recovery passes after the first resolve a create left incomplete with no intent once its pending mark is this plus 35s old. Used with --journal or --annotation-only.")
	fs.BoolVar(&o.HoldControllers, "hold-controllers", false, "Start the managed controllers only after the first recovery pass has run, so the pass does not share the API server with their reconciles. Without --journal or --annotation-only there is no pass, and it does nothing.")
	if addFlags != nil {
		addFlags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.MaxReconcileRate < 1 {
		return o, fmt.Errorf("--max-reconcile-rate must be at least 1, got %d", o.MaxReconcileRate)
	}
	if o.PollInterval <= 0 {
		return o, fmt.Errorf("--poll must be positive, got %s", o.PollInterval)
	}
	if o.Journal != "" && o.AnnotationOnly {
		return o, errors.New("--annotation-only runs without a journal; drop --journal")
	}
	if o.RecoveryConcurrency < 1 {
		return o, fmt.Errorf("--recovery-concurrency must be at least 1, got %d", o.RecoveryConcurrency)
	}
	if !o.Intents() && (o.Replica != "" || o.Shard != "" || o.RecoveryReport != "" || o.ReconcileTimeout != adapter.DefaultReconcileTimeout || o.DeleteOrphans) {
		return o, errors.New("--replica, --shard, --recovery-report, --reconcile-timeout and --delete-orphans need --journal or --annotation-only")
	}
	if o.ReconcileTimeout <= 0 {
		return o, fmt.Errorf("--reconcile-timeout must be positive, got %s", o.ReconcileTimeout)
	}
	if o.KubeQPS <= 0 || o.KubeBurst <= 0 {
		return o, fmt.Errorf("--kube-api-qps and --kube-api-burst must be positive, got %g and %d", o.KubeQPS, o.KubeBurst)
	}
	if err := o.validateScaleOut(); err != nil {
		return o, err
	}
	return o, nil
}

// Intents reports whether the create path records intents: with a journal
// or in annotation-only mode.
func (o Options) Intents() bool { return o.Journal != "" || o.AnnotationOnly }

// RunMain parses args (with addFlags, as ParseFlags), runs the provider
// with run until ctx is done, and returns the process exit code. Logs go
// to stderr as JSON.
func RunMain(ctx context.Context, args []string, stderr io.Writer, addFlags func(*flag.FlagSet),
	run func(ctx context.Context, zl *zap.Logger, o Options) error) int {
	o, err := ParseFlags(args, stderr, addFlags)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", progName(), err)
		return ExitUsage
	}
	zl := NewLogger(stderr, o.Debug)
	defer zl.Sync() //nolint:errcheck // nothing useful to do on a failed flush of stderr
	if err := run(ctx, zl, o); err != nil {
		zl.Error("Provider failed", zap.Error(err))
		if errors.Is(err, ErrPriorityQueueHang) {
			return ExitPriorityQueueHang
		}
		return ExitError
	}
	zl.Info("Provider stopped")
	return ExitOK
}

// NewLogger returns a JSON zap logger writing to w, at debug level with
// debug.
func NewLogger(w io.Writer, debug bool) *zap.Logger {
	level := zapcore.InfoLevel
	if debug {
		level = zapcore.DebugLevel
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.RFC3339NanoTimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), level)
	return zap.New(core).Named(progName())
}

// Client-side rate limits of the API server client, as ctrl.GetConfig sets
// them, and the defaults of --kube-api-qps and --kube-api-burst. client-go's
// own defaults (5 QPS, burst 10) would throttle the managed reconciler's
// critical annotation updates for seconds.
const (
	defaultQPS   = 20
	defaultBurst = 30
)

// RestConfig loads the API server configuration from path, or, when path is
// empty, the way controller-runtime does: $KUBECONFIG, in-cluster, then
// ~/.kube/config.
func RestConfig(path string) (*rest.Config, error) {
	if path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("cannot load kubeconfig %q: %w", path, err)
		}
		return cfg, nil
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot get API server rest config: %w", err)
	}
	return cfg, nil
}

// progName is the name the provider runs as, which names its flag set and
// logger: provider-fakecloud, provider-gcpdns.
func progName() string {
	if len(os.Args) == 0 || os.Args[0] == "" {
		return "provider"
	}
	return filepath.Base(os.Args[0])
}
