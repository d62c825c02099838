package upjetv2

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindFor is KindFor once the adapter and r are found: on the v2 line a
// plugin SDK or framework kind settles with the state upjet's tracker
// holds, a Terraform CLI kind with its workspace's, and under
// WithDeterministicExternalNames a kind whose external name is known
// before its create gets crossplane-runtime's deterministic-name option.
func kindFor(a *Adapter, o tjcontroller.Options, r *config.Resource, resourceType string, gvk schema.GroupVersionKind) (*Kind, error) {
	k, err := kindOf(a, o, r, resourceType, gvk)
	if err != nil || k == nil {
		return k, err
	}
	if l, ok := k.k.Line().(line); ok && l.deterministicNames() {
		k.nameKnown = KindFacts(r).IDKnownBeforeCreate
	}
	return k, nil
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
