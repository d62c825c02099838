// Package record sets up the controller that reconciles the namespaced
// Record managed resources, written after upjet v2.3.0's
// controller.go.tmpl for a Terraform plugin SDK resource with UseAsync:
// crossplane-runtime v2's managed reconciler driving upjet's no-fork async
// connector.
package record

import (
	"github.com/intentjournal/intentjournal/adapter/upjetv2"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	xpfeature "github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/crossplane/upjet/v2/pkg/controller/handler"
	"github.com/crossplane/upjet/v2/pkg/metrics"
	"github.com/pkg/errors"
	ctrl "sigs.k8s.io/controller-runtime"

	v1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis/namespaced/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/config"
)

// Setup adds a controller that reconciles Record managed resources, with
// upjet's connector and callbacks unwrapped.
func Setup(mgr ctrl.Manager, o tjcontroller.Options) error {
	return SetupWithJournal(mgr, o, nil, false)
}

// SetupWithJournal adds a controller that reconciles Record managed
// resources, with its create path made crash-safe by ij: the three places
// marked "intentjournal:". A nil ij is Setup: upjet's connector and
// callbacks unwrapped. deterministic sets crossplane-runtime's
// WithDeterministicExternalName, under which a create whose last attempt
// is incomplete goes ahead instead of stopping.
func SetupWithJournal(mgr ctrl.Manager, o tjcontroller.Options, ij *upjetv2.Adapter, deterministic bool) error {
	name := managed.ControllerName(v1alpha1.Record_GroupVersionKind.String())
	cfg, ok := o.Provider.Resources[config.RecordResource]
	if !ok {
		return errors.Errorf("cannot set up %s: provider configuration has no resource %q", name, config.RecordResource)
	}
	var initializers managed.InitializerChain
	for _, i := range cfg.InitializerFns {
		initializers = append(initializers, i(mgr.GetClient()))
	}
	if !cfg.ExternalName.DisableNameInitializer {
		initializers = append(initializers, managed.NewNameAsExternalName(mgr.GetClient()))
	}
	eventHandler := handler.NewEventHandler(handler.WithLogger(o.Logger.WithValues("gvk", v1alpha1.Record_GroupVersionKind)))
	// intentjournal: a nil ij gives a nil Kind, which wraps nothing.
	k := ij.Kind(v1alpha1.Record_GroupVersionKind, o.OperationTrackerStore, upjetv2.WithNaturalKey(upjetv2.SpecFields("zone", "name", "type")))
	// intentjournal: the callback provider, told when an async create ends.
	ac := tjcontroller.NewAPICallbacks(mgr, xpresource.ManagedKind(v1alpha1.Record_GroupVersionKind), tjcontroller.WithEventHandler(eventHandler), tjcontroller.WithStatusUpdates(false))
	opts := []managed.ReconcilerOption{
		// intentjournal: the connector, whose external client dispatches
		// the async create.
		managed.WithExternalConnector(k.WrapConnector(
			tjcontroller.NewTerraformPluginSDKAsyncConnector(mgr.GetClient(), o.OperationTrackerStore, o.SetupFn, cfg,
				tjcontroller.WithTerraformPluginSDKAsyncLogger(o.Logger),
				tjcontroller.WithTerraformPluginSDKAsyncConnectorEventHandler(eventHandler),
				tjcontroller.WithTerraformPluginSDKAsyncCallbackProvider(k.WrapCallbacks(ac)),
				tjcontroller.WithTerraformPluginSDKAsyncMetricRecorder(metrics.NewMetricRecorder(v1alpha1.Record_GroupVersionKind, mgr, o.PollInterval)),
				tjcontroller.WithTerraformPluginSDKAsyncManagementPolicies(o.Features.Enabled(xpfeature.EnableBetaManagementPolicies)),
			),
		)),
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		//lint:ignore SA1019 upjet v2.3.0's template; crossplane-runtime v2.2 has no events.k8s.io recorder
		managed.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))),
		managed.WithFinalizer(tjcontroller.NewOperationTrackerFinalizer(o.OperationTrackerStore, xpresource.NewAPIFinalizer(mgr.GetClient(), managed.FinalizerName))),
		// intentjournal: the timeout its recovery assumes (upjet's 3m by default).
		managed.WithTimeout(ij.ReconcileTimeout()),
		managed.WithDeterministicExternalName(deterministic),
		managed.WithInitializers(initializers),
		managed.WithPollInterval(o.PollInterval),
	}
	if o.PollJitter != 0 {
		opts = append(opts, managed.WithPollJitterHook(o.PollJitter))
	}
	if o.Features.Enabled(xpfeature.EnableBetaManagementPolicies) {
		opts = append(opts, managed.WithManagementPolicies())
	}
	if o.MetricOptions != nil {
		opts = append(opts, managed.WithMetricRecorder(o.MetricOptions.MRMetrics))
	}

	if o.MetricOptions != nil && o.MetricOptions.MRStateMetrics != nil {
		stateMetricsRecorder := statemetrics.NewMRStateRecorder(
			mgr.GetClient(), o.Logger, o.MetricOptions.MRStateMetrics, &v1alpha1.RecordList{}, o.MetricOptions.PollStateMetricInterval,
		)
		if err := mgr.Add(stateMetricsRecorder); err != nil {
			return errors.Wrap(err, "cannot register MR state metrics recorder for kind v1alpha1.RecordList")
		}
	}

	if o.Features.Enabled(xpfeature.EnableAlphaChangeLogs) {
		opts = append(opts, managed.WithChangeLogger(o.ChangeLogOptions.ChangeLogger))
	}

	r := managed.NewReconciler(mgr, xpresource.ManagedKind(v1alpha1.Record_GroupVersionKind), opts...)

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		WithEventFilter(xpresource.DesiredStateChanged()).
		Watches(&v1alpha1.Record{}, eventHandler).
		// intentjournal: requests Adapter.Requeue sends when this replica
		// takes over resources (a hash bucket acquired).
		WatchesRawSource(k.Requeues()).
		// intentjournal: the callback's external-name patch wakes no
		// reconcile of its own; the one the callback requests sees it.
		WithEventFilter(k.EventFilter()).
		// intentjournal: the reconciler, wrapped to hold creates back until
		// recovery has resolved the intents a crash left.
		Complete(k.Reconciler(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter)))
}
