package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/recovery"

	xpcontroller "github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
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

	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/apis"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/clients"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/config"
	controllercluster "github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/cluster"
	controllernamespaced "github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/namespaced"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/fwprovider"
	"github.com/intentjournal/intentjournal/internal/fakecloud/tfprovider"
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
	// logAPIWrites logs every write request to the API server, for tests
	// that count API writes per create.
	logAPIWrites bool
	// kubeQPS and kubeBurst are the API server client's rate limits.
	kubeQPS   float64
	kubeBurst int

	// journal, when set, makes the create path crash-safe with the intent
	// journal at this path; empty runs upjet's create path unwrapped.
	journal        string
	replica        string
	recoveryReport string
	// deleteOrphans sets recovery's delete-orphans policy.
	deleteOrphans bool
	// deterministicExternalName sets crossplane-runtime's
	// WithDeterministicExternalName on every managed reconciler.
	deterministicExternalName bool
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
	fs.BoolVar(&o.logAPIWrites, "log-api-writes", false, "Log every write request to the API server at info level.")
	fs.Float64Var(&o.kubeQPS, "kube-api-qps", defaultQPS, "Client-side limit of requests per second to the API server (controller-runtime's default, 20).")
	fs.IntVar(&o.kubeBurst, "kube-api-burst", defaultBurst, "Client-side burst of requests to the API server (controller-runtime's default, 30).")
	fs.StringVar(&o.journal, "journal", "", "Path of the intent journal that makes creates crash-safe (on a persistent volume). Empty runs without it.")
	fs.StringVar(&o.replica, "replica", "", "Replica name written into create intents (default: the host name). Used with --journal.")
	fs.StringVar(&o.recoveryReport, "recovery-report", "", "File that receives the report of every recovery pass. Used with --journal.")
	fs.BoolVar(&o.deleteOrphans, "delete-orphans", false, "Let recovery delete orphaned cloud resources proven ours by a UID tag, intent ID or recorded ID. Used with --journal.")
	fs.BoolVar(&o.deterministicExternalName, "deterministic-external-name", false, "Set crossplane-runtime's WithDeterministicExternalName: a create whose last attempt is incomplete goes ahead instead of stopping.")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.journal == "" && (o.replica != "" || o.recoveryReport != "" || o.deleteOrphans) {
		return o, errors.New("--replica, --recovery-report and --delete-orphans need --journal")
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
	if o.kubeQPS <= 0 || o.kubeBurst <= 0 {
		return o, fmt.Errorf("--kube-api-qps and --kube-api-burst must be positive, got %g and %d", o.kubeQPS, o.kubeBurst)
	}
	return o, nil
}

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

// run builds the controller manager with the controllers of both scopes
// (RecordSet, Network and the provider config kinds of each) and runs it
// until ctx is done. A cancelled ctx is a clean shutdown, not an error.
//
// Unlike upjet v2's generated main.go it does not gate the controllers on
// their CRDs (SafeStart): the test bed installs every CRD before the
// provider starts.
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

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add Kubernetes APIs to scheme: %w", err)
	}
	if err := apis.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add fakecloud APIs to scheme: %w", err)
	}
	leaseDuration := 60 * time.Second
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		LeaderElection:             o.leaderElection,
		LeaderElectionID:           leaderElectionID,
		LeaderElectionNamespace:    o.leaderElectionNamespace,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
		LeaseDuration:              &leaseDuration,
		Scheme:                     scheme,
		Cache:                      cache.Options{SyncPeriod: &o.syncPeriod},
		Metrics:                    metricsserver.Options{BindAddress: o.metricsBindAddress},
		HealthProbeBindAddress:     "0",
	})
	if err != nil {
		return fmt.Errorf("cannot create controller manager: %w", err)
	}

	metricRecorder := managed.NewMRMetricRecorder()
	stateMetrics := statemetrics.NewMRStateMetrics()
	if err := metrics.Registry.Register(metricRecorder); err != nil {
		return fmt.Errorf("cannot register managed resource metrics: %w", err)
	}
	if err := metrics.Registry.Register(stateMetrics); err != nil {
		return fmt.Errorf("cannot register managed resource state metrics: %w", err)
	}
	// One set of options per scope, as upjet v2's main.go builds
	// clusterOpts and namespacedOpts; they differ in the provider
	// configuration, whose resources carry each scope's group.
	scopeOptions := func(provider *ujconfig.Provider) tjcontroller.Options {
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
			SetupFn:               clients.TerraformSetupBuilder(tfprovider.New(), fwprovider.New()),
		}
		if o.enableManagementPolicies {
			opts.Features.Enable(feature.EnableBetaManagementPolicies)
		}
		return opts
	}
	// intentjournal: its tagger writes crossplane's tags, namespace
	// included (upjet v2.3.0's drops it), and the MR's UID.
	var popts []config.Option
	if o.journal != "" {
		popts = append(popts, config.WithTagger(upjetv2.TagInitializer))
	}
	clusterProvider, err := config.GetProvider(popts...)
	if err != nil {
		return fmt.Errorf("cannot build upjet provider configuration: %w", err)
	}
	namespacedProvider, err := config.GetProviderNamespaced(popts...)
	if err != nil {
		return fmt.Errorf("cannot build namespaced upjet provider configuration: %w", err)
	}
	// intentjournal: open the journal (taking its lock) and add the
	// recovery pass before the manager starts.
	var ij *upjetv2.Adapter
	if o.journal != "" {
		ij, err = upjetv2.Setup(mgr, upjetv2.Config{
			JournalPath: o.journal,
			Replica:     o.replica,
			Kinds:       append(fcrecovery.Kinds(), fcrecovery.KindsNamespaced()...),
			Finders:     controller.RecoveryFinders(mgr.GetAPIReader()),
			Deleters:    controller.RecoveryDeleters(mgr.GetAPIReader()),
			Policy:      recovery.Policy{DeleteOrphans: o.deleteOrphans},
			ReportPath:  o.recoveryReport,
			Logger:      zl,
		})
		if err != nil {
			return err
		}
	}
	if err := controllercluster.SetupWithJournal(mgr, scopeOptions(clusterProvider), ij, o.deterministicExternalName); err != nil {
		return fmt.Errorf("cannot set up cluster-scoped fakecloud controllers: %w", err)
	}
	if err := controllernamespaced.SetupWithJournal(mgr, scopeOptions(namespacedProvider), ij, o.deterministicExternalName); err != nil {
		return fmt.Errorf("cannot set up namespaced fakecloud controllers: %w", err)
	}

	zl.Info("Starting provider",
		zap.Duration("sync-period", o.syncPeriod),
		zap.Duration("poll-interval", o.pollInterval),
		zap.Int("max-reconcile-rate", o.maxReconcileRate),
		zap.Bool("leader-election", o.leaderElection),
		zap.String("journal", o.journal),
		zap.Bool("deterministic-external-name", o.deterministicExternalName),
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
