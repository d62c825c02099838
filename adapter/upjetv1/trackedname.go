package upjetv1

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/crossplane/upjet/pkg/config"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ujresource "github.com/crossplane/upjet/pkg/resource"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	sdkschema "github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
)

// trackedCreated returns the adapter.CreatedStateFunc of a plugin SDK or
// framework kind whose upjet configuration is r: the external name r's
// GetExternalNameFn makes of the state the async create left in store,
// upjet's OperationTrackerStore. It is the name upjet v1's own connectors
// set after a create and in every Observe (setExternalName on the state's
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
func trackedCreated(store *tjcontroller.OperationTrackerStore, r *config.Resource) adapter.CreatedStateFunc {
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
// of mg left in store, keyed by their Terraform names, as upjet v1
// converts them for GetExternalNameFn: the plugin SDK's InstanceState
// through the resource's schema, or the framework state (a protocol 5
// DynamicValue on the v1 line) through the resource's framework schema.
// It returns nil when the store holds no state with an ID.
func trackedAttributes(store *tjcontroller.OperationTrackerStore, r *config.Resource, mg client.Object) (map[string]any, error) {
	if store == nil {
		return nil, nil
	}
	tr, ok := mg.(ujresource.Terraformed)
	if !ok {
		return nil, nil
	}
	t := store.Tracker(tr)
	if st := t.GetTfState(); st != nil && st.ID != "" {
		return sdkAttributes(r, st)
	}
	if t.HasFrameworkTFState() {
		return frameworkAttributes(r, t.GetFrameworkTFState())
	}
	return nil, nil
}

// externalNameFromState returns the external name of the resource whose
// state attributes are attrs: r's GetExternalNameFn of attrs, as upjet's
// connectors derive it (setExternalName), or the "id" attribute when r has
// none (adapter.ExternalNameOfState).
func externalNameFromState(r *config.Resource, attrs map[string]any) (string, error) {
	if r == nil {
		return adapter.ExternalNameOfState(attrs, nil)
	}
	return adapter.ExternalNameOfState(attrs, r.ExternalName.GetExternalNameFn)
}

// errNoSchema is the error of a kind whose upjet configuration carries no
// schema to read its state with.
var errNoSchema = errors.New("the upjet configuration carries no Terraform schema of the resource")

// sdkAttributes converts a plugin SDK InstanceState into its attributes
// as upjet v1's terraformPluginSDKExternal.fromInstanceStateToJSONMap
// does.
func sdkAttributes(r *config.Resource, st *tfsdk.InstanceState) (map[string]any, error) {
	if r == nil || r.TerraformResource == nil {
		return nil, errNoSchema
	}
	ty := r.TerraformResource.CoreConfigSchema().ImpliedType()
	v, err := st.AttrsAsObjectValue(ty)
	if err != nil {
		return nil, fmt.Errorf("cannot convert the plugin SDK state to its schema's type: %w", err)
	}
	m, err := sdkschema.StateValueToJSONMap(v, ty)
	if err != nil {
		return nil, fmt.Errorf("cannot convert the plugin SDK state to attributes: %w", err)
	}
	return m, nil
}

// frameworkAttributes decodes a framework state, the protocol 5
// DynamicValue upjet v1's tracker holds, with the resource's framework
// schema into its attributes, as upjet v1's framework connector does
// before it calls GetExternalNameFn. A nil or null state gives nil.
func frameworkAttributes(r *config.Resource, dv *tfprotov5.DynamicValue) (map[string]any, error) {
	if dv == nil {
		return nil, nil
	}
	if r == nil || r.TerraformPluginFrameworkResource == nil {
		return nil, errNoSchema
	}
	ctx := context.Background()
	var resp fwresource.SchemaResponse
	r.TerraformPluginFrameworkResource.Schema(ctx, fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		return nil, fmt.Errorf("cannot read the framework schema: %v", resp.Diagnostics)
	}
	v, err := dv.Unmarshal(resp.Schema.Type().TerraformType(ctx))
	if err != nil {
		return nil, fmt.Errorf("cannot decode the framework state: %w", err)
	}
	if v.IsNull() {
		return nil, nil
	}
	g, err := goValue(v)
	if err != nil {
		return nil, fmt.Errorf("cannot convert the framework state: %w", err)
	}
	m, ok := g.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the framework state is a %T, not an object", g)
	}
	return m, nil
}

// goValue converts a Terraform value into the Go value upjet v1's
// framework connector makes of it (tfValueToGoValue): objects and maps
// into map[string]any, lists, sets and tuples into []any, integral numbers
// into int64 and others into float64, null into nil. An unknown value,
// which no applied state holds, a number that fits neither (an integer
// beyond int64, a float64 overflow or underflow), and a dynamic value are
// errors, as they are to upjet.
func goValue(v tftypes.Value) (any, error) {
	if !v.IsKnown() {
		return nil, errors.New("an unknown value")
	}
	if v.IsNull() {
		return nil, nil
	}
	switch ty := v.Type(); {
	case ty.Is(tftypes.String):
		var s string
		err := v.As(&s)
		return s, err
	case ty.Is(tftypes.Bool):
		var b bool
		err := v.As(&b)
		return b, err
	case ty.Is(tftypes.Number):
		return numberValue(v)
	case ty.Is(tftypes.Object{}), ty.Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			g, err := goValue(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = g
		}
		return out, nil
	case ty.Is(tftypes.List{}), ty.Is(tftypes.Set{}), ty.Is(tftypes.Tuple{}):
		var l []tftypes.Value
		if err := v.As(&l); err != nil {
			return nil, err
		}
		out := make([]any, len(l))
		for i, e := range l {
			g, err := goValue(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = g
		}
		return out, nil
	default:
		return nil, fmt.Errorf("a value of type %s", ty)
	}
}

// numberValue converts a known, non-null Terraform number as upjet v1's
// tfValueToGoValue does: an integer into int64, an error when it does not
// fit; any other number into float64, an error when it overflows or
// underflows.
func numberValue(v tftypes.Value) (any, error) {
	var f big.Float
	if err := v.As(&f); err != nil {
		return nil, err
	}
	if f.IsInt() {
		i, acc := f.Int64()
		if acc != big.Exact {
			return nil, fmt.Errorf("the number %s is beyond a 64-bit integer", f.String())
		}
		return i, nil
	}
	x, acc := f.Float64()
	if (x == 0 && acc != big.Exact) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("the number %s is beyond a 64-bit floating point", f.String())
	}
	return x, nil
}
