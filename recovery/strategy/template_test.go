package strategy

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTemplate(t *testing.T) {
	cases := map[string]struct {
		reason      string
		src         string
		wantErr     string // a substring of the error; "" for none
		wantExtName bool
		wantSetup   bool
	}{
		"Parameters":      {reason: "parameters and setup", src: "projects/{{ .setup.configuration.project }}/zones/{{ .parameters.zone }}", wantSetup: true},
		"ParametersOnly":  {reason: "a template on parameters alone needs no setup", src: "zones/{{ .parameters.zone }}/records/{{ .parameters.name }}"},
		"ClientMetadata":  {reason: "setup.client_metadata is data upjet gives", src: "arn:aws:x:{{ .setup.client_metadata.account_id }}:{{ .parameters.name }}", wantSetup: true},
		"ExternalName":    {reason: "external_name is data upjet gives", src: "{{ .parameters.zone }}/{{ .external_name }}", wantExtName: true},
		"DollarRoot":      {reason: "$ names the root anywhere", src: "{{ $.external_name }}", wantExtName: true},
		"Functions":       {reason: "upjet's ToLower and ToUpper, and the builtins", src: `{{ .parameters.type | ToLower }}{{ if .parameters.x }}_{{ printf "%s" .parameters.x | ToUpper }}{{ end }}`},
		"Index":           {reason: "index on .parameters reaches keys that are not identifiers", src: `{{ index .parameters "a-b" }}`},
		"WithDot":         {reason: "inside with, dot is the value of the checked pipeline", src: "{{ with .parameters.project }}{{ . }}{{ else }}{{ .setup.configuration.project }}{{ end }}", wantSetup: true},
		"RangeDot":        {reason: "inside range, dot is an element", src: "{{ range .parameters.zones }}{{ .name }}{{ end }}"},
		"Variable":        {reason: "a declared variable", src: "{{ $p := .parameters.project }}{{ $p }}"},
		"Empty":           {reason: "an empty template renders an empty ID", src: "  ", wantErr: "the template is empty"},
		"Syntax":          {reason: "a template that does not parse", src: "{{ .parameters.name ", wantErr: "unclosed action"},
		"UnknownFunction": {reason: "only upjet's functions", src: "{{ .parameters.name | trim }}", wantErr: `function "trim" not defined`},
		"OtherRoot":       {reason: "data upjet does not give", src: "{{ .spec.forProvider.name }}", wantErr: ".spec.forProvider.name: an ID template may reference only"},
		"BadSetup":        {reason: "a typo under setup", src: "{{ .setup.config.project }}", wantErr: ".setup holds only"},
		"ExternalNameField": {
			reason: "external_name is a string", src: "{{ .external_name.id }}", wantErr: "has no fields",
		},
		"WholeData":   {reason: "{{ . }} at the root prints the whole data", src: "{{ . }}", wantErr: "{{ . }} is the whole data"},
		"WholeDollar": {reason: "$ alone is the whole data", src: "{{ $ }}", wantErr: "$ is the whole data"},
		"ElseAtRoot":  {reason: "a with's else branch has the root as dot", src: "{{ with .parameters.p }}{{ . }}{{ else }}{{ .spec }}{{ end }}", wantErr: ".spec: an ID template"},
		"Define":      {reason: "one template, no definitions", src: `{{ define "x" }}a{{ end }}{{ .parameters.a }}`, wantErr: "{{define}}"},
		"TemplateCall": {
			reason: "no template calls", src: `{{ template "getid" }}`, wantErr: `{{template "getid"}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseTemplate(tc.src)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrBadTemplate) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nParseTemplate(%q): error %v, want ErrBadTemplate containing %q", tc.reason, tc.src, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nParseTemplate(%q): %v", tc.reason, tc.src, err)
			}
			if got.UsesExternalName() != tc.wantExtName || got.UsesSetup() != tc.wantSetup || got.String() != tc.src {
				t.Errorf("%s\nParseTemplate(%q): UsesExternalName %t, UsesSetup %t, String %q; want %t, %t, the source",
					tc.reason, tc.src, got.UsesExternalName(), got.UsesSetup(), got.String(), tc.wantExtName, tc.wantSetup)
			}
		})
	}
}

// TestRenderDefaults renders the built-in templates the way upjet's GetIDFn
// would, and checks them against the IDs their Terraform providers set.
func TestRenderDefaults(t *testing.T) {
	defaults, err := DefaultTemplates()
	if err != nil {
		t.Fatal(err)
	}
	gcpSetup := map[string]any{"configuration": map[string]any{"project": "provider-project"}, "client_metadata": map[string]any{}}
	awsSetup := map[string]any{"configuration": map[string]any{"region": "us-east-1"}, "client_metadata": map[string]any{"account_id": "123456789012"}}
	cases := map[string]struct {
		reason   string
		resource string
		params   map[string]any
		setup    map[string]any
		want     string
		wantErr  error
	}{
		"DNSRecordSetProviderProject": {
			reason:   "google: the provider's project when the resource names none (tpgresource.GetProject)",
			resource: "google_dns_record_set",
			params:   map[string]any{"managed_zone": "prod-zone", "name": "www.example.com.", "type": "A"},
			setup:    gcpSetup,
			want:     "projects/provider-project/managedZones/prod-zone/rrsets/www.example.com./A",
		},
		"DNSRecordSetOwnProject": {
			reason:   "google: the resource's own project argument wins",
			resource: "google_dns_record_set",
			params:   map[string]any{"project": "other", "managed_zone": "prod-zone", "name": "www.example.com.", "type": "CNAME"},
			setup:    gcpSetup,
			want:     "projects/other/managedZones/prod-zone/rrsets/www.example.com./CNAME",
		},
		"DNSRecordSetMissingZone": {
			reason:   "a missing required argument is an error, never an ID holding <no value>",
			resource: "google_dns_record_set",
			params:   map[string]any{"name": "www.example.com.", "type": "A"},
			setup:    gcpSetup,
			wantErr:  ErrMissingValue,
		},
		"Route53Record": {
			reason:   "aws: zone_id, the lower-cased name and type joined by _ (createRecordImportID)",
			resource: "aws_route53_record",
			params:   map[string]any{"zone_id": "Z0123456789ABC", "name": "WWW.Example.com", "type": "A"},
			setup:    awsSetup,
			want:     "Z0123456789ABC_www.example.com_A",
		},
		"Route53RecordTrailingDot": {
			reason:   "aws: the name's StateFunc trims a trailing dot before the ID is built",
			resource: "aws_route53_record",
			params:   map[string]any{"zone_id": "Z0123456789ABC", "name": "WWW.Example.com.", "type": "A"},
			setup:    awsSetup,
			want:     "Z0123456789ABC_www.example.com_A",
		},
		"Route53RecordHostedZonePrefix": {
			reason:   "aws: the ID keeps zone_id as given, /hostedzone/ prefix and all (no StateFunc on zone_id)",
			resource: "aws_route53_record",
			params:   map[string]any{"zone_id": "/hostedzone/Z0123456789ABC", "name": "www.example.com", "type": "A"},
			setup:    awsSetup,
			want:     "/hostedzone/Z0123456789ABC_www.example.com_A",
		},
		"Route53RecordSetIdentifier": {
			reason:   "aws: _set_identifier appended when it is set",
			resource: "aws_route53_record",
			params:   map[string]any{"zone_id": "Z0123456789ABC", "name": "api.example.com", "type": "CNAME", "set_identifier": "eu-west-1"},
			setup:    awsSetup,
			want:     "Z0123456789ABC_api.example.com_CNAME_eu-west-1",
		},
		"Route53RecordEmptySetIdentifier": {
			reason:   "aws: an empty set_identifier is not set (d.GetOk)",
			resource: "aws_route53_record",
			params:   map[string]any{"zone_id": "Z0123456789ABC", "name": "example.com", "type": "MX", "set_identifier": ""},
			setup:    awsSetup,
			want:     "Z0123456789ABC_example.com_MX",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tmpl, ok := defaults.Lookup(tc.resource)
			if !ok {
				t.Fatalf("no default template for %s", tc.resource)
			}
			got, err := tmpl.Render("", tc.params, tc.setup)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s\nRender: error %v, want %v", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nRender (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRenderExternalName: the external name is data as upjet gives it.
func TestRenderExternalName(t *testing.T) {
	tmpl, err := ParseTemplate("{{ .parameters.cluster_id }}:{{ .external_name }}")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render("node-1", map[string]any{"cluster_id": "c1"}, nil)
	if err != nil || got != "c1:node-1" {
		t.Errorf("Render = %q, %v; want %q", got, err, "c1:node-1")
	}
}
