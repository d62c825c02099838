package main

import (
	"context"
	"fmt"

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
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/apis/cluster"
	clusterdns "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/cluster/dns/v1beta2"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced"
	namespaceddns "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/dns/v1beta1"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/clients"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/config"
	clustercontroller "github.com/intentjournal/intentjournal/testbed/gcpdns/internal/controller/cluster"
	namespacedcontroller "github.com/intentjournal/intentjournal/testbed/gcpdns/internal/controller/namespaced"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

// managedObjects returns an object of every managed kind, both scopes.
func managedObjects() []client.Object {
	return []client.Object{
		&clusterdns.ManagedZone{}, &clusterdns.RecordSet{},
		&namespaceddns.ManagedZone{}, &namespaceddns.RecordSet{},
	}
}

// run builds the controller manager with the generated controllers of both
// scopes and runs it until ctx is done. A cancelled ctx is a clean
// shutdown, not an error. The intentjournal lines are marked: without
// them the provider is upjet's as generated.
func run(ctx context.Context, zl *zap.Logger, o providercmd.Options) error {
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
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add Kubernetes APIs to scheme: %w", err)
	}
	if err := cluster.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add cluster-scoped APIs to scheme: %w", err)
	}
	if err := namespaced.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add namespaced APIs to scheme: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, providercmd.ManagerOptions(o, so, scheme))
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

	// As provider-upjet-gcp's main.go: one Terraform provider for the
	// controllers, configured per provider configuration by the setup.
	sdk := tfgoogle.Provider()
	clusterProvider, err := config.GetProvider(sdk, false)
	if err != nil {
		return err
	}
	namespacedProvider, err := config.GetProviderNamespaced(sdk, false)
	if err != nil {
		return err
	}
	setupFn := clients.TerraformSetupBuilder(sdk)
	scopeOptions := func(provider *ujconfig.Provider) tjcontroller.Options {
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
			SetupFn:               setupFn,
		}
		if o.EnableManagementPolicies {
			opts.Features.Enable(feature.EnableBetaManagementPolicies)
		}
		return opts
	}

	// intentjournal: open the journal and add the recovery pass before
	// the manager starts, with the finders derived from both scopes'
	// upjet configuration. The record set has no labels: its ID template
	// (the shipped default) finds it, and its key probe proves it ours
	// after a crash, and keeps a create from replacing a record set
	// someone else holds. The managed zone is observed by its name.
	var ij *upjetv2.Adapter
	if o.Intents() {
		finders, err := upjetv2.NewFinders(mgr.GetClient(), scheme, setupFn,
			[]*ujconfig.Provider{clusterProvider, namespacedProvider},
			upjetv2.WithVacantKeys(mgr.GetAPIReader()),
			upjetv2.WithFindersLogger(lr))
		if err != nil {
			return err
		}
		c := providercmd.AdapterConfig(o, so, lr)
		c.Kinds, c.Finders, c.KeyProbes = finders.Kinds, finders.Finders, finders.Probes
		ij, err = upjetv2.Setup(mgr, c)
		if err != nil {
			return err
		}
	}
	if err := so.AddBuckets(ctx, mgr, ij.RequeueBucket); err != nil {
		return err
	}
	cmgr := mgr
	if o.HoldControllers {
		cmgr = ij.HoldUntilRecovered(mgr)
	}
	if err := clustercontroller.Setup(cmgr, scopeOptions(clusterProvider)); err != nil {
		return fmt.Errorf("cannot set up cluster-scoped controllers: %w", err)
	}
	if err := namespacedcontroller.Setup(cmgr, scopeOptions(namespacedProvider)); err != nil {
		return fmt.Errorf("cannot set up namespaced controllers: %w", err)
	}

	return providercmd.Start(ctx, mgr, zl, o, so, cfg.Host)
}
