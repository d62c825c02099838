package upjetv1

import (
	"fmt"

	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/upjet/pkg/config"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/adapter"
)

// FromManager returns the Adapter that mgr carries (adapter.FromManager):
// the one whose HoldUntilRecovered returned mgr, else the one whose Setup
// was given mgr. It returns nil, which wraps nothing, when there is none.
func FromManager(mgr manager.Manager) *Adapter {
	a := adapter.FromManager(mgr)
	if a == nil {
		return nil
	}
	return &Adapter{Adapter: a}
}

// KindFor returns the wrapper of the managed kind gvk, whose Terraform
// resource type is resourceType in o.Provider, for a kind's controller
// Setup. The Adapter is FromManager(mgr); without one, KindFor returns a
// nil *Kind, which wraps nothing, and no error.
//
// Everything else comes from the kind's upjet configuration,
// o.Provider.Resources[resourceType], so no kind needs code of its own:
// the external name the kind's GetExternalNameFn makes of the state the
// async create left in o.OperationTrackerStore (ExternalNameFromID, where
// Configure recorded it, replaces it); the natural key (NaturalKey's
// fields, else those of the kind's ID template); and, for a plugin SDK or
// framework kind, the key its reconcile's Observe found vacant
// (adapter.WithObservedKeys). A kind reconciled through the Terraform CLI
// settles once Observe sees its external name: the legacy line reads no
// workspace.
func KindFor(mgr manager.Manager, o tjcontroller.Options, resourceType string, gvk schema.GroupVersionKind) (*Kind, error) {
	a := FromManager(mgr)
	if a == nil {
		return nil, nil
	}
	if o.Provider == nil {
		return nil, fmt.Errorf("cannot wrap %s: the controller options carry no upjet provider configuration", gvk.Kind)
	}
	r, ok := o.Provider.Resources[resourceType]
	if !ok || r == nil {
		return nil, fmt.Errorf("cannot wrap %s: the upjet provider configuration has no resource %q", gvk.Kind, resourceType)
	}
	return kindFor(a, o, r, resourceType, gvk), nil
}

// kindFor is KindFor once the adapter and r are found.
func kindFor(a *Adapter, o tjcontroller.Options, r *config.Resource, resourceType string, gvk schema.GroupVersionKind) *Kind {
	f := adapter.FactsOf(r)
	var opts []adapter.KindOption
	if fields := naturalKeyOf(r); len(fields) > 0 {
		opts = append(opts, adapter.WithNaturalKey(adapter.SpecFields(fields...)))
	}
	if r.ShouldUseTerraformPluginSDKClient() || r.ShouldUseTerraformPluginFrameworkClient() {
		if f.ExternalNameFromID != nil {
			opts = append(opts, adapter.WithExternalNameFromID(f.ExternalNameFromID))
		} else {
			// The external name upjet itself derives from the state: a
			// templated ID is not the name.
			opts = append(opts, adapter.WithCreatedState(trackedCreated(o.OperationTrackerStore, r)))
		}
		// The in-process connectors read at the ID the kind's GetIDFn
		// builds: a create claims what its reconcile's Observe found
		// vacant.
		opts = append(opts, adapter.WithObservedKeys(resourceType))
	}
	return a.kind(gvk, o.OperationTrackerStore, opts...)
}

// WithExternalConnecter returns the reconciler option that sets c,
// wrapped (WrapConnecter), as the managed reconciler's connecter. A nil
// *Kind sets c unwrapped.
func (k *Kind) WithExternalConnecter(c managed.ExternalConnecter) managed.ReconcilerOption {
	return managed.WithExternalConnecter(k.WrapConnecter(c))
}

// ReconcilerOptions returns the managed reconciler options the kind's
// recovery assumes, to append after upjet's own: the reconcile timeout
// (Adapter.ReconcileTimeout, which replaces upjet's three minutes). A nil
// *Kind returns none.
func (k *Kind) ReconcilerOptions() []managed.ReconcilerOption {
	if k == nil {
		return nil
	}
	return []managed.ReconcilerOption{managed.WithTimeout(k.k.ReconcileTimeout())}
}
