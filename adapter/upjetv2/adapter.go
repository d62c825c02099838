package upjetv2

import (
	"context"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/adapter"
)

// Config configures Setup: see adapter.Config.
type Config = adapter.Config

// DefaultReconcileTimeout is the managed reconciler timeout of upjet's
// generated controllers (managed.WithTimeout(3*time.Minute)).
const DefaultReconcileTimeout = adapter.DefaultReconcileTimeout

// Adapter is the crash-safe create path shared by a provider's kinds (the
// line-independent adapter.Adapter: journal, recovery Gate and Resolver,
// owner, metrics), whose kinds KindFor wraps from their upjet
// configuration. A nil *Adapter wraps nothing: KindFor returns a nil
// *Kind, HoldUntilRecovered its manager, ReconcileTimeout the default.
type Adapter struct {
	*adapter.Adapter
}

// core returns the line-independent adapter, nil for a nil a.
func (a *Adapter) core() *adapter.Adapter {
	if a == nil {
		return nil
	}
	return a.Adapter
}

// kind returns the wrapper for the managed kind gvk of a plugin SDK or
// framework resource. store is the OperationTrackerStore of upjet's
// controller Options: after an async create it holds the Terraform state,
// and so the new resource's ID. A nil Adapter returns a nil *Kind. KindFor
// chooses opts from the kind's configuration.
func (a *Adapter) kind(gvk schema.GroupVersionKind, store *tjcontroller.OperationTrackerStore, opts ...adapter.KindOption) *Kind {
	if a == nil {
		return nil
	}
	return &Kind{k: a.Adapter.Kind(gvk, func(mg client.Object) (string, error) { return trackedID(store, mg) }, opts...),
		key: func(mg resource.Managed) string {
			id, err := trackedID(store, mg)
			if err != nil {
				return ""
			}
			return id
		}}
}

// HoldUntilRecovered is adapter.Adapter's; a nil Adapter returns mgr.
func (a *Adapter) HoldUntilRecovered(mgr manager.Manager) manager.Manager {
	return a.core().HoldUntilRecovered(mgr)
}

// ReconcileTimeout is adapter.Adapter's; a nil Adapter returns
// DefaultReconcileTimeout.
func (a *Adapter) ReconcileTimeout() time.Duration { return a.core().ReconcileTimeout() }

// Requeue is adapter.Adapter's; a nil Adapter sends nothing.
func (a *Adapter) Requeue(ctx context.Context, match func(namespace, name string) bool) (int, error) {
	return a.core().Requeue(ctx, match)
}

// RequeueBucket is adapter.Adapter's; a nil Adapter returns nil.
func (a *Adapter) RequeueBucket(ctx context.Context, bucketOf func(namespace, name string) int) func(bucket int) {
	return a.core().RequeueBucket(ctx, bucketOf)
}

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
// Setup (on v2, the Setup upjet's pipeline generates from
// WrapControllerTemplate). The Adapter is FromManager(mgr); without one,
// KindFor returns a nil *Kind, which wraps nothing, and no error.
//
// Everything else comes from the kind's upjet configuration,
// o.Provider.Resources[resourceType], so no kind needs code of its own:
//   - the external name: a plugin SDK or framework kind's callback reads
//     the state of the create from o.OperationTrackerStore and settles
//     with the external name the kind's GetExternalNameFn makes of it, as
//     upjet's own Observe sets it (for a templated ID, a part of the ID),
//     unless Configure recorded ExternalNameFromID; a Terraform CLI kind's
//     callback reads its workspace's state on v2, and on the legacy line
//     it settles once Observe sees its external name;
//   - the natural key: NaturalKey's fields, else those of the kind's ID
//     template (see NaturalKey);
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
	return kindFor(a, o, r, resourceType, gvk)
}

// kindOf returns the wrapper of the kind r configures: its natural key;
// for a plugin SDK or framework kind, the external name of the state
// upjet's tracker in o holds (ExternalNameFromID, where Configure recorded
// it, replaces GetExternalNameFn) and the key its Observe found vacant;
// for a Terraform CLI kind, what the line's cliKind reads.
func kindOf(a *Adapter, o tjcontroller.Options, r *config.Resource, resourceType string, gvk schema.GroupVersionKind) (*Kind, error) {
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
		return a.kind(gvk, o.OperationTrackerStore, opts...), nil
	}
	return cliKind(a, o, r, gvk, opts...), nil
}
