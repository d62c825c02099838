package upjetv2

import (
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
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
// resource type is resourceType in o.Provider, for the Setup that upjet's
// pipeline generates from WrapControllerTemplate. The Adapter is
// FromManager(mgr); without one, KindFor returns a nil *Kind, which wraps
// nothing, and no error.
//
// Everything else comes from the kind's upjet configuration,
// o.Provider.Resources[resourceType], so no kind needs code of its own:
//   - the connector and the external name: a plugin SDK or framework
//     kind's callback reads the state of the create from
//     o.OperationTrackerStore, a Terraform CLI kind's from the workspace; both settle with the external
//     name the kind's GetExternalNameFn makes of that state, as upjet's
//     own Observe sets it (for a templated ID, a part of the ID);
//   - the natural key: NaturalKey's fields, else those of the kind's ID
//     template (see NaturalKey);
//   - ExternalNameFromID, which replaces GetExternalNameFn for a plugin SDK
//     or framework kind, and WorkspaceRoot, where Configure recorded them;
//   - for a plugin SDK or framework kind, the key its reconcile's Observe
//     found vacant, claimed at no API write of its own
//     (adapter.WithObservedKeys).
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
	k, err := kindFor(a, o, r, resourceType, gvk)
	if err != nil || k == nil {
		return k, err
	}
	if l, ok := k.k.Line().(line); ok && l.deterministicNames() {
		k.nameKnown = KindFacts(r).IDKnownBeforeCreate
	}
	return k, nil
}

// kindFor is KindFor once the adapter and r are found.
func kindFor(a *Adapter, o tjcontroller.Options, r *config.Resource, resourceType string, gvk schema.GroupVersionKind) (*Kind, error) {
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
			opts = append(opts, withConfiguredExternalName(o.OperationTrackerStore, r))
		}
		// The in-process connectors read at the ID the kind's GetIDFn
		// builds: a create claims what its reconcile's Observe found
		// vacant.
		opts = append(opts, adapter.WithObservedKeys(resourceType))
		return a.kind(gvk, o.OperationTrackerStore, opts...), nil
	}
	return a.workspaceKind(gvk, r, f.WorkspaceRoot, opts...), nil
}

// WithExternalConnector returns the reconciler option that sets c,
// wrapped (WrapConnector), as the managed reconciler's connector. A nil
// *Kind sets c unwrapped.
func (k *Kind) WithExternalConnector(c managed.ExternalConnector) managed.ReconcilerOption {
	return managed.WithExternalConnector(k.WrapConnector(c))
}

// ReconcilerOptions returns the managed reconciler options the kind's
// recovery assumes, to append after upjet's own: the reconcile timeout
// (Adapter.ReconcileTimeout, which replaces upjet's three minutes),
// managed.WithDeterministicExternalName(true) for a kind whose external
// name is known before its create when Setup was given
// WithDeterministicExternalNames, then those Setup was given with
// WithReconcilerOptions. A nil *Kind returns none.
func (k *Kind) ReconcilerOptions() []managed.ReconcilerOption {
	if k == nil {
		return nil
	}
	opts := []managed.ReconcilerOption{managed.WithTimeout(k.k.ReconcileTimeout())}
	if k.nameKnown {
		opts = append(opts, managed.WithDeterministicExternalName(true))
	}
	if l, ok := k.k.Line().(line); ok {
		opts = append(opts, l.reconcilerOptions()...)
	}
	return opts
}

// withConfiguredExternalName makes the callback of a plugin SDK or
// framework create settle with the external name r's GetExternalNameFn
// makes of the state the create left in store: the name upjet's own
// connectors set after a create and in every Observe (for a templated
// ID, a part of the ID). store is the one given to kind.
func withConfiguredExternalName(store *tjcontroller.OperationTrackerStore, r *config.Resource) adapter.KindOption {
	return adapter.WithCreatedState(trackedCreated(store, r))
}
