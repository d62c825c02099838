package upjetv2_test

import (
	"context"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/crossplane/upjet/v2/pkg/controller/handler"
	"github.com/crossplane/upjet/v2/pkg/pipeline"
	"github.com/crossplane/upjet/v2/pkg/pipeline/templates"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
)

// The code between the snippet markers is what docs/integrating.md shows
// for the v2 line; TestIntegratingDocShowsExample keeps the two identical,
// and this file keeps the snippets compiling against upjet v2.3 and
// crossplane-runtime v2.2.

// recordSetGVK stands for a generated kind's <Kind>_GroupVersionKind: here
// a namespaced kind (the ".m." API group of a v2 provider).
var recordSetGVK = schema.GroupVersionKind{Group: "fakecloud.m.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"}

// providerMain is the part of a provider's main.go that turns the journal
// on: before mgr.Start, and before the controllers are set up. The upjet
// configurations are the ones main.go builds for its controllers (both
// scopes), inventory is the provider's one piece of cloud-specific
// recovery code, and zl the provider's logger (zapr.NewLogger of its zap
// logger, as controller-runtime is given).
func providerMain(mgr ctrl.Manager, o tjcontroller.Options, journalPath string,
	clusterProvider, namespacedProvider *ujconfig.Provider, inventory upjetv2.Inventory, zl logr.Logger) error {
	// snippet:main begin
	// Open the journal (taking its file lock) and add the recovery pass to
	// the manager, before the manager starts, with a recovery finder for
	// every kind derived from the upjet configuration. Without --journal,
	// ij is nil and every kind runs unwrapped.
	var ij *upjetv2.Adapter
	if journalPath != "" {
		// The ID templates of the kinds whose ID the cloud assigns but the
		// spec determines; one a line: Terraform type, tab, template.
		templates, err := upjetv2.DecodeTemplates(strings.NewReader(
			"fakecloud_record\tzones/{{ .parameters.zone }}/records/{{ .parameters.name }}/{{ .parameters.type }}\n"))
		if err != nil {
			return err
		}
		finders, err := upjetv2.NewFinders(mgr.GetClient(), mgr.GetScheme(), o.SetupFn,
			[]*ujconfig.Provider{clusterProvider, namespacedProvider},
			upjetv2.WithTemplates(templates), upjetv2.WithInventory(inventory),
			// A template kind with no tags proves its own after a crash by the
			// key its create found free (docs/recovery.md, Ownership).
			upjetv2.WithVacantKeys(mgr.GetAPIReader()), upjetv2.WithFindersLogger(zl))
		if err != nil {
			return err
		}
		ij, err = upjetv2.Setup(mgr, upjetv2.Config{
			JournalPath: journalPath, // on a PersistentVolume
			Kinds:       finders.Kinds,
			Finders:     finders.Finders,
			KeyProbes:   finders.Probes,
			Logger:      zl,
		})
		if err != nil {
			return err
		}
	}
	// snippet:main end
	return setupRecordSet(ij.HoldUntilRecovered(mgr), o)
}

// awsInventory is the shape of a cloud's Inventory: one function for
// every list-by-tags kind, told the kind's Terraform type.
func awsInventory(list func(ctx context.Context, resourceType string, tags map[string]string) ([]upjetv2.ExternalResource, error)) upjetv2.Inventory {
	// snippet:inventory begin
	inventory := upjetv2.InventoryFn(func(ctx context.Context, q upjetv2.TagQuery) ([]upjetv2.ExternalResource, error) {
		// Map q.TerraformResource (aws_vpc) to the cloud's resource type
		// (ec2:vpc), take the account and region from the provider config
		// of q.Candidate, and list what carries every tag of q.Tags.
		return list(ctx, q.TerraformResource, q.Tags)
	})
	// snippet:inventory end
	return inventory
}

// setupRecordSet is a kind's generated controller Setup (upjet v2's
// controller.go.tmpl), reduced to the lines intentjournal touches.
func setupRecordSet(mgr ctrl.Manager, o tjcontroller.Options) error {
	eventHandler := handler.NewEventHandler()
	// snippet:controller begin
	// The wrapper of the kind, from its upjet configuration: a nil k (no
	// Adapter in mgr) wraps nothing.
	k, err := upjetv2.KindFor(mgr, o, "fakecloud_record_set", recordSetGVK)
	if err != nil {
		return err
	}
	res := o.Provider.Resources["fakecloud_record_set"]
	ac := tjcontroller.NewAPICallbacks(mgr, xpresource.ManagedKind(recordSetGVK),
		tjcontroller.WithEventHandler(eventHandler), tjcontroller.WithStatusUpdates(false))
	connector := k.WrapConnector(tjcontroller.NewTerraformPluginSDKAsyncConnector(
		mgr.GetClient(), o.OperationTrackerStore, o.SetupFn, res,
		tjcontroller.WithTerraformPluginSDKAsyncCallbackProvider(k.WrapCallbacks(ac)),
		tjcontroller.WithTerraformPluginSDKAsyncConnectorEventHandler(eventHandler)))
	// The reconcile timeout recovery assumes, after upjet's options.
	opts := append([]managed.ReconcilerOption{managed.WithExternalConnector(connector)}, k.ReconcilerOptions()...)
	r := managed.NewReconciler(mgr, xpresource.ManagedKind(recordSetGVK), opts...)
	// snippet:controller end
	_ = r
	return nil
}

// generatorMain is a provider's cmd/generator/main.go (as
// upjet-provider-template has it), with the one change intentjournal needs.
func generatorMain(rootDir string, pc, pcNamespaced *ujconfig.Provider) {
	// snippet:generator begin
	// Every kind's generated Setup finds its wrapper in the manager it is
	// handed (upjetv2.KindFor); handed none, it runs upjet's code unwrapped.
	pc.ControllerTemplate = upjetv2.MustWrapControllerTemplate(templates.ControllerTemplate)
	pcNamespaced.ControllerTemplate = upjetv2.MustWrapControllerTemplate(templates.ControllerTemplate)
	pipeline.Run(pc, pcNamespaced, rootDir)
	// snippet:generator end
}

// setupControllersMain is the end of a provider's main.go: upjet's
// generated controller.Setup of each scope, handed the held manager.
func setupControllersMain(mgr ctrl.Manager, ij *upjetv2.Adapter, clusterOpts, namespacedOpts tjcontroller.Options,
	setupCluster, setupNamespaced func(ctrl.Manager, tjcontroller.Options) error) error {
	// snippet:controllers begin
	// The generated controllers take ij from the manager; they start once
	// the first recovery pass has run. A nil ij returns mgr.
	held := ij.HoldUntilRecovered(mgr)
	if err := setupCluster(held, clusterOpts); err != nil {
		return err
	}
	if err := setupNamespaced(held, namespacedOpts); err != nil {
		return err
	}
	// snippet:controllers end
	return nil
}

// configureRoute53Record is a kind's resource configurator.
func configureRoute53Record(p *ujconfig.Provider) {
	// snippet:configure begin
	p.AddResourceConfigurator("aws_route53_record", func(r *ujconfig.Resource) {
		// What the external-name configuration does not say: the fields
		// that identify the record, and that the cloud keys it by them.
		upjetv2.Configure(r, upjetv2.NaturalKey("zoneId", "name", "type"), upjetv2.NameKeyed())
	})
	// snippet:configure end
}

var _, _, _, _, _ = providerMain, awsInventory, generatorMain, setupControllersMain, configureRoute53Record
