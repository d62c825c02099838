package config

import (
	"encoding/json"
	"strings"
	"testing"

	ujconfig "github.com/crossplane/upjet/pkg/config"
	"github.com/google/go-cmp/cmp"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
)

func TestGetProvider(t *testing.T) {
	pc, err := GetProvider()
	if err != nil {
		t.Fatalf("GetProvider(): %v", err)
	}
	type summary struct {
		Kind               string
		ShortGroup         string
		UseSDKClient       bool
		UseAsync           bool
		NameInitializer    bool
		Initializers       int
		ExternalNameFromID string
	}
	summarize := func(r *ujconfig.Resource) summary {
		en, err := r.ExternalName.GetExternalNameFn(map[string]any{"id": "x-1"})
		if err != nil {
			t.Fatalf("GetExternalNameFn: %v", err)
		}
		return summary{
			Kind:               r.Kind,
			ShortGroup:         r.ShortGroup,
			UseSDKClient:       r.ShouldUseTerraformPluginSDKClient(),
			UseAsync:           r.UseAsync,
			NameInitializer:    !r.ExternalName.DisableNameInitializer,
			Initializers:       len(r.InitializerFns),
			ExternalNameFromID: en,
		}
	}
	cases := map[string]struct {
		reason string
		want   summary
	}{
		RecordSetResource: {
			reason: "RecordSet should be an async no-fork SDK resource named by its server ID, with the external tagger.",
			want:   summary{Kind: "RecordSet", UseSDKClient: true, UseAsync: true, Initializers: 1, ExternalNameFromID: "x-1"},
		},
		NetworkResource: {
			reason: "Network should be an async no-fork SDK resource named by its server ID, with the external tagger.",
			want:   summary{Kind: "Network", UseSDKClient: true, UseAsync: true, Initializers: 1, ExternalNameFromID: "x-1"},
		},
	}
	if diff := cmp.Diff(len(cases), len(pc.Resources)); diff != "" {
		t.Errorf("GetProvider(): number of resources: -want, +got:\n%s", diff)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, ok := pc.Resources[name]
			if !ok {
				t.Fatalf("GetProvider(): no resource %q", name)
			}
			if diff := cmp.Diff(tc.want, summarize(r)); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestNewProviderErrors(t *testing.T) {
	cases := map[string]struct {
		reason string
		sdk    *schema.Provider
		want   string
	}{
		"NilProvider": {
			reason: "A nil Terraform provider should be an error, not a panic.",
			sdk:    nil,
			want:   "Terraform provider is nil",
		},
		"MissingResource": {
			reason: "A Terraform provider without the fake cloud's resources should be an error, not a panic.",
			sdk: &schema.Provider{ResourcesMap: map[string]*schema.Resource{
				"fakecloud_other": {Schema: map[string]*schema.Schema{"a": {Type: schema.TypeString, Optional: true}}},
			}},
			want: "cannot configure provider",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := newProvider(tc.sdk)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nnewProvider(): want error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
}

// TestProviderSchemaJSON checks that the document parses as the output of
// `terraform providers schema -json` and describes the SDK schema.
func TestProviderSchemaJSON(t *testing.T) {
	b, err := ProviderSchemaJSON(tfprovider.New())
	if err != nil {
		t.Fatalf("ProviderSchemaJSON(): %v", err)
	}
	var ps tfjson.ProviderSchemas
	if err := json.Unmarshal(b, &ps); err != nil {
		t.Fatalf("ProviderSchemaJSON(): not a terraform-json document: %v", err)
	}
	p, ok := ps.Schemas[providerSource]
	if !ok {
		t.Fatalf("ProviderSchemaJSON(): no schema for %s", providerSource)
	}
	type attr struct {
		Type                         string
		Required, Optional, Computed bool
	}
	got := map[string]map[string]attr{}
	for name, s := range p.ResourceSchemas {
		got[name] = map[string]attr{}
		for an, a := range s.Block.Attributes {
			got[name][an] = attr{Type: a.AttributeType.FriendlyName(), Required: a.Required, Optional: a.Optional, Computed: a.Computed}
		}
	}
	want := map[string]map[string]attr{
		RecordSetResource: {
			"id":      {Type: "string", Optional: true, Computed: true},
			"zone":    {Type: "string", Required: true},
			"name":    {Type: "string", Required: true},
			"type":    {Type: "string", Required: true},
			"ttl":     {Type: "number", Optional: true},
			"rrdatas": {Type: "list of string", Required: true},
			"tags":    {Type: "map of string", Optional: true},
		},
		NetworkResource: {
			"id":         {Type: "string", Optional: true, Computed: true},
			"name":       {Type: "string", Required: true},
			"cidr_block": {Type: "string", Optional: true},
			"tags":       {Type: "map of string", Optional: true},
			// The ARN the fake cloud's Tagging API lists it by (#33).
			"arn": {Type: "string", Computed: true},
		},
		// The v2 line's GCP-like Record; the v1 line configures no kind of it.
		"fakecloud_record": {
			"id":      {Type: "string", Optional: true, Computed: true},
			"zone":    {Type: "string", Required: true},
			"name":    {Type: "string", Required: true},
			"type":    {Type: "string", Required: true},
			"ttl":     {Type: "number", Optional: true},
			"rrdatas": {Type: "list of string", Required: true},
		},
		// The v2 line's S3-like Bucket; the v1 line configures no kind of it.
		"fakecloud_bucket": {
			"id":            {Type: "string", Optional: true, Computed: true},
			"bucket":        {Type: "string", Required: true},
			"tags":          {Type: "map of string", Optional: true},
			"creation_date": {Type: "string", Computed: true},
		},
	}
	// The v2 line's Terraform CLI twins of the record set and the network,
	// the same resources under types of their own; the v1 line configures
	// no kind of them.
	want["fakecloud_cli_record_set"], want["fakecloud_cli_network"] = want[RecordSetResource], want[NetworkResource]
	// The v2 line's network tagged after its create (LateTagNetwork), the
	// network's schema under a type of its own.
	want["fakecloud_late_tag_network"] = want[NetworkResource]
	// The v2 line's record whose ID is built from its spec (SpecRecord),
	// the record's schema under a type of its own.
	want["fakecloud_spec_record"] = want["fakecloud_record"]
	// And the record whose external name is its name (NamedRecord).
	want["fakecloud_named_record"] = want["fakecloud_record"]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ProviderSchemaJSON(): resource attributes: -want, +got:\n%s", diff)
	}
	if _, ok := p.ConfigSchema.Block.Attributes["endpoint"]; !ok {
		t.Errorf("ProviderSchemaJSON(): provider schema has no endpoint attribute")
	}
}
