// Package controller wires all controllers of provider-fakecloud into a
// controller-runtime manager.
package controller

import (
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/internal/fakecloud/controller/network"
	"github.com/intentjournal/intentjournal/internal/fakecloud/controller/providerconfig"
	"github.com/intentjournal/intentjournal/internal/fakecloud/controller/recordset"
)

// Setup creates all controllers with the supplied options and adds them to
// the supplied manager.
func Setup(mgr ctrl.Manager, o tjcontroller.Options) error {
	for _, setup := range []func(ctrl.Manager, tjcontroller.Options) error{
		providerconfig.Setup,
		network.Setup,
		recordset.Setup,
	} {
		if err := setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}
