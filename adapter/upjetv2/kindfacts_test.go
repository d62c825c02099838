package upjetv2

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/crossplane/upjet/v2/pkg/config"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// TestTagFieldsCanHoldTags: fields named like tags that hold something
// else are not tags fields.
func TestTagFieldsCanHoldTags(t *testing.T) {
	m := func(mod func(*schema.Schema)) *schema.Schema {
		s := &schema.Schema{Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}}
		if mod != nil {
			mod(s)
		}
		return s
	}
	cases := []struct {
		name       string
		tfResource string
		schema     map[string]*schema.Schema
		want       []string
	}{
		{name: "AWS tags", tfResource: "aws_vpc", schema: map[string]*schema.Schema{"tags": m(nil)}, want: []string{"tags"}},
		{name: "GCP labels and Resource Manager tags (ForceNew)", tfResource: "google_pubsub_topic",
			schema: map[string]*schema.Schema{"labels": m(nil), "tags": m(func(s *schema.Schema) { s.ForceNew = true })}, want: []string{"labels"}},
		{name: "GCP Resource Manager tags, by description", tfResource: "google_folder",
			schema: map[string]*schema.Schema{"tags": m(func(s *schema.Schema) {
				s.Description = "A map of resource manager tags. Resource manager tag keys and values have the same definition as resource manager tags."
			})}},
		{name: "node labels", tfResource: "azurerm_kubernetes_cluster_node_pool",
			schema: map[string]*schema.Schema{"tags": m(nil), "node_labels": m(nil)}, want: []string{"tags"}},
		{name: "node affinity labels", tfResource: "google_compute_node_template", schema: map[string]*schema.Schema{"node_affinity_labels": m(nil)}},
		{name: "EKS node group labels", tfResource: "aws_eks_node_group",
			schema: map[string]*schema.Schema{"tags": m(nil), "labels": m(nil)}, want: []string{"tags"}},
		{name: "user and resource labels", tfResource: "google_container_cluster",
			schema: map[string]*schema.Schema{"resource_labels": m(nil), "user_labels": m(nil)}, want: []string{"resourceLabels", "userLabels"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tagFields(tc.tfResource, &schema.Resource{Schema: tc.schema})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tagFields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKindFacts(t *testing.T) {
	tagged := &schema.Resource{Schema: map[string]*schema.Schema{
		"cidr_block": {Type: schema.TypeString, Required: true},
		"tags":       {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"tags_all":   {Type: schema.TypeMap, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
	}}
	labelled := &schema.Resource{Schema: map[string]*schema.Schema{
		"labels":           {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"user_labels":      {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"effective_labels": {Type: schema.TypeMap, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"label_count":      {Type: schema.TypeInt, Optional: true},
	}}
	untagged := &schema.Resource{Schema: map[string]*schema.Schema{
		"managed_zone": {Type: schema.TypeString, Required: true},
	}}
	failing := config.IdentifierFromProvider
	failing.DisableNameInitializer = false
	failing.GetIDFn = func(context.Context, string, map[string]any, map[string]any) (string, error) {
		return "", errors.New("needs the provider's client")
	}
	zoneAssociation := &schema.Resource{Schema: map[string]*schema.Schema{
		"zone_id": {Type: schema.TypeString, Required: true},
		"vpc_id":  {Type: schema.TypeString, Required: true},
	}}
	accountARN := config.NameAsIdentifier
	accountARN.GetIDFn = func(_ context.Context, name string, _ map[string]any, setup map[string]any) (string, error) {
		md, ok := setup["client_metadata"].(map[string]string)
		if !ok {
			return "", errors.New("no client_metadata")
		}
		return "arn:aws:iam::" + md["account_id"] + ":policy/" + name, nil
	}
	cases := map[string]struct {
		reason string
		r      *config.Resource
		want   strategy.Facts
		// wantStrategy is what strategy.Classify makes of the facts
		// with no templates.
		wantStrategy strategy.Strategy
	}{
		"NameAsIdentifier": {
			reason:       "the external name is the name argument and the ID",
			r:            &config.Resource{Name: "aws_iam_role", ExternalName: config.NameAsIdentifier, TerraformResource: tagged},
			want:         strategy.Facts{TerraformResource: "aws_iam_role", IDKnownBeforeCreate: true, ExternalNameConfig: "NameAsIdentifier", TagFields: []string{"tags"}},
			wantStrategy: strategy.ObserveByName,
		},
		"ParameterAsIdentifier": {
			reason: "the external name is another argument and the ID",
			r:      &config.Resource{Name: "aws_accessanalyzer_analyzer", ExternalName: config.ParameterAsIdentifier("analyzer_name"), TerraformResource: untagged},
			want: strategy.Facts{TerraformResource: "aws_accessanalyzer_analyzer", IDKnownBeforeCreate: true,
				ExternalNameConfig: "ParameterAsIdentifier", Detail: `"analyzer_name"`},
			wantStrategy: strategy.ObserveByName,
		},
		"IdentifierFromProvider": {
			reason:       "no external name before the create: the cloud assigns the ID; tags make it listable",
			r:            &config.Resource{Name: "aws_vpc", ExternalName: config.IdentifierFromProvider, TerraformResource: tagged},
			want:         strategy.Facts{TerraformResource: "aws_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}},
			wantStrategy: strategy.ListByTags,
		},
		"IdentifierFromProviderNoTags": {
			reason:       "the public report's kind: cloud-assigned, no labels",
			r:            &config.Resource{Name: "google_dns_record_set", ExternalName: config.IdentifierFromProvider, TerraformResource: untagged},
			want:         strategy.Facts{TerraformResource: "google_dns_record_set", ExternalNameConfig: "IdentifierFromProvider"},
			wantStrategy: strategy.ReportOnly,
		},
		"TemplatedBound": {
			reason: "a template with the external name set into an argument",
			r: &config.Resource{Name: "google_dns_managed_zone", TerraformResource: labelled,
				ExternalName: config.TemplatedStringAsIdentifier("name", "projects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}")},
			want: strategy.Facts{TerraformResource: "google_dns_managed_zone", IDKnownBeforeCreate: true,
				ExternalNameConfig: "Templated:params/setup+bound-name", TagFields: []string{"labels", "userLabels"}},
			wantStrategy: strategy.ObserveByName,
		},
		"TemplatedParamsOnly": {
			reason: "a template of arguments and setup alone",
			r: &config.Resource{Name: "aws_account_alternate_contact",
				ExternalName: config.TemplatedStringAsIdentifier("", "{{ .parameters.alternate_contact_type }}")},
			want: strategy.Facts{TerraformResource: "aws_account_alternate_contact", IDKnownBeforeCreate: true,
				ExternalNameConfig: "Templated:params/setup-only"},
			wantStrategy: strategy.ObserveByName,
		},
		"TemplatedUnbound": {
			reason: "a template of an external name no argument holds: the cloud's ID",
			r: &config.Resource{Name: "aws_codeartifact_domain", TerraformResource: tagged,
				ExternalName: config.TemplatedStringAsIdentifier("", "arn:aws:codeartifact:{{ .setup.configuration.region }}:domain/{{ .external_name }}")},
			want: strategy.Facts{TerraformResource: "aws_codeartifact_domain", ExternalNameConfig: "Templated:unbound-name",
				TagFields: []string{"tags"}},
			wantStrategy: strategy.ListByTags,
		},
		// Issue #32, item 1: probed with the types upjet passes and
		// parameters synthesised from the schema.
		"FormattedIdentifierFromProvider": {
			reason: "no external name before the create, but a GetIDFn that builds the ID from the spec: its ID is known (provider-upjet-aws's FormattedIdentifierFromProvider)",
			r: &config.Resource{Name: "aws_route53_zone_association", TerraformResource: zoneAssociation,
				ExternalName: formattedIdentifierFromProvider(":", "zone_id", "vpc_id")},
			want:         strategy.Facts{TerraformResource: "aws_route53_zone_association", IDFromSpec: true, ExternalNameConfig: "IdentifierFromSpec"},
			wantStrategy: strategy.ObserveByName,
		},
		"FormattedIdentifierMissingArgument": {
			reason: "a GetIDFn that needs an argument the schema does not have builds no ID: cloud-assigned",
			r: &config.Resource{Name: "aws_route53_zone_association", TerraformResource: untagged,
				ExternalName: formattedIdentifierFromProvider(":", "zone_id", "vpc_id")},
			want:         strategy.Facts{TerraformResource: "aws_route53_zone_association", ExternalNameConfig: "IdentifierFromProvider"},
			wantStrategy: strategy.ReportOnly,
		},
		"IdentifierFromProviderWithStub": {
			reason:       "a GetIDFn that stands a stub in for the empty external name reads at a made-up ID before the create: cloud-assigned, never observed by it (provider-upjet-aws's identifierFromProviderWithDefaultStub)",
			r:            &config.Resource{Name: "aws_vpc_security_group_rule", TerraformResource: zoneAssociation, ExternalName: withStub(func(_ map[string]any, en string) string { return en })},
			want:         strategy.Facts{TerraformResource: "aws_vpc_security_group_rule", ExternalNameConfig: "IdentifierFromProvider"},
			wantStrategy: strategy.ReportOnly,
		},
		"ArgumentAndStub": {
			reason: "an ID that follows the spec but holds the cloud's value too is cloud-assigned (provider-upjet-aws's networkmonitorProbe)",
			r: &config.Resource{Name: "aws_networkmonitor_probe", TerraformResource: zoneAssociation,
				ExternalName: withStub(func(p map[string]any, en string) string { s, _ := p["zone_id"].(string); return s + "," + en })},
			want:         strategy.Facts{TerraformResource: "aws_networkmonitor_probe", ExternalNameConfig: "IdentifierFromProvider"},
			wantStrategy: strategy.ReportOnly,
		},
		"CustomReadsClientMetadata": {
			reason: "a GetIDFn reading the account from client_metadata, a map[string]string as upjet passes it, is probed as it runs",
			r:      &config.Resource{Name: "aws_iam_policy", ExternalName: accountARN},
			want: strategy.Facts{TerraformResource: "aws_iam_policy", IDKnownBeforeCreate: true,
				ExternalNameConfig: "Templated:params/setup+bound-name"},
			wantStrategy: strategy.ObserveByName,
		},
		"CustomFailing": {
			reason: "a GetIDFn that cannot run on spec and setup alone is taken as cloud-assigned",
			r:      &config.Resource{Name: "aws_custom", ExternalName: failing},
			want: strategy.Facts{TerraformResource: "aws_custom", ExternalNameConfig: "custom:GetIDFn needs more than spec and setup",
				Detail: "needs the provider's client"},
			wantStrategy: strategy.ReportOnly,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := KindFacts(tc.r)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nKindFacts (-want +got):\n%s", tc.reason, diff)
			}
			if s := strategy.Classify(got, strategy.Templates{}).Strategy; s != tc.wantStrategy {
				t.Errorf("%s\nClassify(KindFacts): %s, want %s", tc.reason, s, tc.wantStrategy)
			}
		})
	}
}

// formattedIdentifierFromProvider is provider-upjet-aws's
// FormattedIdentifierFromProvider (config/externalname.go), as it builds
// the configuration: IdentifierFromProvider with a GetIDFn that joins the
// arguments keys with separator, failing when one is missing.
func formattedIdentifierFromProvider(separator string, keys ...string) config.ExternalName {
	e := config.IdentifierFromProvider
	e.GetIDFn = func(_ context.Context, _ string, parameters map[string]any, _ map[string]any) (string, error) {
		vals := make([]string, 0, len(keys))
		for _, key := range keys {
			v, ok := parameters[key].(string)
			if !ok || v == "" {
				return "", fmt.Errorf("%s cannot be empty", key)
			}
			vals = append(vals, v)
		}
		return strings.Join(vals, separator), nil
	}
	return e
}

// withStub is provider-upjet-aws's identifierFromProviderWithDefaultStub
// shape: IdentifierFromProvider with a GetIDFn that stands "stub" in for
// the empty external name, the ID id makes of the arguments and it.
func withStub(id func(parameters map[string]any, externalName string) string) config.ExternalName {
	e := config.IdentifierFromProvider
	e.GetIDFn = func(_ context.Context, externalName string, parameters map[string]any, _ map[string]any) (string, error) {
		if externalName == "" {
			externalName = "stub"
		}
		return id(parameters, externalName), nil
	}
	return e
}
