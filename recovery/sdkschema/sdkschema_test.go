package sdkschema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/recovery"
)

func TestOf(t *testing.T) {
	r := &schema.Resource{Schema: map[string]*schema.Schema{
		"name": {Type: schema.TypeString, Required: true, ForceNew: true},
		"ttl":  {Type: schema.TypeInt, Optional: true, Default: 300},
		"tags": {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"ids":  {Type: schema.TypeSet, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"pw":   {Type: schema.TypeString, Optional: true, Sensitive: true},
		"arn":  {Type: schema.TypeString, Computed: true},
		"rules": {Type: schema.TypeList, Optional: true, MaxItems: 1, Elem: &schema.Resource{Schema: map[string]*schema.Schema{
			"port": {Type: schema.TypeInt, Required: true},
		}}},
	}}
	want := &recovery.Schema{Attributes: map[string]*recovery.Attribute{
		"name":  {Kind: recovery.KindScalar, Required: true},
		"ttl":   {Kind: recovery.KindScalar, Optional: true, Default: 300},
		"tags":  {Kind: recovery.KindMap, Optional: true},
		"ids":   {Kind: recovery.KindSet, Optional: true},
		"pw":    {Kind: recovery.KindScalar, Optional: true, Sensitive: true},
		"arn":   {Kind: recovery.KindScalar, Computed: true},
		"rules": {Kind: recovery.KindList, Optional: true, Block: &recovery.Schema{Attributes: map[string]*recovery.Attribute{"port": {Kind: recovery.KindScalar, Required: true}}}},
	}}
	if diff := cmp.Diff(want, Of(r), cmpopts.IgnoreFields(recovery.Attribute{}, "Normalize")); diff != "" {
		t.Errorf("Of (-want +got):\n%s", diff)
	}
	// The defaulted argument is what CompareArgs needs it for: a resource
	// holding another value than the default our create left unset differs.
	got := recovery.CompareArgs(Of(r), map[string]any{"name": "a"}, map[string]any{"name": "a", "ttl": 600.0})
	if diff := cmp.Diff([]string{"ttl"}, got.Differ); diff != "" {
		t.Errorf("CompareArgs with the SDK's default (-want +got):\n%s", diff)
	}
	if Of(nil) != nil {
		t.Error("Of(nil) is not nil")
	}
}
