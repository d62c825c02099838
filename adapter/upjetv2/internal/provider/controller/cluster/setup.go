// Package cluster wires the controllers of provider-fakecloud's cluster-scoped
// resources into a controller-runtime manager, as upjet v2 generates
// internal/controller/cluster/zz_setup.go.
package cluster

import (
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/cluster/network"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/cluster/providerconfig"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/controller/cluster/recordset"
)

// Setup creates all controllers of the cluster resources with the supplied
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
