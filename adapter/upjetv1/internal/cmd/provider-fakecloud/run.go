package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	xpcontroller "github.com/crossplane/crossplane-runtime/pkg/controller"
	"github.com/crossplane/crossplane-runtime/pkg/feature"
	"github.com/crossplane/crossplane-runtime/pkg/logging"
	"github.com/crossplane/crossplane-runtime/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/pkg/statemetrics"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/apis"
	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/clients"
	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/config"
	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/controller"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/recovery"
)

// Exit codes of provider-fakecloud.
const (
	exitOK    = 0 // clean shutdown, e.g. on SIGTERM
	exitError = 1 // the manager could not be built or failed while running
	exitUsage = 2 // bad flags
)

// leaderElectionID is the Lease name the provider's replicas compete for.
const leaderElectionID = "crossplane-leader-election-provider-fakecloud"

// options holds the flags of provider-fakecloud.
type options struct {
	kubeconfig               string
	syncPeriod               time.Duration
	pollInterval             time.Duration
	pollStateMetricInterval  time.Duration
	maxReconcileRate         int
	leaderElection           bool
	leaderElectionNamespace  string
	metricsBindAddress       string
	enableManagementPolicies bool
	debug                    bool
	// deleteOrphans sets recovery's delete-orphans policy.
	deleteOrphans bool
	// journal, when set, makes the create path crash-safe with the intent
	// journal at this path; empty runs upjet's create path unwrapped.
	journal string
	// annotationOnly makes creates crash-safe with the intent annotation
	// as the only record, for pods with no persistent volume.
	annotationOnly bool
	replica, shard string
	// recoveryReport receives the report of every recovery pass.
	recoveryReport string
	// logAPIWrites logs every write request to the API server, for tests
	// that count API writes per create.
	logAPIWrites bool
	// scale holds the scale-out flags (see scaleout.go).
	scale scaleOutFlags
	// reconcileTimeout is the managed reconcilers' timeout.
	reconcileTimeout time.Duration
	// kubeQPS and kubeBurst are the API server client's rate limits.
	kubeQPS   float64
	kubeBurst int
}

