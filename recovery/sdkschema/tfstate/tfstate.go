// Package tfstate reads the state a Terraform provider's create left into
// the Go values upjet's connectors make of it: the attributes a kind's
// GetExternalNameFn reads, and the ID. Both crossplane lines' upjet keep
// the same states (the plugin SDK's InstanceState, the plugin framework's
// DynamicValue: protocol 5 on the v1 line, 6 on v2) and convert them
// alike, so the conversion lives here once and each line package hands it
// its own types.
package tfstate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	sdkschema "github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// ID returns the "id" attribute of a framework state, an object encoded
// in msgpack (as the framework returns it from ApplyResourceChange) or in
// JSON: the fields of a tfprotov5 or tfprotov6 DynamicValue. upjet's
// GetTfID reads only the plugin SDK's InstanceState, so for a framework
// resource it is always empty; this reader is what lets the create
// callback settle such a resource's intent with its ID.
//
// An empty state, a state without "id", and an id that is null or unknown
// all give "" and no error: the resource has no ID yet. Bytes that are
// not an object's encoding give an error.
func ID(msgPack, jsonState []byte) (string, error) {
	if len(msgPack) > 0 {
		return msgpackID(msgPack)
	}
	if len(jsonState) > 0 {
		return jsonID(jsonState)
	}
	return "", nil
}

// msgpackID reads the "id" attribute of a msgpack-encoded object,
// skipping every other attribute without decoding it. Terraform encodes an
// object as a map from attribute names to values, null as nil and an
// unknown value as an extension.
func msgpackID(b []byte) (string, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return "", fmt.Errorf("cannot decode the framework state: not an object: %w", err)
	}
	for i := 0; i < n; i++ { // n is -1 for a null state
		key, err := dec.DecodeString()
		if err != nil {
			return "", fmt.Errorf("cannot decode attribute %d of the framework state: %w", i, err)
		}
		if key != "id" {
			if err := dec.Skip(); err != nil {
				return "", fmt.Errorf("cannot skip attribute %q of the framework state: %w", key, err)
			}
			continue
		}
		c, err := dec.PeekCode()
		if err != nil {
			return "", fmt.Errorf("cannot decode the id of the framework state: %w", err)
		}
		if c == msgpcode.Nil || msgpcode.IsExt(c) {
			return "", nil // null or unknown
		}
		id, err := dec.DecodeString()
		if err != nil {
			return "", fmt.Errorf("cannot decode the id of the framework state: %w", err)
		}
		return id, nil
	}
	return "", nil
}

// jsonID reads the "id" attribute of a JSON-encoded object.
func jsonID(b []byte) (string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return "", fmt.Errorf("cannot decode the framework state: not an object: %w", err)
	}
	raw, ok := obj["id"]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", fmt.Errorf("cannot decode the id of the framework state: %w", err)
	}
	return id, nil
}

// ErrNoSchema is the error of a kind whose upjet configuration carries no
// Terraform schema to read its state with.
var ErrNoSchema = errors.New("the upjet configuration carries no Terraform schema of the resource")

// SDKAttributes converts a plugin SDK InstanceState into its attributes
// as upjet's terraformPluginSDKExternal.fromInstanceStateToJSONMap
// does.
func SDKAttributes(r *sdkschema.Resource, st *tfsdk.InstanceState) (map[string]any, error) {
	if r == nil {
		return nil, ErrNoSchema
	}
	ty := r.CoreConfigSchema().ImpliedType()
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

// FrameworkAttributes decodes a framework state with the framework
// resource r's schema into its attributes, as upjet's framework connector
// does before it calls GetExternalNameFn. unmarshal is the state's
// DynamicValue.Unmarshal (tfprotov5 on the v1 line, tfprotov6 on v2); nil,
// or a null state, gives nil.
func FrameworkAttributes(r fwresource.Resource, unmarshal func(tftypes.Type) (tftypes.Value, error)) (map[string]any, error) {
	if unmarshal == nil {
		return nil, nil
	}
	if r == nil {
		return nil, ErrNoSchema
	}
	ctx := context.Background()
	var resp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		return nil, fmt.Errorf("cannot read the framework schema: %v", resp.Diagnostics)
	}
	v, err := unmarshal(resp.Schema.Type().TerraformType(ctx))
	if err != nil {
		return nil, fmt.Errorf("cannot decode the framework state: %w", err)
	}
	if v.IsNull() {
		return nil, nil
	}
	g, err := GoValue(v)
	if err != nil {
		return nil, fmt.Errorf("cannot convert the framework state: %w", err)
	}
	m, ok := g.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the framework state is a %T, not an object", g)
	}
	return m, nil
}

// GoValue converts a Terraform value into the Go value upjet's
// framework connector makes of it (tfValueToGoValue): objects and maps
// into map[string]any, lists, sets and tuples into []any, integral numbers
// into int64 and others into float64, null into nil. An unknown value,
// which no applied state holds, a number that fits neither (an integer
// beyond int64, a float64 overflow or underflow), and a dynamic value are
// errors, as they are to upjet.
func GoValue(v tftypes.Value) (any, error) {
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
			g, err := GoValue(e)
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
			g, err := GoValue(e)
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

// numberValue converts a known, non-null Terraform number as upjet's
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
