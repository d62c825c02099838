package main

import (
	"context"
	"flag"
	"fmt"

	xpcontroller "github.com/crossplane/crossplane-runtime/pkg/controller"
	"github.com/crossplane/crossplane-runtime/pkg/feature"
	"github.com/crossplane/crossplane-runtime/pkg/logging"
	"github.com/crossplane/crossplane-runtime/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/pkg/statemetrics"
	ujconfig "github.com/crossplane/upjet/pkg/config"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/clients"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/controller"
)

// What the v1 line's provider-fakecloud adds to package providercmd: no
// flags of its own, the managed kinds, and the manager's setup.

// lineOptions holds the flags only this line has: none on v1.
type lineOptions struct{}

// addFlags registers the line's flags on fs.
func (*lineOptions) addFlags(*flag.FlagSet) {}

// managedObjects are the managed kinds a label shard's cache selects.
func managedObjects() []client.Object {
	return []client.Object{&v1alpha1.RecordSet{}, &v1alpha1.Network{}}
}

// run builds the controller manager with the RecordSet, Network and
// ProviderConfig controllers and runs it until ctx is done. A cancelled ctx
// is a clean shutdown, not an error.
func run(ctx context.Context, zl *zap.Logger, o providercmd.Options, l lineOptions) error {
	lr := zapr.NewLogger(zl)
	ctrl.SetLogger(lr)
	log := logging.NewLogrLogger(lr)

	cfg, err := providercmd.RestConfig(o.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.KubeQPS), o.KubeBurst
	if w := providercmd.LogRequests(zl, o.LogAPIWrites, o.LogAPIReads); w != nil {
		cfg.WrapTransport = w
	}

	so, err := providercmd.NewScaleOut(cfg, o, zl, managedObjects())
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
	mgr, err := ctrl.NewManager(cfg, providercmd.ManagerOptions(o, so, scheme))
	if err != nil {
		return fmt.Errorf("cannot create controller manager: %w", err)
	}
	// With --queue-socket, tests see what each controller's work queue
	// holds: everything below is built on the returned manager.
	if mgr, err = providercmd.FollowQueues(mgr, o, providercmd.TrackStandardQueue); err != nil {
		return err
	}
	if err := apis.AddToScheme(mgr.GetScheme()); err != nil {
		return fmt.Errorf("cannot add fakecloud APIs to scheme: %w", err)
	}

	var popts []config.Option
	if o.Intents() {
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
			GlobalRateLimiter:       ratelimiter.NewGlobal(o.MaxReconcileRate),
			PollInterval:            o.PollInterval,
			MaxConcurrentReconciles: o.MaxReconcileRate,
			Features:                &feature.Flags{},
			MetricOptions: &xpcontroller.MetricOptions{
				PollStateMetricInterval: o.PollStateMetricInterval,
				MRMetrics:               metricRecorder,
				MRStateMetrics:          stateMetrics,
			},
		},
		Provider:              provider,
		OperationTrackerStore: tjcontroller.NewOperationStore(log),
		SetupFn:               clients.TerraformSetupBuilder(tfprovider.New()),
	}
	if o.EnableManagementPolicies {
		opts.Features.Enable(feature.EnableBetaManagementPolicies)
	}
	// intentjournal: open the journal (taking its lock) and add the
	// recovery pass before the manager starts, with the finders derived
	// from the upjet configuration: both kinds are listed by tags, through
	// the fake cloud's inventory.
	var ij *upjetv1.Adapter
	if o.Intents() {
		finders, err := upjetv1.NewFinders(mgr.GetClient(), scheme, opts.SetupFn, []*ujconfig.Provider{provider},
			upjetv1.WithInventory(controller.RecoveryInventory(mgr.GetClient())),
			upjetv1.WithFindersLogger(lr))
		if err != nil {
			return err
		}
		c := providercmd.AdapterConfig(o, so, lr)
		c.Kinds, c.Finders, c.Deleters = finders.Kinds, finders.Finders, controller.RecoveryDeleters(mgr.GetClient())
		ij, err = upjetv1.Setup(mgr, c)
		if err != nil {
			return err
		}
	}
	if err := so.AddBuckets(ctx, mgr, ij.RequeueBucket); err != nil {
		return err
	}
	// With --hold-controllers the managed controllers start after the
	// first recovery pass.
	cmgr := mgr
	if o.HoldControllers { // a nil ij (no journal) holds nothing
		cmgr = providercmd.HoldControllers(mgr, ij.HoldUntilRecovered)
	}
	if err := controller.SetupWithJournal(cmgr, opts, ij); err != nil {
		return fmt.Errorf("cannot set up fakecloud controllers: %w", err)
	}

	return providercmd.Start(ctx, mgr, zl, o, so, cfg.Host)
}
