package sdkschema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/adapter"
)

// TestRequiredArguments: an import block's resource block sets the
// required attributes, and the create's values of them.
func TestRequiredArguments(t *testing.T) {
	r := &schema.Resource{Schema: map[string]*schema.Schema{
		"bucket":   {Type: schema.TypeString, Required: true},
		"zone":     {Type: schema.TypeString, Required: true},
		"tags":     {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"id_out":   {Type: schema.TypeString, Computed: true},
		"settings": {Type: schema.TypeList, Required: true, MaxItems: 1, Elem: &schema.Resource{Schema: map[string]*schema.Schema{"x": {Type: schema.TypeString, Optional: true}}}},
		"cidrs":    {Type: schema.TypeList, Required: true, Elem: &schema.Schema{Type: schema.TypeString}},
	}}
	if diff := cmp.Diff([]string{"bucket", "cidrs", "zone"}, RequiredArguments(r)); diff != "" {
		t.Errorf("requiredArguments: the required attributes, not blocks nor optional or computed ones, sorted: -want +got:\n%s", diff)
	}
	if got := RequiredArguments(nil); got != nil {
		t.Errorf("RequiredArguments(nil) = %v, want none", got)
	}
	cases := map[string]struct {
		reason  string
		params  map[string]any
		want    map[string]any
		wantErr bool
	}{
		"All":     {reason: "the block sets what the create sent", params: map[string]any{"bucket": "b", "zone": "z", "cidrs": []any{"10.0.0.0/8"}, "tags": map[string]any{"a": "b"}}, want: map[string]any{"bucket": "b", "zone": "z", "cidrs": []any{"10.0.0.0/8"}}},
		"Missing": {reason: "a required argument the create did not send (a secret's) fails the lookup", params: map[string]any{"bucket": "b", "cidrs": []any{}}, wantErr: true},
		"Null":    {reason: "null is not a value", params: map[string]any{"bucket": "b", "zone": nil, "cidrs": []any{}}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := adapter.RequiredValues(RequiredArguments(r), tc.params)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nadapter.RequiredValues() error = %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); !tc.wantErr && diff != "" {
				t.Errorf("%s\nadapter.RequiredValues(): -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestTagsAttribute(t *testing.T) {
	m := func(keys ...string) *schema.Resource {
		r := &schema.Resource{Schema: map[string]*schema.Schema{}}
		for _, k := range keys {
			r.Schema[k] = &schema.Schema{Type: schema.TypeMap, Optional: true}
		}
		return r
	}
	for _, tc := range []struct {
		r    *schema.Resource
		want string
	}{
		{m("tags", "tags_all"), "tags"},
		{m("labels", "effective_labels"), "labels"},
		{m("tags", "labels"), "tags"},
		{m(), "tags"},
		{nil, "tags"},
	} {
		if got := TagsAttribute(tc.r); got != tc.want {
			t.Errorf("TagsAttribute(%v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
