package upjetv2

import (
	"fmt"

	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
)

// WrapCallbacks returns cp with its Create callback settling the intent
// of the create that just ended, before cp's own callback runs (so the
// reconcile cp requests already sees the external name). A nil *Kind
// returns cp unchanged. Wrapping the callbacks marks the kind async: its
// Create only dispatches, and the callback settles.
func (k *Kind) WrapCallbacks(cp tjcontroller.CallbackProvider) tjcontroller.CallbackProvider {
	if k == nil {
		return cp
	}
	k.k.MarkAsync()
	return &callbacks{k: k.k, inner: cp}
}

type callbacks struct {
	k     *adapter.Kind
	inner tjcontroller.CallbackProvider
}

var _ tjcontroller.CallbackProvider = (*callbacks)(nil)

// trackedID reads the new resource's Terraform ID from upjet's operation
// tracker in store, where the async create of mg left its state: the
// plugin SDK's InstanceState for an SDK resource, the "id" attribute of
// the framework state for a terraform-plugin-framework resource (upjet's
// GetTfID reads only the former). It returns "" when neither holds an ID.
func trackedID(store *tjcontroller.OperationTrackerStore, mg client.Object) (string, error) {
	if store == nil {
		return "", nil
	}
	tr, ok := mg.(ujresource.Terraformed)
	if !ok {
		return "", nil
	}
	t := store.Tracker(tr)
	if id := t.GetTfID(); id != "" {
		return id, nil
	}
	if !t.HasFrameworkTFState() {
		return "", nil
	}
	id, err := frameworkStateID(t.GetFrameworkTFState())
	if err != nil {
		return "", fmt.Errorf("cannot read the Terraform ID from the framework state: %w", err)
	}
	return id, nil
}
