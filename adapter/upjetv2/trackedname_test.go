package upjetv2

import (
	"context"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujfake "github.com/crossplane/upjet/v2/pkg/resource/fake"
	"github.com/google/go-cmp/cmp"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	fwschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	sdkschema "github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"

	"github.com/intentjournal/intentjournal/recovery/sdkschema/tfstate"
)

// recordIDTemplate is a record's templated ID, as provider-upjet-gcp and
// -azure configure most kinds (TemplatedStringAsIdentifier): the external
// name is its name argument, a part of the ID.
const recordIDTemplate = "zones/{{ .parameters.zone }}/records/{{ .external_name }}/{{ .parameters.type }}"

// sdkRecord is the plugin SDK schema of a record with a templated ID.
var sdkRecord = &sdkschema.Resource{Schema: map[string]*sdkschema.Schema{
	"zone": {Type: sdkschema.TypeString, Required: true},
	"name": {Type: sdkschema.TypeString, Required: true},
	"type": {Type: sdkschema.TypeString, Required: true},
	"ttl":  {Type: sdkschema.TypeInt, Optional: true},
	"tags": {Type: sdkschema.TypeMap, Optional: true, Elem: &sdkschema.Schema{Type: sdkschema.TypeString}},
}}

// fwRecord is the same record as a terraform-plugin-framework resource:
// only its schema is read.
type fwRecord struct{}

func (fwRecord) Metadata(_ context.Context, _ fwresource.MetadataRequest, resp *fwresource.MetadataResponse) {
	resp.TypeName = "fake_record"
}

func (fwRecord) Schema(_ context.Context, _ fwresource.SchemaRequest, resp *fwresource.SchemaResponse) {
	resp.Schema = fwschema.Schema{Attributes: map[string]fwschema.Attribute{
		"id":      fwschema.StringAttribute{Computed: true},
		"zone":    fwschema.StringAttribute{Required: true},
		"name":    fwschema.StringAttribute{Required: true},
		"type":    fwschema.StringAttribute{Required: true},
		"ttl":     fwschema.Int64Attribute{Optional: true},
		"weight":  fwschema.Float64Attribute{Optional: true},
		"enabled": fwschema.BoolAttribute{Optional: true},
		"rrdatas": fwschema.ListAttribute{ElementType: basetypes.StringType{}, Optional: true},
		"tags":    fwschema.MapAttribute{ElementType: basetypes.StringType{}, Optional: true},
	}}
}

func (fwRecord) Create(context.Context, fwresource.CreateRequest, *fwresource.CreateResponse) {}
func (fwRecord) Read(context.Context, fwresource.ReadRequest, *fwresource.ReadResponse)       {}
func (fwRecord) Update(context.Context, fwresource.UpdateRequest, *fwresource.UpdateResponse) {}
func (fwRecord) Delete(context.Context, fwresource.DeleteRequest, *fwresource.DeleteResponse) {}

