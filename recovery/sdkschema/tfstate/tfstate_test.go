package tfstate

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// id is ID of a protocol 6 DynamicValue, as upjet v2's tracker holds it;
// nil gives "".
func id(v *tfprotov6.DynamicValue) (string, error) {
	if v == nil {
		return "", nil
	}
	return ID(v.MsgPack, v.JSON)
}

// addressType is the object type of fakecloud_address's framework state.
var addressType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
	"id":   tftypes.String,
	"name": tftypes.String,
	"tags": tftypes.Map{ElementType: tftypes.String},
}}

// addressState encodes a fakecloud_address state as the framework does:
// msgpack, through terraform-plugin-go.
func addressState(t testing.TB, id tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	v := tftypes.NewValue(addressType, map[string]tftypes.Value{
		"id":   id,
		"name": tftypes.NewValue(tftypes.String, "eip"),
		"tags": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{
			"crossplane-name": tftypes.NewValue(tftypes.String, "eip-a"),
		}),
	})
	dv, err := tfprotov6.NewDynamicValue(addressType, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func TestID(t *testing.T) {
	null, err := tfprotov6.NewDynamicValue(addressType, tftypes.NewValue(addressType, nil))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		id  string
		err bool
	}
	cases := map[string]struct {
		reason string
		state  *tfprotov6.DynamicValue
		want   want
	}{
		"MsgPack": {
			reason: "The id of a state the framework returned after a create is read from its msgpack.",
			state:  addressState(t, tftypes.NewValue(tftypes.String, "addr-0123456789abcdef")),
			want:   want{id: "addr-0123456789abcdef"},
		},
		"JSON": {
			reason: "A JSON-encoded state is read too.",
			state:  &tfprotov6.DynamicValue{JSON: []byte(`{"id":"addr-1","name":"eip","tags":null}`)},
			want:   want{id: "addr-1"},
		},
		"UnknownID": {
			reason: "An unknown id (a planned state) is no ID yet, not an error.",
			state:  addressState(t, tftypes.NewValue(tftypes.String, tftypes.UnknownValue)),
		},
		"NullID": {
			reason: "A null id (a state reconstructed before the create) is no ID yet.",
			state:  addressState(t, tftypes.NewValue(tftypes.String, nil)),
		},
		"NullState": {
			reason: "A null state (a create that failed before anything existed) has no ID.",
			state:  &null,
		},
		"Nil": {
			reason: "No state has no ID.",
		},
		"NoIDAttribute": {
			reason: "A framework resource without an id attribute has no ID to read.",
			state:  &tfprotov6.DynamicValue{JSON: []byte(`{"arn":"x"}`)},
		},
		"NotAnObject": {
			reason: "Bytes that do not encode an object are an error, not an empty ID.",
			state:  &tfprotov6.DynamicValue{MsgPack: []byte{0xa3, 'a', 'b', 'c'}},
			want:   want{err: true},
		},
		"Truncated": {
			reason: "A truncated state is an error.",
			state:  &tfprotov6.DynamicValue{MsgPack: addressState(t, tftypes.NewValue(tftypes.String, "addr-1")).MsgPack[:5]},
			want:   want{err: true},
		},
		"IDNotAString": {
			reason: "An id that is not a string is an error.",
			state:  &tfprotov6.DynamicValue{MsgPack: []byte{0x81, 0xa2, 'i', 'd', 0x07}},
			want:   want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			id, err := id(tc.state)
			if diff := cmp.Diff(tc.want, want{id: id, err: err != nil}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nID(): -want, +got (error %v):\n%s", tc.reason, err, diff)
			}
		})
	}
}

// FuzzID checks that no state makes the reader panic, and that
// an ID it reads from msgpack is the one tftypes decodes when the bytes are
// a fakecloud_address state.
func FuzzID(f *testing.F) {
	f.Add(addressState(f, tftypes.NewValue(tftypes.String, "addr-0123456789abcdef")).MsgPack)
	f.Add(addressState(f, tftypes.NewValue(tftypes.String, tftypes.UnknownValue)).MsgPack)
	f.Add(addressState(f, tftypes.NewValue(tftypes.String, nil)).MsgPack)
	f.Add([]byte{0xc0})
	f.Add([]byte{0x81, 0xa2, 'i', 'd', 0x07})
	f.Fuzz(func(t *testing.T, b []byte) {
		dv := &tfprotov6.DynamicValue{MsgPack: b}
		id, err := id(dv)
		if err != nil {
			return
		}
		v, uerr := dv.Unmarshal(addressType)
		if uerr != nil || !v.IsKnown() || v.IsNull() {
			return
		}
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			return
		}
		var want string
		if a := attrs["id"]; a.IsKnown() && !a.IsNull() {
			if err := a.As(&want); err != nil {
				t.Fatal(err)
			}
		}
		if id != want {
			t.Fatalf("ID() = %q, tftypes decodes id %q", id, want)
		}
	})
}

// TestGoValue pins GoValue to upjet's tfValueToGoValue (v1.11.1's and
// v2.3.0's are the same) on single values, the errors included.
func TestGoValue(t *testing.T) {
	huge, _ := new(big.Float).SetString("1e30")
	tiny, _ := new(big.Float).SetString("1e-400")
	cases := map[string]struct {
		reason  string
		v       tftypes.Value
		want    any
		wantErr bool
	}{
		"Integer": {
			reason: "An integral number is an int64.",
			v:      tftypes.NewValue(tftypes.Number, 42), want: int64(42),
		},
		"Float": {
			reason: "Any other number is a float64.",
			v:      tftypes.NewValue(tftypes.Number, 1.25), want: 1.25,
		},
		"IntegerBeyondInt64": {
			reason: "An integer no int64 holds is an error, as it is to upjet.",
			v:      tftypes.NewValue(tftypes.Number, huge), wantErr: true,
		},
		"FloatUnderflow": {
			reason: "A number a float64 rounds to zero is an error, as it is to upjet.",
			v:      tftypes.NewValue(tftypes.Number, tiny), wantErr: true,
		},
		"Set": {
			reason: "A set is a []any.",
			v:      tftypes.NewValue(tftypes.Set{ElementType: tftypes.Bool}, []tftypes.Value{tftypes.NewValue(tftypes.Bool, true)}),
			want:   []any{true},
		},
		"NullString": {
			reason: "A null value is nil.",
			v:      tftypes.NewValue(tftypes.String, nil), want: nil,
		},
		"Unknown": {
			reason: "An unknown value, which no applied state holds, is an error.",
			v:      tftypes.NewValue(tftypes.String, tftypes.UnknownValue), wantErr: true,
		},
		"UnknownInAnObject": {
			reason: "An unknown value inside an object is an error too.",
			v: tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String}},
				map[string]tftypes.Value{"a": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}),
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := GoValue(tc.v)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("%s\nGoValue(): %v, want an error", tc.reason, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nGoValue(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nGoValue(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
