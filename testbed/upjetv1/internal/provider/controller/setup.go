// Package controller wires all controllers of provider-fakecloud into a
// controller-runtime manager.
package controller

import (
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/controller/network"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/controller/providerconfig"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/controller/recordset"
)

// Setup creates all controllers with the supplied options and adds them to
// the supplied manager.
func Setup(mgr ctrl.Manager, o tjcontroller.Options) error {
	return SetupWithJournal(mgr, o, nil)
}

// SetupWithJournal is Setup with the managed kinds' create paths made
// crash-safe by ij; a nil ij is Setup.
func SetupWithJournal(mgr ctrl.Manager, o tjcontroller.Options, ij *upjetv1.Adapter) error {
	if err := providerconfig.Setup(mgr, o); err != nil {
		return err
	}
	for _, setup := range []func(ctrl.Manager, tjcontroller.Options, *upjetv1.Adapter) error{
		network.SetupWithJournal,
		recordset.SetupWithJournal,
	} {
		if err := setup(mgr, o, ij); err != nil {
			return err
		}
	}
	return nil
}
