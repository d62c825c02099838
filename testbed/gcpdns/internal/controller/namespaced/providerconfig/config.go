// Package providerconfig sets up the controllers that count the users of the
// namespaced group's ProviderConfigs and ClusterProviderConfigs and block
// their deletion while they are in use.
package providerconfig

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/v1beta1"
)

// Setup adds a controller that reconciles ClusterProviderConfigs and one
// that reconciles ProviderConfigs, each by accounting for its current usage.
// Both count the namespaced ProviderConfigUsages, which record the kind
// they refer to.
func Setup(mgr ctrl.Manager, o tjcontroller.Options) error {
	if err := setup(mgr, o, v1beta1.ClusterProviderConfigGroupKind, v1beta1.ClusterProviderConfigGroupVersionKind, &v1beta1.ClusterProviderConfig{}); err != nil {
		return err
	}
	return setup(mgr, o, v1beta1.ProviderConfigGroupKind, v1beta1.ProviderConfigGroupVersionKind, &v1beta1.ProviderConfig{})
}

// SetupGated adds the controllers Setup adds once the ProviderConfig,
// ClusterProviderConfig and ProviderConfigUsage CRDs are installed, as
// upjet-provider-template's.
func SetupGated(mgr ctrl.Manager, o tjcontroller.Options) error {
	o.Gate.Register(func() {
		if err := Setup(mgr, o); err != nil {
			mgr.GetLogger().Error(err, "unable to setup reconcilers", "gvk", v1beta1.ProviderConfigGroupVersionKind.String())
		}
	}, v1beta1.ProviderConfigGroupVersionKind, v1beta1.ClusterProviderConfigGroupVersionKind, v1beta1.ProviderConfigUsageGroupVersionKind)
	return nil
}

// SetupWebhookWithManager registers the conversion webhooks for
// ProviderConfig and ClusterProviderConfig, as upjet-provider-template's.
func SetupWebhookWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &v1beta1.ProviderConfig{}).Complete(); err != nil {
		return errors.Wrap(err, "cannot register webhook for the kind v1beta1.ProviderConfig")
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &v1beta1.ClusterProviderConfig{}).Complete(); err != nil {
		return errors.Wrap(err, "cannot register webhook for the kind v1beta1.ClusterProviderConfig")
	}
	return nil
}

func setup(mgr ctrl.Manager, o tjcontroller.Options, gk schema.GroupKind, gvk schema.GroupVersionKind, config client.Object) error {
	name := providerconfig.ControllerName(gk.String())

	of := resource.ProviderConfigKinds{
		Config:    gvk,
		Usage:     v1beta1.ProviderConfigUsageGroupVersionKind,
		UsageList: v1beta1.ProviderConfigUsageListGroupVersionKind,
	}

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(config).
		Watches(&v1beta1.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{}).
		Complete(providerconfig.NewReconciler(mgr, of,
			providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
			providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name)))))
}