// parseFlags parses args into options. Usage and errors go to out.
func parseFlags(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("provider-fakecloud", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Empty means $KUBECONFIG, the in-cluster config, or ~/.kube/config.")
	fs.DurationVar(&o.syncPeriod, "sync", time.Hour, "Controller manager cache sync period, e.g. 300ms, 1.5h or 2h45m.")
	fs.DurationVar(&o.pollInterval, "poll", 10*time.Minute, "How often an individual resource is checked for drift.")
	fs.DurationVar(&o.pollStateMetricInterval, "poll-state-metric", 5*time.Second, "State metric recording interval.")
	fs.IntVar(&o.maxReconcileRate, "max-reconcile-rate", 10, "The global maximum rate per second at which resources may be checked for drift from the desired state.")
	fs.BoolVar(&o.leaderElection, "leader-election", false, "Use leader election for the controller manager.")
	fs.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "crossplane-system", "Namespace of the leader election Lease; used with --leader-election outside a cluster.")
	fs.StringVar(&o.metricsBindAddress, "metrics-bind-address", "127.0.0.1:8080", `Address the Prometheus metrics endpoint binds to; "0" disables it.`)
	fs.BoolVar(&o.enableManagementPolicies, "enable-management-policies", true, "Enable support for Management Policies.")
	fs.BoolVar(&o.debug, "debug", false, "Run with debug logging.")
	fs.StringVar(&o.journal, "journal", "", "Path of the intent journal that makes creates crash-safe (on a persistent volume). Empty runs without it.")
	fs.BoolVar(&o.annotationOnly, "annotation-only", false, "Make creates crash-safe without a journal: the intent annotation, patched before every dispatch, is the only record (weaker; see docs/scale-out.md). Excludes --journal.")
	fs.StringVar(&o.replica, "replica", "", "Replica name written into create intents (default: the host name). Used with --journal or --annotation-only.")
	fs.StringVar(&o.shard, "shard", "", "Shard this replica serves, written into create intents. Used with --journal or --annotation-only.")
	fs.StringVar(&o.recoveryReport, "recovery-report", "", "File that receives the report of every recovery pass. Used with --journal or --annotation-only.")
	fs.BoolVar(&o.deleteOrphans, "delete-orphans", false, "Let recovery delete orphaned cloud resources proven ours by a UID tag, intent ID or recorded ID (never crossplane tags alone, never a look-alike). Used with --journal or --annotation-only.")
	fs.BoolVar(&o.logAPIWrites, "log-api-writes", false, "Log every write request to the API server at info level.")
	fs.Float64Var(&o.kubeQPS, "kube-api-qps", defaultQPS, "Client-side limit of requests per second to the API server (controller-runtime's default, 20).")
	fs.IntVar(&o.kubeBurst, "kube-api-burst", defaultBurst, "Client-side burst of requests to the API server (controller-runtime's default, 30).")
	fs.StringVar(&o.scale.shardName, "shard-name", "", "Serve only the label shard of this name: the cache lists and watches only managed resources labelled --shard-label=NAME, and leader election (with --leader-election) is per shard.")
	fs.StringVar(&o.scale.shardLabel, "shard-label", "intentjournal.io/shard", "Label key that assigns managed resources to shards; used with --shard-name.")
	fs.IntVar(&o.scale.buckets, "buckets", 0, "Split managed resources into this many FNV-32a hash buckets, each owned through a Lease; every replica takes its fair share. 0 disables.")
	fs.StringVar(&o.scale.bucketLeaseNamespace, "bucket-lease-namespace", "crossplane-system", "Namespace of the bucket, member and create Leases; used with --buckets.")
	fs.BoolVar(&o.scale.createLease, "create-lease", false, "Hold a Lease per managed resource from before each create until it ends, so two replicas never create one resource at once.")
	fs.StringVar(&o.scale.leaderElectionID, "leader-election-id", "", "Name of the leader-election Lease (default: "+leaderElectionID+", or "+leaderElectionID+"-shard-NAME with --shard-name).")
	fs.DurationVar(&o.scale.leaseDuration, "lease-duration", 60*time.Second, "Duration of the leader-election, bucket, member and create Leases.")
	fs.DurationVar(&o.scale.recoveryInterval, "recovery-interval", 0, "Keep running recovery passes this often after the first, to take over intents of peers found dead (default with --buckets: --lease-duration).")
	fs.DurationVar(&o.scale.recoveryRetry, "recovery-retry-interval", 0, "Wait between recovery passes that left something unresolved (default 30s).")
	fs.DurationVar(&o.reconcileTimeout, "reconcile-timeout", upjetv1.DefaultReconcileTimeout, "Timeout of the managed reconcilers. Recovery passes after the first resolve a create left incomplete with no intent once its pending mark is this plus 35s old. Used with --journal or --annotation-only.")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.maxReconcileRate < 1 {
		return o, fmt.Errorf("--max-reconcile-rate must be at least 1, got %d", o.maxReconcileRate)
	}
	if o.pollInterval <= 0 {
		return o, fmt.Errorf("--poll must be positive, got %s", o.pollInterval)
	}
	if o.journal != "" && o.annotationOnly {
		return o, errors.New("--annotation-only runs without a journal; drop --journal")
	}
	if !o.intents() && (o.replica != "" || o.shard != "" || o.recoveryReport != "" || o.reconcileTimeout != upjetv1.DefaultReconcileTimeout || o.deleteOrphans) {
		return o, errors.New("--replica, --shard, --recovery-report, --reconcile-timeout and --delete-orphans need --journal or --annotation-only")
	}
	if o.reconcileTimeout <= 0 {
		return o, fmt.Errorf("--reconcile-timeout must be positive, got %s", o.reconcileTimeout)
	}
	if o.kubeQPS <= 0 || o.kubeBurst <= 0 {
		return o, fmt.Errorf("--kube-api-qps and --kube-api-burst must be positive, got %g and %d", o.kubeQPS, o.kubeBurst)
	}
	if err := o.validateScaleOut(); err != nil {
		return o, err
	}
	return o, nil
}

