// Package namespaced wires the controllers of provider-fakecloud's namespaced
// resources into a controller-runtime manager, as upjet v2 generates
// internal/controller/namespaced/zz_setup.go.
package namespaced

import (
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/namespaced/network"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/namespaced/providerconfig"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/namespaced/recordset"
)

// Setup creates all controllers of the namespaced resources with the supplied
// options and adds them to the supplied manager.
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
