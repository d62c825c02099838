package upjetv2_test

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/crossplane/upjet/v2/pkg/controller/handler"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/recovery"
)

// The code between the snippet markers is what docs/integrating.md shows
// for the v2 line; TestIntegratingDocShowsExample keeps the two identical,
// and this file keeps the snippets compiling against upjet v2.3 and
// crossplane-runtime v2.2.

// recordSetGVK stands for a generated kind's <Kind>_GroupVersionKind: here
// a namespaced kind (the ".m." API group of a v2 provider).
var recordSetGVK = schema.GroupVersionKind{Group: "fakecloud.m.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"}

// providerMain is the part of a provider's main.go that turns the journal
// on: before mgr.Start, and before the controllers are set up.
func providerMain(mgr ctrl.Manager, o tjcontroller.Options, journalPath string,
	finders map[schema.GroupKind]recovery.Finder, zl *zap.Logger) error {
	// snippet:main begin
	// Open the journal (taking its file lock) and add the recovery pass to
	// the manager, before the manager starts. Without --journal, ij is nil
	// and every kind runs unwrapped.
	var ij *upjetv2.Adapter
	if journalPath != "" {
		var err error
		ij, err = upjetv2.Setup(mgr, upjetv2.Config{
			JournalPath: journalPath, // on a PersistentVolume
			Kinds:       []schema.GroupVersionKind{recordSetGVK},
			Finders:     finders, // per kind, e.g. recovery.NewKeyFinder / NewTagFinder
			Logger:      zl,
		})
		if err != nil {
			return err
		}
	}
	// snippet:main end
	return setupRecordSet(mgr, o, ij)
}

// setupRecordSet is a kind's generated controller Setup (upjet v2's
// controller.go.tmpl), reduced to the lines intentjournal touches.
func setupRecordSet(mgr ctrl.Manager, o tjcontroller.Options, ij *upjetv2.Adapter) error {
	eventHandler := handler.NewEventHandler()
	// snippet:controller begin
	// A nil ij gives a nil Kind, whose Wrap methods return their argument.
	k := ij.Kind(recordSetGVK, o.OperationTrackerStore,
		upjetv2.WithNaturalKey(upjetv2.SpecFields("zone", "name")))
	ac := tjcontroller.NewAPICallbacks(mgr, xpresource.ManagedKind(recordSetGVK),
		tjcontroller.WithEventHandler(eventHandler), tjcontroller.WithStatusUpdates(false))
	connector := k.WrapConnector(tjcontroller.NewTerraformPluginSDKAsyncConnector(
		mgr.GetClient(), o.OperationTrackerStore, o.SetupFn, o.Provider.Resources["fakecloud_record_set"],
		tjcontroller.WithTerraformPluginSDKAsyncCallbackProvider(k.WrapCallbacks(ac)),
		tjcontroller.WithTerraformPluginSDKAsyncConnectorEventHandler(eventHandler)))
	r := managed.NewReconciler(mgr, xpresource.ManagedKind(recordSetGVK),
		managed.WithExternalConnector(connector),
		// The timeout recovery assumes; upjet's 3 minutes unless Config says otherwise.
		managed.WithTimeout(ij.ReconcileTimeout()))
	// snippet:controller end
	_ = r
	return nil
}

var _ = providerMain