// intents reports whether the create path records intents: with a journal
// or in annotation-only mode.
func (o options) intents() bool { return o.journal != "" || o.annotationOnly }

// runMain parses args, runs the provider until ctx is done, and returns the
// process exit code. Logs go to stderr as JSON.
func runMain(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "provider-fakecloud: %v\n", err)
		return exitUsage
	}
	zl := newLogger(stderr, o.debug)
	defer zl.Sync() //nolint:errcheck // nothing useful to do on a failed flush of stderr
	if err := run(ctx, zl, o); err != nil {
		zl.Error("Provider failed", zap.Error(err))
		return exitError
	}
	zl.Info("Provider stopped")
	return exitOK
}

// newLogger returns a JSON zap logger writing to w.
func newLogger(w io.Writer, debug bool) *zap.Logger {
	level := zapcore.InfoLevel
	if debug {
		level = zapcore.DebugLevel
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.RFC3339NanoTimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), level)
	return zap.New(core).Named("provider-fakecloud")
}

// run builds the controller manager with the RecordSet, Network and
// ProviderConfig controllers and runs it until ctx is done. A cancelled ctx
// is a clean shutdown, not an error.
func run(ctx context.Context, zl *zap.Logger, o options) error {
	lr := zapr.NewLogger(zl)
	ctrl.SetLogger(lr)
	log := logging.NewLogrLogger(lr)

	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.kubeQPS), o.kubeBurst
	if o.logAPIWrites {
		cfg.WrapTransport = logWrites(zl.Named("api-writes"))
	}

	so, err := newScaleOut(cfg, o, zl)
	if err != nil {
		return err
	}
	// The scheme knows the managed kinds before the manager is built: a
	// label shard's cache options name them.
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add Kubernetes APIs to scheme: %w", err)
	}
	if err := apis.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add fakecloud APIs to scheme: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		LeaderElection:                      o.leaderElection,
		LeaderElectionID:                    leaderElectionID,
		LeaderElectionNamespace:             o.leaderElectionNamespace,
		LeaderElectionResourceLock:          resourcelock.LeasesResourceLock,
		LeaderElectionResourceLockInterface: so.lock,
		LeaderElectionReleaseOnCancel:       so.lock != nil,
		LeaseDuration:                       ptrTo(o.scale.leaseDuration),
		RenewDeadline:                       ptrTo(o.scale.leaseDuration * 5 / 6),
		RetryPeriod:                         ptrTo(min(2*time.Second, o.scale.leaseDuration/4)),
		Scheme:                              scheme,
		Cache:                               cache.Options{SyncPeriod: &o.syncPeriod, ByObject: so.byObject},
		Metrics:                             metricsserver.Options{BindAddress: o.metricsBindAddress},
		HealthProbeBindAddress:              "0",
	})
	if err != nil {
		return fmt.Errorf("cannot create controller manager: %w", err)
	}
	if err := apis.AddToScheme(mgr.GetScheme()); err != nil {
		return fmt.Errorf("cannot add fakecloud APIs to scheme: %w", err)
	}

	var popts []config.Option
	if o.intents() {
		popts = append(popts, config.WithUIDTag())
	}
	provider, err := config.GetProvider(popts...)
	if err != nil {
		return fmt.Errorf("cannot build upjet provider configuration: %w", err)
	}

	metricRecorder := managed.NewMRMetricRecorder()
	stateMetrics := statemetrics.NewMRStateMetrics()
	if err := metrics.Registry.Register(metricRecorder); err != nil {
		return fmt.Errorf("cannot register managed resource metrics: %w", err)
	}
	if err := metrics.Registry.Register(stateMetrics); err != nil {
		return fmt.Errorf("cannot register managed resource state metrics: %w", err)
	}

	opts := tjcontroller.Options{
		Options: xpcontroller.Options{
			Logger:                  log,
			GlobalRateLimiter:       ratelimiter.NewGlobal(o.maxReconcileRate),
			PollInterval:            o.pollInterval,
			MaxConcurrentReconciles: o.maxReconcileRate,
			Features:                &feature.Flags{},
			MetricOptions: &xpcontroller.MetricOptions{
				PollStateMetricInterval: o.pollStateMetricInterval,
				MRMetrics:               metricRecorder,
				MRStateMetrics:          stateMetrics,
			},
		},
		Provider:              provider,
		OperationTrackerStore: tjcontroller.NewOperationStore(log),
		SetupFn:               clients.TerraformSetupBuilder(tfprovider.New()),
	}
	if o.enableManagementPolicies {
		opts.Features.Enable(feature.EnableBetaManagementPolicies)
	}
	// intentjournal: open the journal (taking its lock) and add the
	// recovery pass before the manager starts.
	var ij *upjetv1.Adapter
	if o.intents() {
		ij, err = upjetv1.Setup(mgr, upjetv1.Config{
			JournalPath:           o.journal,
			AnnotationOnly:        o.annotationOnly,
			Replica:               so.owner.Replica,
			Shard:                 so.owner.Shard,
			Epoch:                 so.owner.Epoch,
			Scope:                 so.scope,
			Selector:              so.selector,
			CreateLocker:          so.locker,
			RecoveryInterval:      so.interval,
			Owns:                  so.owns,
			RecoveryAfter:         so.recoveryAfter,
			OwnsRecheck:           o.scale.leaseDuration / 3,
			RecoveryRetryInterval: o.scale.recoveryRetry,
			ReconcileTimeout:      o.reconcileTimeout,
			Kinds:                 fcrecovery.Kinds(),
			Finders:               controller.RecoveryFinders(mgr.GetAPIReader()),
			Deleters:              controller.RecoveryDeleters(mgr.GetAPIReader()),
			Policy:                recovery.Policy{DeleteOrphans: o.deleteOrphans},
			ReportPath:            o.recoveryReport,
			Logger:                zl,
			BeginHook:             beginFailpoint(),
		})
		if err != nil {
			return err
		}
	}
	if so.buckets != nil {
		if err := mgr.Add(so.buckets); err != nil {
			return fmt.Errorf("cannot add the bucket leases: %w", err)
		}
	}
	if err := controller.SetupWithJournal(mgr, opts, ij); err != nil {
		return fmt.Errorf("cannot set up fakecloud controllers: %w", err)
	}

	zl.Info("Starting provider",
		zap.Duration("sync-period", o.syncPeriod),
		zap.Duration("poll-interval", o.pollInterval),
		zap.Int("max-reconcile-rate", o.maxReconcileRate),
		zap.Bool("leader-election", o.leaderElection),
		zap.String("journal", o.journal),
		zap.Bool("annotation-only", o.annotationOnly),
		zap.Stringer("owner", so.owner),
		zap.String("shard-name", o.scale.shardName),
		zap.Int("buckets", o.scale.buckets),
		zap.Bool("create-lease", o.scale.createLease),
		zap.String("leader-election-lease", so.lockName),
		zap.String("host", cfg.Host))
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("cannot run controller manager: %w", err)
	}
	return nil
}

// Client-side rate limits of the API server client, as ctrl.GetConfig sets
// them, and the defaults of --kube-api-qps and --kube-api-burst. client-go's
// own defaults (5 QPS, burst 10) would throttle the managed reconciler's
// critical annotation updates for seconds.
const (
	defaultQPS   = 20
	defaultBurst = 30
)

// restConfig loads the API server configuration from path, or, when path is
// empty, the way controller-runtime does: $KUBECONFIG, in-cluster, then
// ~/.kube/config.
func restConfig(path string) (*rest.Config, error) {
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

func ptrTo[T any](v T) *T { return &v }
