// Package namespaced wires the controllers of provider-fakecloud's namespaced
// resources into a controller-runtime manager, as upjet v2 generates
// internal/controller/namespaced/zz_setup.go.
package namespaced

import (
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"

	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/namespaced/address"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/namespaced/bucket"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/namespaced/network"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/namespaced/providerconfig"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/namespaced/record"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/controller/namespaced/recordset"
)

// Setup creates all controllers of the namespaced resources with the supplied
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
		address.SetupWithJournal,
		bucket.SetupWithJournal,
		network.SetupWithJournal,
		record.SetupWithJournal,
		recordset.SetupWithJournal,
	} {
		if err := setup(mgr, o, ij, deterministic); err != nil {
			return err
		}
	}
	return nil
}
