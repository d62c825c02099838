// Package cluster wires the controllers of provider-fakecloud's cluster-scoped
// resources into a controller-runtime manager, as upjet v2 generates
// internal/controller/cluster/zz_setup.go.
package cluster

import (
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"

	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/cluster/network"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/cluster/providerconfig"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/cluster/recordset"
)

// Setup creates all controllers of the cluster resources with the supplied
// options and adds them to the supplied manager.
func Setup(mgr ctrl.Manager, o tjcontroller.Options) error {
	return SetupWithJournal(mgr, o, nil, false)
}

// SetupWithJournal is Setup with the managed kinds' create paths made
// crash-safe by ij (a nil ij is Setup); deterministic sets
// crossplane-runtime's WithDeterministicExternalName on them.
func SetupWithJournal(mgr ctrl.Manager, o tjcontroller.Options, ij *upjetv2.Adapter, deterministic bool) error {
	if err := providerconfig.Setup(mgr, o); err != nil {
		return err
	}
	for _, setup := range []func(ctrl.Manager, tjcontroller.Options, *upjetv2.Adapter, bool) error{
		network.SetupWithJournal,
		recordset.SetupWithJournal,
	} {
		if err := setup(mgr, o, ij, deterministic); err != nil {
			return err
		}
	}
	return nil
}
