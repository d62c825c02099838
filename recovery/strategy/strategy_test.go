package strategy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustTemplates(t testing.TB, src map[string]string) Templates {
	t.Helper()
	tt, err := NewTemplates(src)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

func TestClassify(t *testing.T) {
	templates := mustTemplates(t, map[string]string{
		"google_dns_record_set":     "projects/{{ .setup.configuration.project }}/managedZones/{{ .parameters.managed_zone }}/rrsets/{{ .parameters.name }}/{{ .parameters.type }}",
		"aws_s3_bucket":             "{{ .parameters.bucket }}",
		"aws_cloudformation_stack":  "stack/{{ .parameters.name }}/{{ .external_name }}",
		"aws_tagged_unbound_thingy": "thing/{{ .external_name }}",
	})
	cases := map[string]struct {
		reason string
		facts  Facts
		want   Decision
	}{
		"KnownID": {
			reason: "a kind whose ID is known before the create is observed by that ID",
			facts:  Facts{Provider: "aws", TerraformResource: "aws_iam_role", IDKnownBeforeCreate: true, ExternalNameConfig: "NameAsIdentifier", TagFields: []string{"tags"}},
			want:   Decision{ObserveByName, "the ID is known before the create (NameAsIdentifier): Observe by the ID the create would have made"},
		},
		"KnownIDWithTemplate": {
			reason: "a template never overrides the provider's own GetIDFn",
			facts:  Facts{Provider: "aws", TerraformResource: "aws_s3_bucket", IDKnownBeforeCreate: true, ExternalNameConfig: "ParameterAsIdentifier"},
			want:   Decision{ObserveByName, "the ID is known before the create (ParameterAsIdentifier): Observe by the ID the create would have made; its ID template is not needed and is not used"},
		},
		"IDFromSpec": {
			reason: "a cloud-named kind whose GetIDFn builds the ID from spec alone is observed by that ID, before any template or tags",
			facts: Facts{Provider: "aws", TerraformResource: "google_dns_record_set", IDFromSpec: true, ExternalNameConfig: "IdentifierFromSpec",
				TagFields: []string{"tags"}},
			want: Decision{ObserveByName, "the cloud names the resource, but its ID is built from spec and setup before the create (IdentifierFromSpec): Observe by that ID, adopt by the external name the state gives; its ID template is not needed and is not used"},
		},
		"Templated": {
			reason: "a cloud-assigned kind with a template that needs no external name is observed by the rendered ID",
			facts:  Facts{Provider: "gcp", TerraformResource: "google_dns_record_set", ExternalNameConfig: "IdentifierFromProvider"},
			want:   Decision{ObserveByTemplate, "the cloud assigns the ID and spec determines it: Observe by the ID the kind's template renders"},
		},
		"TemplateBeatsTags": {
			reason: "a template names one resource exactly, so it comes before tags",
			facts:  Facts{Provider: "gcp", TerraformResource: "google_dns_record_set", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"labels"}},
			want:   Decision{ObserveByTemplate, "the cloud assigns the ID and spec determines it: Observe by the ID the kind's template renders"},
		},
		"Tags": {
			reason: "a cloud-assigned kind with a tags field is listed by tags",
			facts:  Facts{Provider: "aws", TerraformResource: "aws_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}},
			want:   Decision{ListByTags, "the cloud assigns the ID: list by the crossplane tags in spec.forProvider.tags"},
		},
		"TwoTagFields": {
			reason: "every tags field is named",
			facts:  Facts{Provider: "gcp", TerraformResource: "google_monitoring_notification_channel", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"labels", "userLabels"}},
			want:   Decision{ListByTags, "the cloud assigns the ID: list by the crossplane tags in spec.forProvider.labels, spec.forProvider.userLabels"},
		},
		"UnboundTemplateWithTags": {
			reason: "a template that needs the cloud's ID cannot find what the create made; tags still can",
			facts:  Facts{Provider: "aws", TerraformResource: "aws_tagged_unbound_thingy", ExternalNameConfig: "Templated:extname-unbound", TagFields: []string{"tags"}},
			want: Decision{ListByTags, "the cloud assigns the ID: list by the crossplane tags in spec.forProvider.tags; " +
				"its ID template uses .external_name, which a cloud-assigned kind does not know before the create"},
		},
		"UnboundTemplateNoTags": {
			reason: "a template that needs the cloud's ID leaves a kind with no tags report-only",
			facts:  Facts{Provider: "aws", TerraformResource: "aws_cloudformation_stack", ExternalNameConfig: "Templated:extname-unbound"},
			want: Decision{ReportOnly, "the cloud assigns the ID, the kind has no tags or labels field; " +
				"its ID template uses .external_name, which a cloud-assigned kind does not know before the create"},
		},
		"Nothing": {
			reason: "a cloud-assigned kind with neither tags nor a template is report-only",
			facts:  Facts{Provider: "aws", TerraformResource: "aws_route53_record", ExternalNameConfig: "IdentifierFromProvider"},
			want:   Decision{ReportOnly, "the cloud assigns the ID, the kind has no tags or labels field and no ID template"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Classify(tc.facts, templates)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nClassify(%+v) (-want +got):\n%s", tc.reason, tc.facts, diff)
			}
		})
	}
}

func TestStrategyValid(t *testing.T) {
	for _, s := range Strategies {
		if !s.Valid() {
			t.Errorf("%q.Valid() = false", s)
		}
	}
	for _, s := range []Strategy{"", "observe", "Report-Only"} {
		if s.Valid() {
			t.Errorf("%q.Valid() = true", s)
		}
	}
}
