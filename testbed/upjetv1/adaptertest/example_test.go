package upjetv1_test

import (
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"github.com/crossplane/upjet/pkg/controller/handler"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
)

// The code between the snippet markers is what docs/integrating.md shows;
// TestIntegratingDocShowsExample keeps the two identical, and this file
// keeps the snippets compiling.

// providerMain is the part of a provider's main.go that turns the journal
// on: before mgr.Start, and before the controllers are set up. zl is the
// provider's logger (zapr.NewLogger of its zap logger, as
// controller-runtime is given).
func providerMain(mgr ctrl.Manager, o tjcontroller.Options, journalPath string,
	finders map[schema.GroupKind]recovery.Finder, zl logr.Logger) error {
	// snippet:main begin
	// Open the journal (taking its file lock) and add the recovery pass to
	// the manager, before the manager starts. Without --journal, ij is nil
	// and every kind runs unwrapped.
	var ij *upjetv1.Adapter
	if journalPath != "" {
		var err error
		ij, err = upjetv1.Setup(mgr, upjetv1.Config{
			JournalPath: journalPath, // on a PersistentVolume
			Kinds:       []schema.GroupVersionKind{v1alpha1.RecordSet_GroupVersionKind},
			Finders:     finders, // per kind, e.g. recovery.NewKeyFinder / NewTagFinder
			Logger:      zl,
		})
		if err != nil {
			return err
		}
	}
	// snippet:main end
	// snippet:hold begin
	if err := setupControllers(ij.HoldUntilRecovered(mgr), o); err != nil {
		return err
	}
	// snippet:hold end
	return nil
}

// setupControllers is the provider's generated controller.Setup.
func setupControllers(mgr ctrl.Manager, o tjcontroller.Options) error {
	return setupRecordSet(mgr, o)
}

// setupRecordSet is a kind's generated controller Setup, reduced to the
// lines intentjournal touches.
func setupRecordSet(mgr ctrl.Manager, o tjcontroller.Options) error {
	cfg := o.Provider.Resources["fakecloud_record_set"]
	eventHandler := handler.NewEventHandler()
	// snippet:controller begin
	// The wrapper of the kind, from its upjet configuration: a nil k (no
	// Adapter in mgr) wraps nothing.
	k, err := upjetv1.KindFor(mgr, o, "fakecloud_record_set", v1alpha1.RecordSet_GroupVersionKind)
	if err != nil {
		return err
	}
	ac := tjcontroller.NewAPICallbacks(mgr, xpresource.ManagedKind(v1alpha1.RecordSet_GroupVersionKind),
		tjcontroller.WithEventHandler(eventHandler))
	connector := k.WrapConnecter(tjcontroller.NewTerraformPluginSDKAsyncConnector(
		mgr.GetClient(), o.OperationTrackerStore, o.SetupFn, cfg,
		tjcontroller.WithTerraformPluginSDKAsyncCallbackProvider(k.WrapCallbacks(ac)),
		tjcontroller.WithTerraformPluginSDKAsyncConnectorEventHandler(eventHandler)))
	r := managed.NewReconciler(mgr, xpresource.ManagedKind(v1alpha1.RecordSet_GroupVersionKind),
		// The timeout recovery assumes, after upjet's options.
		append([]managed.ReconcilerOption{managed.WithExternalConnecter(connector)}, k.ReconcilerOptions()...)...)
	// snippet:controller end
	_ = r
	return nil
}

var _ = providerMain
