// Package recordset sets up the controller that reconciles RecordSet managed resources,
// written after upjet v1.11.1's controller.go.tmpl for a Terraform plugin SDK
// resource with UseAsync: crossplane-runtime's managed reconciler driving
// upjet's no-fork async connector.
package recordset

import (
	"github.com/crossplane/crossplane-runtime/pkg/connection"
	"github.com/crossplane/crossplane-runtime/pkg/event"
	xpfeature "github.com/crossplane/crossplane-runtime/pkg/feature"
	"github.com/crossplane/crossplane-runtime/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/crossplane-runtime/pkg/statemetrics"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"github.com/crossplane/upjet/pkg/controller/handler"
	"github.com/crossplane/upjet/pkg/metrics"
	"github.com/pkg/errors"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	v1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/config"
)

// Setup adds a controller that reconciles RecordSet managed resources.
func Setup(mgr ctrl.Manager, o tjcontroller.Options) error {
	return SetupWithJournal(mgr, o, nil)
}

// SetupWithJournal adds a controller that reconciles RecordSet managed
// resources, with its create path made crash-safe by ij. A nil ij is Setup:
// upjet's connector and callbacks unwrapped.
func SetupWithJournal(mgr ctrl.Manager, o tjcontroller.Options, ij *upjetv1.Adapter) error {
	name := managed.ControllerName(v1alpha1.RecordSet_GroupVersionKind.String())
	cfg, ok := o.Provider.Resources[config.RecordSetResource]
	if !ok {
		return errors.Errorf("cannot set up %s: provider configuration has no resource %q", name, config.RecordSetResource)
	}
	var initializers managed.InitializerChain
	for _, i := range cfg.InitializerFns {
		initializers = append(initializers, i(mgr.GetClient()))
	}
	if !cfg.ExternalName.DisableNameInitializer {
		initializers = append(initializers, managed.NewNameAsExternalName(mgr.GetClient()))
	}
	cps := []managed.ConnectionPublisher{managed.NewAPISecretPublisher(mgr.GetClient(), mgr.GetScheme())}
	if o.SecretStoreConfigGVK != nil {
		cps = append(cps, connection.NewDetailsManager(mgr.GetClient(), *o.SecretStoreConfigGVK, connection.WithTLSConfig(o.ESSOptions.TLSConfig)))
	}
	eventHandler := handler.NewEventHandler(handler.WithLogger(o.Logger.WithValues("gvk", v1alpha1.RecordSet_GroupVersionKind)))
	// intentjournal: the kind's wrapper, from its upjet configuration; a nil
	// one (ij == nil) wraps nothing.
	var ijRecordSet *upjetv1.Kind
	if ij != nil {
		k, err := upjetv1.KindFor(mgr, o, config.RecordSetResource, v1alpha1.RecordSet_GroupVersionKind)
		if err != nil {
			return err
		}
		ijRecordSet = k
	}
	ac := tjcontroller.NewAPICallbacks(mgr, xpresource.ManagedKind(v1alpha1.RecordSet_GroupVersionKind), tjcontroller.WithEventHandler(eventHandler), tjcontroller.WithStatusUpdates(false))
	opts := []managed.ReconcilerOption{
		managed.WithExternalConnecter(ijRecordSet.WrapConnecter(
			tjcontroller.NewTerraformPluginSDKAsyncConnector(mgr.GetClient(), o.OperationTrackerStore, o.SetupFn, cfg,
				tjcontroller.WithTerraformPluginSDKAsyncLogger(o.Logger),
				tjcontroller.WithTerraformPluginSDKAsyncConnectorEventHandler(eventHandler),
				tjcontroller.WithTerraformPluginSDKAsyncCallbackProvider(ijRecordSet.WrapCallbacks(ac)),
				tjcontroller.WithTerraformPluginSDKAsyncMetricRecorder(metrics.NewMetricRecorder(v1alpha1.RecordSet_GroupVersionKind, mgr, o.PollInterval)),
				tjcontroller.WithTerraformPluginSDKAsyncManagementPolicies(o.Features.Enabled(xpfeature.EnableBetaManagementPolicies)),
			)),
		),
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		managed.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))),
		managed.WithFinalizer(tjcontroller.NewOperationTrackerFinalizer(o.OperationTrackerStore, xpresource.NewAPIFinalizer(mgr.GetClient(), managed.FinalizerName))),
		// intentjournal: the timeout its recovery assumes (upjet's 3m by default).
		managed.WithTimeout(ij.ReconcileTimeout()),
		managed.WithInitializers(initializers),
		managed.WithConnectionPublishers(cps...),
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
			mgr.GetClient(), o.Logger, o.MetricOptions.MRStateMetrics, &v1alpha1.RecordSetList{}, o.MetricOptions.PollStateMetricInterval,
		)
		if err := mgr.Add(stateMetricsRecorder); err != nil {
			return errors.Wrap(err, "cannot register MR state metrics recorder for kind v1alpha1.RecordSetList")
		}
	}

	if o.Features.Enabled(xpfeature.EnableAlphaChangeLogs) {
		opts = append(opts, managed.WithChangeLogger(o.ChangeLogOptions.ChangeLogger))
	}

	r := managed.NewReconciler(mgr, xpresource.ManagedKind(v1alpha1.RecordSet_GroupVersionKind), opts...)

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		WithEventFilter(xpresource.DesiredStateChanged()).
		Watches(&v1alpha1.RecordSet{}, eventHandler).
		// intentjournal: requests Adapter.Requeue sends when this replica
		// takes over resources (a hash bucket acquired).
		WatchesRawSource(ijRecordSet.Requeues()).
		// intentjournal: the callback's external-name patch wakes no
		// reconcile of its own; the one the callback requests sees it.
		WithEventFilter(ijRecordSet.EventFilter()).
		// intentjournal: the reconciler, wrapped to skip resources another
		// replica owns.
		Complete(ijRecordSet.Reconciler(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter)))
}