// fwRecordState encodes a framework state of fwRecord with id, as the
// framework returns it from ApplyResourceChange (msgpack).
func fwRecordState(t *testing.T, id string) *tfprotov6.DynamicValue {
	t.Helper()
	var resp fwresource.SchemaResponse
	fwRecord{}.Schema(context.Background(), fwresource.SchemaRequest{}, &resp)
	ty := resp.Schema.Type().TerraformType(context.Background())
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	v := tftypes.NewValue(ty, map[string]tftypes.Value{
		"id": str(id), "zone": str("z"), "name": str("www"), "type": str("A"),
		"ttl":     tftypes.NewValue(tftypes.Number, 300),
		"weight":  tftypes.NewValue(tftypes.Number, 0.5),
		"enabled": tftypes.NewValue(tftypes.Bool, true),
		"rrdatas": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{str("192.0.2.1")}),
		"tags":    tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil),
	})
	dv, err := tfprotov6.NewDynamicValue(ty, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// TestTrackedCreatedExternalName: the callback of a plugin SDK or
// framework create settles with the external name upjet's own connectors
// set, GetExternalNameFn of the state's attributes. For a templated ID
// that is a part of the ID: writing the whole ID, as the callback did
// before, made upjet's next Observe plan a rename of the name argument
// ("refuse to update the external resource because the following update
// requires replacing it") until an Observe set the name back.
func TestTrackedCreatedExternalName(t *testing.T) {
	templated := ujconfig.TemplatedStringAsIdentifier("name", recordIDTemplate)
	sdk := func(en ujconfig.ExternalName) *ujconfig.Resource {
		return &ujconfig.Resource{TerraformResource: sdkRecord, ExternalName: en}
	}
	fw := func(en ujconfig.ExternalName) *ujconfig.Resource {
		return &ujconfig.Resource{TerraformPluginFrameworkResource: fwRecord{}, ExternalName: en}
	}
	sdkState := func(id string) func(*tjcontroller.AsyncTracker) {
		return func(tr *tjcontroller.AsyncTracker) {
			tr.SetTfState(&tfsdk.InstanceState{ID: id, Attributes: map[string]string{
				"id": id, "zone": "z", "name": "www", "type": "A", "ttl": "300", "tags.%": "1", "tags.team": "a",
			}})
		}
	}
	cases := map[string]struct {
		reason  string
		r       *ujconfig.Resource
		set     func(*tjcontroller.AsyncTracker)
		want    string
		wantErr string
	}{
		"SDKTemplated": {
			reason: "A plugin SDK kind with a templated ID settles with the name the template binds, not the ID.",
			r:      sdk(templated), set: sdkState("zones/z/records/www/A"), want: "www",
		},
		"SDKIdentifierFromProvider": {
			reason: "A kind the cloud names settles with the ID.",
			r:      sdk(ujconfig.IdentifierFromProvider), set: sdkState("rec-0123"), want: "rec-0123",
		},
		"SDKParameterAsIdentifier": {
			reason: "A kind whose ID is a parameter settles with the ID, which is that parameter.",
			r:      sdk(ujconfig.ParameterAsIdentifier("name")), set: sdkState("www"), want: "www",
		},
		"SDKNoID": {
			reason: "A state with no ID leaves the intent to Observe.",
			r:      sdk(templated), set: sdkState(""),
		},
		"SDKNoSchema": {
			reason:  "Without a schema the state cannot be read as upjet reads it: the callback must not guess.",
			r:       &ujconfig.Resource{ExternalName: templated},
			set:     sdkState("zones/z/records/www/A"),
			wantErr: tfstate.ErrNoSchema.Error(),
		},
		"FrameworkTemplated": {
			reason: "A framework kind with a templated ID settles with the name the template binds, not the ID.",
			r:      fw(templated),
			set:    func(tr *tjcontroller.AsyncTracker) { tr.SetFrameworkTFState(fwRecordState(t, "zones/z/records/www/A")) },
			want:   "www",
		},
		"FrameworkIdentifierFromProvider": {
			reason: "A framework kind the cloud names settles with the ID.",
			r:      fw(ujconfig.IdentifierFromProvider),
			set:    func(tr *tjcontroller.AsyncTracker) { tr.SetFrameworkTFState(fwRecordState(t, "addr-0123")) },
			want:   "addr-0123",
		},
		"FrameworkNotAnObject": {
			reason: "A framework state that does not decode with the schema is an error, not a name.",
			r:      fw(templated),
			set: func(tr *tjcontroller.AsyncTracker) {
				tr.SetFrameworkTFState(&tfprotov6.DynamicValue{JSON: []byte(`[1]`)})
			},
			wantErr: "cannot decode the framework state",
		},
		"None": {
			reason: "Before any create there is no name.",
			r:      sdk(templated), set: func(*tjcontroller.AsyncTracker) {},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			store := tjcontroller.NewOperationStore(logging.NewNopLogger())
			mg := &ujfake.ModernTerraformed{}
			mg.SetNamespace("a")
			mg.SetName("www")
			mg.SetUID("u-1")
			tc.set(store.Tracker(mg))
			got, err := trackedCreated(store, tc.r)(mg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\ntrackedCreated(): error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\ntrackedCreated(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got.TerraformID); diff != "" {
				t.Errorf("%s\ntrackedCreated(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestGoValue pins the conversion of a framework state's attributes to
// upjet's Go values: numbers int64 when integral, float64 otherwise;
// lists []any; null nil.
func TestGoValue(t *testing.T) {
	attrs, err := frameworkAttributes(&ujconfig.Resource{TerraformPluginFrameworkResource: fwRecord{}}, fwRecordState(t, "r-1"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": "r-1", "zone": "z", "name": "www", "type": "A", "ttl": int64(300), "weight": 0.5, "enabled": true,
		"rrdatas": []any{"192.0.2.1"}, "tags": nil,
	}
	if diff := cmp.Diff(want, attrs); diff != "" {
		t.Errorf("frameworkAttributes(): -want, +got:\n%s", diff)
	}
	if _, err := tfstate.GoValue(tftypes.NewValue(tftypes.String, tftypes.UnknownValue)); err == nil {
		t.Error("tfstate.GoValue(unknown): no error, want one")
	}
}

// FuzzFrameworkAttributes checks that no framework state bytes, msgpack or
// JSON, make the reader panic, and that what it reads agrees with the
// state's id: the callback runs outside upjet's panic handler.
func FuzzFrameworkAttributes(f *testing.F) {
	f.Add(fwRecordState(&testing.T{}, "zones/z/records/www/A").MsgPack, false)
	f.Add([]byte(`{"id":"r-1","zone":"z","name":"www","type":"A","ttl":300,"weight":0.5,"enabled":true,"rrdatas":["192.0.2.1"],"tags":null}`), true)
	f.Add([]byte{0xc0}, false)
	f.Add([]byte(`null`), true)
	f.Add([]byte(`[1]`), true)
	r := &ujconfig.Resource{TerraformPluginFrameworkResource: fwRecord{}, ExternalName: ujconfig.TemplatedStringAsIdentifier("name", recordIDTemplate)}
	f.Fuzz(func(t *testing.T, b []byte, isJSON bool) {
		dv := &tfprotov6.DynamicValue{MsgPack: b}
		if isJSON {
			dv = &tfprotov6.DynamicValue{JSON: b}
		}
		attrs, err := frameworkAttributes(r, dv)
		if err != nil || attrs == nil {
			return
		}
		if id, ok := attrs["id"]; ok && id != nil {
			if _, ok := id.(string); !ok {
				t.Fatalf("frameworkAttributes(): id is a %T, want a string", id)
			}
		}
		_, _ = externalNameFromState(r, attrs)
	})
}

// FuzzSDKAttributes checks that no plugin SDK flatmap state makes the
// reader panic: the callback runs outside upjet's panic handler.
func FuzzSDKAttributes(f *testing.F) {
	f.Add("zones/z/records/www/A", "ttl", "300", "tags.%", "1")
	f.Add("x", "ttl", "not-a-number", "tags.%", "2")
	f.Add("x", "tags.%", "-1", "tags.#", "1")
	f.Add("", "zone", "", "", "")
	r := &ujconfig.Resource{TerraformResource: sdkRecord, ExternalName: ujconfig.TemplatedStringAsIdentifier("name", recordIDTemplate)}
	f.Fuzz(func(t *testing.T, id, k1, v1, k2, v2 string) {
		st := &tfsdk.InstanceState{ID: id, Attributes: map[string]string{"id": id, "name": "www", k1: v1, k2: v2}}
		attrs, err := tfstate.SDKAttributes(r.TerraformResource, st)
		if err != nil {
			return
		}
		_, _ = externalNameFromState(r, attrs)
	})
}
