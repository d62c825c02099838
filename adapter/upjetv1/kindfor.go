package upjetv1

import (
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/upjet/pkg/config"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/adapter"
)

// kindFor is KindFor once the adapter and r are found (kindOf).
func kindFor(a *Adapter, o tjcontroller.Options, r *config.Resource, resourceType string, gvk schema.GroupVersionKind) (*Kind, error) {
	return kindOf(a, o, r, resourceType, gvk)
}

// cliKind returns the wrapper of a kind r reconciled through upjet's
// Terraform CLI connector: the legacy line reads no workspace, so the
// kind settles once Observe sees its external name.
func cliKind(a *Adapter, o tjcontroller.Options, _ *config.Resource, gvk schema.GroupVersionKind, opts ...adapter.KindOption) *Kind {
	return a.kind(gvk, o.OperationTrackerStore, opts...)
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
