package upjetv2

import (
	"fmt"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery/sdkschema/tfstate"
)

// trackedCreated returns the adapter.CreatedStateFunc of a plugin SDK or
// framework kind whose upjet configuration is r: the external name r's
// GetExternalNameFn makes of the state the async create left in store,
// upjet's OperationTrackerStore. It is the name upjet's own connectors set
// after a create and in every Observe (setExternalName on the state's
// attributes), so the callback's patch writes what upjet's next Observe
// expects.
//
// The Terraform ID alone is the external name only for kinds whose
// GetExternalNameFn returns the ID (IdentifierFromProvider,
// NameAsIdentifier, ParameterAsIdentifier). For a templated ID, as most
// GCP and Azure kinds have (TemplatedStringAsIdentifier), the external
// name is a part of the ID: a patch writing the whole ID would make upjet
// build the next Terraform ID from it and plan to rename the resource.
//
// A state with no ID gives "" and no error, as upjet's setExternalName
// sets nothing then: Observe settles the intent once the name is on the
// object.
func trackedCreated(store *tjcontroller.OperationTrackerStore, r *ujconfig.Resource) adapter.CreatedStateFunc {
	return func(mg client.Object) (adapter.CreatedState, error) {
		attrs, err := trackedAttributes(store, r, mg)
		if err != nil {
			return adapter.CreatedState{}, err
		}
		name, err := externalNameFromState(r, attrs)
		if err != nil {
			return adapter.CreatedState{}, fmt.Errorf("cannot derive the external name from the state of the create: %w", err)
		}
		return adapter.CreatedState{TerraformID: name}, nil
	}
}

// trackedAttributes returns the attributes of the state the async create
// of mg left in store, keyed by their Terraform names, as upjet converts
// them for GetExternalNameFn: the plugin SDK's InstanceState through the
// resource's schema, or the framework state through the resource's
// framework schema. It returns nil when the store holds no state with an
// ID.
func trackedAttributes(store *tjcontroller.OperationTrackerStore, r *ujconfig.Resource, mg client.Object) (map[string]any, error) {
	if store == nil {
		return nil, nil
	}
	tr, ok := mg.(ujresource.Terraformed)
	if !ok {
		return nil, nil
	}
	t := store.Tracker(tr)
	if st := t.GetTfState(); st != nil && st.ID != "" {
		if r == nil {
			return nil, tfstate.ErrNoSchema
		}
		return tfstate.SDKAttributes(r.TerraformResource, st)
	}
	if t.HasFrameworkTFState() {
		return frameworkAttributes(r, t.GetFrameworkTFState())
	}
	return nil, nil
}

// frameworkAttributes decodes a framework state, the DynamicValue of the
// line's plugin protocol that upjet's tracker holds, with r's framework
// schema into its attributes (tfstate.FrameworkAttributes). A nil state
// gives nil.
func frameworkAttributes(r *ujconfig.Resource, dv *tfprotov6.DynamicValue) (map[string]any, error) {
	if dv == nil {
		return nil, nil
	}
	if r == nil {
		return nil, tfstate.ErrNoSchema
	}
	return tfstate.FrameworkAttributes(r.TerraformPluginFrameworkResource, dv.Unmarshal)
}

// externalNameFromState returns the external name of the resource whose
// state attributes are attrs: r's GetExternalNameFn of attrs, as upjet's
// SetCriticalAnnotations derives it, or the "id" attribute when r has none
// (adapter.ExternalNameOfState).
func externalNameFromState(r *ujconfig.Resource, attrs map[string]any) (string, error) {
	if r == nil {
		return adapter.ExternalNameOfState(attrs, nil)
	}
	return adapter.ExternalNameOfState(attrs, r.ExternalName.GetExternalNameFn)
}

// frameworkStateID returns the "id" attribute of the framework state
// upjet's framework connector keeps (AsyncTracker.GetFrameworkTFState), a
// DynamicValue of the line's plugin protocol, 6 on v2 and 5 on the legacy
// line (tfstate.ID); nil gives "".
func frameworkStateID(v *tfprotov6.DynamicValue) (string, error) {
	if v == nil {
		return "", nil
	}
	return tfstate.ID(v.MsgPack, v.JSON)
}
