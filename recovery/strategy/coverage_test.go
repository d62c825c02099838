package strategy

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestMeasure(t *testing.T) {
	kinds := []Facts{
		{Provider: "aws", TerraformResource: "aws_iam_role", IDKnownBeforeCreate: true, ExternalNameConfig: "NameAsIdentifier"},
		{Provider: "aws", TerraformResource: "aws_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}},
		{Provider: "aws", TerraformResource: "aws_route53_record", ExternalNameConfig: "IdentifierFromProvider"},
		{Provider: "gcp", TerraformResource: "google_dns_record_set", ExternalNameConfig: "IdentifierFromProvider"},
		{Provider: "gcp", TerraformResource: "google_project_iam_member", ExternalNameConfig: "IdentifierFromProvider"},
		{Provider: "gcp", TerraformResource: "google_dns_managed_zone", IDKnownBeforeCreate: true, ExternalNameConfig: "Templated:params/setup+bound-name"},
	}
	templates := mustTemplates(t, map[string]string{
		"google_dns_record_set":   "{{ .parameters.name }}",
		"google_dns_managed_zone": "{{ .parameters.name }}",
		"aws_nonexistent":         "{{ .parameters.name }}",
	})
	got := Measure(kinds, templates)
	want := Coverage{
		Providers: []ProviderCoverage{
			{Provider: "aws", Kinds: 3, ObserveByName: 1, ListByTags: 1, ReportOnly: 1, Covered: 2, Goal: 2, GoalCovered: 2, GoalMet: true},
			{Provider: "gcp", Kinds: 3, ObserveByName: 1, ObserveByTemplate: 1, ReportOnly: 1, Covered: 2, Goal: 1, GoalCovered: 1, GoalMet: true},
		},
		Total: ProviderCoverage{Provider: "total", Kinds: 6, ObserveByName: 2, ObserveByTemplate: 1, ListByTags: 1, ReportOnly: 2, Covered: 4, Goal: 3, GoalCovered: 3, GoalMet: true},
		UnusedTemplates: []UnusedTemplate{
			{TerraformResource: "aws_nonexistent", Reason: "no kind measured has this Terraform resource type"},
			{TerraformResource: "google_dns_managed_zone", Reason: "the kind's ID is known before the create: observe-by-name needs no template"},
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Coverage{}, "Kinds")); diff != "" {
		t.Errorf("Measure (-want +got):\n%s", diff)
	}
	var strategies []Strategy
	for _, k := range got.Kinds {
		strategies = append(strategies, k.Strategy)
	}
	if diff := cmp.Diff([]Strategy{ObserveByName, ListByTags, ReportOnly, ObserveByTemplate, ReportOnly, ObserveByName}, strategies); diff != "" {
		t.Errorf("Measure: the kinds' strategies, in order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"aws_route53_record", "google_project_iam_member"}, resources(got.Filter(ReportOnly))); diff != "" {
		t.Errorf("Filter(ReportOnly) (-want +got):\n%s", diff)
	}
}

func resources(ks []KindDecision) []string {
	out := []string{}
	for _, k := range ks {
		out = append(out, k.TerraformResource)
	}
	return out
}

// TestMeasuredCoverage is issue #17's measurement over the real kinds of
// provider-upjet-aws, -gcp and -azure: every kind whose ID is known before
// the create and every cloud-assigned kind with a tags field is covered
// with no per-kind input (AWS 702 of 1,029, GCP 258 of 406, Azure 643 of
// 767), and the built-in templates add google_dns_record_set and
// aws_route53_record.
func TestMeasuredCoverage(t *testing.T) {
	f, err := os.Open(realKinds)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds, err := DecodeKinds(f)
	if err != nil {
		t.Fatal(err)
	}
	defaults, err := DefaultTemplates()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason    string
		templates Templates
		want      []ProviderCoverage
	}{
		"NoTemplates": {
			reason: "with no per-kind input, covered is the goal",
			want: []ProviderCoverage{
				{Provider: "aws", Kinds: 1029, ObserveByName: 368, ListByTags: 334, ReportOnly: 327, Covered: 702, Goal: 702, GoalCovered: 702, GoalMet: true},
				{Provider: "gcp", Kinds: 406, ObserveByName: 231, ListByTags: 27, ReportOnly: 148, Covered: 258, Goal: 258, GoalCovered: 258, GoalMet: true},
				{Provider: "azure", Kinds: 767, ObserveByName: 603, ListByTags: 40, ReportOnly: 124, Covered: 643, Goal: 643, GoalCovered: 643, GoalMet: true},
				{Provider: "total", Kinds: 2202, ObserveByName: 1202, ListByTags: 401, ReportOnly: 599, Covered: 1603, Goal: 1603, GoalCovered: 1603, GoalMet: true},
			},
		},
		"DefaultTemplates": {
			reason:    "the two built-in templates cover one report-only kind each of aws and gcp",
			templates: defaults,
			want: []ProviderCoverage{
				{Provider: "aws", Kinds: 1029, ObserveByName: 368, ObserveByTemplate: 1, ListByTags: 334, ReportOnly: 326, Covered: 703, Goal: 702, GoalCovered: 702, GoalMet: true},
				{Provider: "gcp", Kinds: 406, ObserveByName: 231, ObserveByTemplate: 1, ListByTags: 27, ReportOnly: 147, Covered: 259, Goal: 258, GoalCovered: 258, GoalMet: true},
				{Provider: "azure", Kinds: 767, ObserveByName: 603, ListByTags: 40, ReportOnly: 124, Covered: 643, Goal: 643, GoalCovered: 643, GoalMet: true},
				{Provider: "total", Kinds: 2202, ObserveByName: 1202, ObserveByTemplate: 2, ListByTags: 401, ReportOnly: 597, Covered: 1605, Goal: 1603, GoalCovered: 1603, GoalMet: true},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := Measure(kinds, tc.templates)
			if diff := cmp.Diff(tc.want, append(c.Providers, c.Total)); diff != "" {
				t.Errorf("%s\nMeasure (-want +got):\n%s", tc.reason, diff)
			}
			if len(c.UnusedTemplates) != 0 {
				t.Errorf("%s\nunused templates: %+v", tc.reason, c.UnusedTemplates)
			}
		})
	}
	c := Measure(kinds, defaults)
	got := map[string]Strategy{}
	for _, k := range c.Filter(ObserveByTemplate) {
		got[k.TerraformResource] = k.Strategy
	}
	if diff := cmp.Diff(map[string]Strategy{"aws_route53_record": ObserveByTemplate, "google_dns_record_set": ObserveByTemplate}, got); diff != "" {
		t.Errorf("the kinds covered by a template alone (-want +got):\n%s", diff)
	}
}
