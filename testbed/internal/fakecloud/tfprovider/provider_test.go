package tfprovider

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
)

func TestProviderInternalValidate(t *testing.T) {
	if err := New().InternalValidate(); err != nil {
		t.Fatalf("InternalValidate: %v", err)
	}
}

func TestSchemaContract(t *testing.T) {
	type attr struct {
		Type                         schema.ValueType
		Required, Optional, ForceNew bool
		Default                      any
	}
	summarize := func(r *schema.Resource) map[string]attr {
		out := map[string]attr{}
		for k, s := range r.Schema {
			out[k] = attr{s.Type, s.Required, s.Optional, s.ForceNew, s.Default}
		}
		return out
	}
	p := New()
	cases := map[string]struct {
		reason string
		got    map[string]attr
		want   map[string]attr
	}{
		"RecordSet": {
			reason: "fakecloud_record_set must match the shared contract.",
			got:    summarize(p.ResourcesMap["fakecloud_record_set"]),
			want: map[string]attr{
				"zone":    {Type: schema.TypeString, Required: true, ForceNew: true},
				"name":    {Type: schema.TypeString, Required: true, ForceNew: true},
				"type":    {Type: schema.TypeString, Required: true},
				"ttl":     {Type: schema.TypeInt, Optional: true, Default: 300},
				"rrdatas": {Type: schema.TypeList, Required: true},
				"tags":    {Type: schema.TypeMap, Optional: true},
			},
		},
		"Record": {
			reason: "fakecloud_record is GCP-like: no tags, zone, name and type in its ID, so all ForceNew.",
			got:    summarize(p.ResourcesMap["fakecloud_record"]),
			want: map[string]attr{
				"zone":    {Type: schema.TypeString, Required: true, ForceNew: true},
				"name":    {Type: schema.TypeString, Required: true, ForceNew: true},
				"type":    {Type: schema.TypeString, Required: true, ForceNew: true},
				"ttl":     {Type: schema.TypeInt, Optional: true, Default: 300},
				"rrdatas": {Type: schema.TypeList, Required: true},
			},
		},
		"Bucket": {
			reason: "fakecloud_bucket is S3-like: named by its bucket argument, which is its ID, so ForceNew; tags; a computed creation date.",
			got:    summarize(p.ResourcesMap["fakecloud_bucket"]),
			want: map[string]attr{
				"bucket":        {Type: schema.TypeString, Required: true, ForceNew: true},
				"tags":          {Type: schema.TypeMap, Optional: true},
				"creation_date": {Type: schema.TypeString},
			},
		},
		"Network": {
			reason: "fakecloud_network must match the shared contract.",
			got:    summarize(p.ResourcesMap["fakecloud_network"]),
			want: map[string]attr{
				"name":       {Type: schema.TypeString, Required: true},
				"cidr_block": {Type: schema.TypeString, Optional: true},
				"tags":       {Type: schema.TypeMap, Optional: true},
				"arn":        {Type: schema.TypeString},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestConfigureNeedsEndpoint(t *testing.T) {
	t.Setenv(EndpointEnvVar, "")
	p := New()
	diags := p.Configure(context.Background(), terraform.NewResourceConfigRaw(map[string]any{}))
	if !diags.HasError() {
		t.Fatal("Configure without an endpoint must fail")
	}
	if got, want := diags[0].Summary, "fakecloud endpoint is not set: set the provider's endpoint or $FAKECLOUD_ENDPOINT"; got != want {
		t.Errorf("summary: got %q, want %q", got, want)
	}
}
