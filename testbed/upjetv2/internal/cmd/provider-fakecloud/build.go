package main

import (
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/fwprovider"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis/namespaced/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/clients"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/config"
	controllercluster "github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/cluster"
	controllernamespaced "github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/namespaced"
)

// build is what differs between provider-fakecloud's two builds of the
// same kinds: the hand-written test bed's controllers (handWritten), and
// those upjet's pipeline generated with intentjournal's controller
// template (--generated, generated.go). Both register the same
// GroupVersionKinds with Go types of their own, so a process runs one.
type build struct {
	addToScheme    func(*runtime.Scheme) error
	managedObjects func() []client.Object
	// providers returns the upjet configurations of both scopes; a nil
	// tagger keeps upjet's config.TagInitializer.
	providers func(tagger ujconfig.NewInitializerFn) (cluster, namespaced *ujconfig.Provider, err error)
	setupFn   terraform.SetupFn
	types     clients.Types
	// recordIDTemplate is the Record's ID template, for its finder.
	recordIDTemplate string
	// findersOptions are the build's own upjetv2.NewFinders options.
	findersOptions []upjetv2.FindersOption
	// workspaces says the build has Terraform CLI kinds: the controller
	// options carry a terraform.WorkspaceStore.
	workspaces bool
	// setup adds the controllers of both scopes to mgr.
	setup func(mgr ctrl.Manager, cluster, namespaced tjcontroller.Options, ij *upjetv2.Adapter, l lineOptions) error
}

// handWritten is the hand-written test bed's build: its controllers take
// the Adapter as an argument (SetupWithJournal) and every kind is
// reconciled in process.
var handWritten = build{
	addToScheme: apis.AddToScheme,
	managedObjects: func() []client.Object {
		return []client.Object{
			&clusterv1alpha1.RecordSet{}, &clusterv1alpha1.Network{},
			&namespacedv1alpha1.RecordSet{}, &namespacedv1alpha1.Network{}, &namespacedv1alpha1.Address{}, &namespacedv1alpha1.Record{},
			&namespacedv1alpha1.Bucket{},
		}
	},
	providers: func(tagger ujconfig.NewInitializerFn) (*ujconfig.Provider, *ujconfig.Provider, error) {
		var popts []config.Option
		if tagger != nil {
			popts = append(popts, config.WithTagger(tagger))
		}
		cluster, err := config.GetProvider(popts...)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot build upjet provider configuration: %w", err)
		}
		namespaced, err := config.GetProviderNamespaced(popts...)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot build namespaced upjet provider configuration: %w", err)
		}
		return cluster, namespaced, nil
	},
	setupFn:          clients.TerraformSetupBuilder(tfprovider.New(), fwprovider.New()),
	types:            clients.HandWritten,
	recordIDTemplate: config.RecordIDTemplate,
	// The RecordSet is unique by zone and name, though the cloud assigns
	// its ID: this build's upjet configuration does not say so (the
	// generated one does, with upjetv2.NameKeyed).
	findersOptions: []upjetv2.FindersOption{upjetv2.WithNameKeyed(fcrecovery.RecordSet, fcrecovery.RecordSetNamespaced)},
	setup: func(mgr ctrl.Manager, cluster, namespaced tjcontroller.Options, ij *upjetv2.Adapter, l lineOptions) error {
		if err := controllercluster.SetupWithJournal(mgr, cluster, ij, l.deterministicExternalName); err != nil {
			return fmt.Errorf("cannot set up cluster-scoped fakecloud controllers: %w", err)
		}
		if err := controllernamespaced.SetupWithJournal(mgr, namespaced, ij, l.deterministicExternalName); err != nil {
			return fmt.Errorf("cannot set up namespaced fakecloud controllers: %w", err)
		}
		return nil
	},
}

// workspaceStore returns the Terraform CLI connector's workspace store, as
// upjet-provider-template's main.go builds it.
func workspaceStore(log logging.Logger) *terraform.WorkspaceStore {
	return terraform.NewWorkspaceStore(log)
}
