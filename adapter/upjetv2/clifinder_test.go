package upjetv2

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/crossplane/upjet/v2/pkg/config"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestSetupConfig checks the provider blocks of a finder workspace against
// what upjet's FileProducer writes into main.tf.json for the same setup.
func TestSetupConfig(t *testing.T) {
	aws := terraform.ProviderRequirement{Source: "hashicorp/aws", Version: "5.100.0"}
	cases := map[string]struct {
		reason  string
		setup   terraform.Setup
		want    string // JSON; "" when an error is wanted
		wantErr string
	}{
		"Configured": {
			reason: "the local name is the source's last segment; the configuration is the provider block, nested values kept for Terraform to read by schema",
			setup: terraform.Setup{Requirement: aws, Configuration: terraform.ProviderConfiguration{
				"region": "eu-west-1", "assume_role": []map[string]any{{"role_arn": "arn:aws:iam::1:role/x"}}}},
			want: `{"provider":{"aws":{"assume_role":[{"role_arn":"arn:aws:iam::1:role/x"}],"region":"eu-west-1"}},
				"terraform":{"required_providers":{"aws":{"source":"hashicorp/aws","version":"5.100.0"}}}}`,
		},
		"LocalName": {
			reason: "Requirement.LocalName names the provider where the resource prefix differs from the source",
			setup:  terraform.Setup{Requirement: terraform.ProviderRequirement{Source: "port-labs/port-labs", Version: "2.0.0", LocalName: "port"}},
			want:   `{"provider":{"port":{}},"terraform":{"required_providers":{"port":{"source":"port-labs/port-labs","version":"2.0.0"}}}}`,
		},
		"FullyQualifiedNoVersion": {
			reason: "a host-qualified source keeps its last segment; no version, no constraint",
			setup:  terraform.Setup{Requirement: terraform.ProviderRequirement{Source: "example.com/intentjournal/fakecloud"}, Configuration: terraform.ProviderConfiguration{"endpoint": "http://127.0.0.1:1"}},
			want:   `{"provider":{"fakecloud":{"endpoint":"http://127.0.0.1:1"}},"terraform":{"required_providers":{"fakecloud":{"source":"example.com/intentjournal/fakecloud"}}}}`,
		},
		"NoSource": {
			reason:  "without a source the CLI cannot install the provider: an error, not a guess",
			setup:   terraform.Setup{Configuration: terraform.ProviderConfiguration{"region": "x"}},
			wantErr: "Requirement.Source",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := setupConfig(tc.setup)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("%s\nsetupConfig() error = %v, want one naming %s", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var gotV, wantV any
			if err := json.Unmarshal(got, &gotV); err != nil {
				t.Fatalf("setupConfig() is not JSON: %v\n%s", err, got)
			}
			if err := json.Unmarshal([]byte(tc.want), &wantV); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantV, gotV); diff != "" {
				t.Errorf("%s\nsetupConfig(): -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestGroupKey: lookups share a workspace exactly when their Terraform type
// and the setup written into it are the same.
func TestGroupKey(t *testing.T) {
	base := terraform.Setup{Requirement: terraform.ProviderRequirement{Source: "hashicorp/aws", Version: "5.0.0"},
		Configuration: terraform.ProviderConfiguration{"region": "eu-west-1", "profile": "a"}}
	with := func(f func(*terraform.Setup)) terraform.Setup {
		s := base
		s.Configuration = terraform.ProviderConfiguration{"region": "eu-west-1", "profile": "a"}
		f(&s)
		return s
	}
	key := func(tfType string, s terraform.Setup) string {
		k, err := groupKey(tfType, s)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	same := key("aws_s3_bucket", base)
	if !strings.HasPrefix(same, "aws_s3_bucket-") {
		t.Errorf("groupKey = %q, want the type as its prefix (the workspace directory names it)", same)
	}
	cases := map[string]struct {
		reason string
		tfType string
		setup  terraform.Setup
		shared bool
	}{
		"Same":            {reason: "the same type and setup share one Importer", tfType: "aws_s3_bucket", setup: with(func(*terraform.Setup) {}), shared: true},
		"ClientMetadata":  {reason: "client metadata is not written into the workspace", tfType: "aws_s3_bucket", setup: with(func(s *terraform.Setup) { s.ClientMetadata = map[string]string{"account_id": "1"} }), shared: true},
		"OtherType":       {reason: "another type plans in a workspace of its own", tfType: "aws_vpc", setup: base},
		"OtherRegion":     {reason: "another provider configuration (account, region) is another provider block", tfType: "aws_s3_bucket", setup: with(func(s *terraform.Setup) { s.Configuration["region"] = "us-east-1" })},
		"OtherVersion":    {reason: "another provider version is another required_providers", tfType: "aws_s3_bucket", setup: with(func(s *terraform.Setup) { s.Requirement.Version = "5.1.0" })},
		"ExtraConfigured": {reason: "an added setting is another provider block", tfType: "aws_s3_bucket", setup: with(func(s *terraform.Setup) { s.Configuration["token"] = "t" })},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := key(tc.tfType, tc.setup) == same; got != tc.shared {
				t.Errorf("%s\nshares the group of aws_s3_bucket under the base setup: %t, want %t", tc.reason, got, tc.shared)
			}
		})
	}
}

func TestRequiredArguments(t *testing.T) {
	r := &schema.Resource{Schema: map[string]*schema.Schema{
		"bucket":   {Type: schema.TypeString, Required: true},
		"zone":     {Type: schema.TypeString, Required: true},
		"tags":     {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		"id_out":   {Type: schema.TypeString, Computed: true},
		"settings": {Type: schema.TypeList, Required: true, MaxItems: 1, Elem: &schema.Resource{Schema: map[string]*schema.Schema{"x": {Type: schema.TypeString, Optional: true}}}},
		"cidrs":    {Type: schema.TypeList, Required: true, Elem: &schema.Schema{Type: schema.TypeString}},
	}}
	if diff := cmp.Diff([]string{"bucket", "cidrs", "zone"}, requiredArguments(r)); diff != "" {
		t.Errorf("requiredArguments: the required attributes, not blocks nor optional or computed ones, sorted: -want +got:\n%s", diff)
	}
	if got := requiredArguments(nil); got != nil {
		t.Errorf("requiredArguments(nil) = %v, want none", got)
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
			got, err := requiredValues(requiredArguments(r), tc.params)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nrequiredValues() error = %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); !tc.wantErr && diff != "" {
				t.Errorf("%s\nrequiredValues(): -want +got:\n%s", tc.reason, diff)
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
		if got := tagsAttribute(tc.r); got != tc.want {
			t.Errorf("tagsAttribute(%v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestExternalName: the ID of what a plan found is the external name
// upjet's GetExternalNameFn makes of the attributes; a lookup no longer
// waited for is an error, not a name.
func TestExternalName(t *testing.T) {
	attrs := map[string]any{"id": "zones/z/records/www", "zone": "z", "name": "www"}
	templated := config.TemplatedStringAsIdentifier("name", "zones/{{ .parameters.zone }}/records/{{ .external_name }}")
	cases := map[string]struct {
		reason  string
		fn      config.GetExternalNameFn
		attrs   map[string]any
		want    string
		wantErr bool
	}{
		"Templated":              {reason: "upjet takes the external name out of a templated ID", fn: templated.GetExternalNameFn, attrs: attrs, want: "www"},
		"IdentifierFromProvider": {reason: "upjet reads the id", fn: config.IdentifierFromProvider.GetExternalNameFn, attrs: attrs, want: "zones/z/records/www"},
		"None":                   {reason: "no function: the id", attrs: attrs, want: "zones/z/records/www"},
		"Fails":                  {reason: "the function's error is the lookup's", fn: templated.GetExternalNameFn, attrs: map[string]any{"name": "www"}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &cliGroup{queries: map[*recovery.Candidate]cliQuery{}}
			c := &recovery.Candidate{Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "Bucket", Name: "b", UID: "u"}}}
			g.queries[c] = cliQuery{importID: "tf-id", externalName: tc.fn}
			got, err := g.externalName(c, tc.attrs)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("%s\nexternalName() = %q, %v; want %q, error %t", tc.reason, got, err, tc.want, tc.wantErr)
			}
			if _, err := g.externalName(&recovery.Candidate{}, attrs); err == nil {
				t.Errorf("externalName() of a candidate with no lookup under way: no error")
			}
		})
	}
}

// TestTerraformCLIOf: NewFinders finds its WithTerraformCLI among the
// options; one with no CLI or no directory fails NewFinders.
func TestTerraformCLIOf(t *testing.T) {
	cases := map[string]struct {
		reason  string
		opts    []FindersOption
		want    string // the CLI of the option found, "" for none
		wantErr bool
	}{
		"None":     {reason: "without it, CLI kinds stay report-only", opts: []FindersOption{WithFindersLogger(logr.Discard())}},
		"Given":    {reason: "found among the others", opts: []FindersOption{WithFindersLogger(logr.Discard()), WithTerraformCLI("/usr/bin/tofu", "/var/lib/ij")}, want: "/usr/bin/tofu"},
		"LastWins": {reason: "as with every option, the last one given", opts: []FindersOption{WithTerraformCLI("/a", "/d"), WithTerraformCLI("/b", "/d")}, want: "/b"},
		"NoDir":    {reason: "the workspaces need a directory", opts: []FindersOption{WithTerraformCLI("/usr/bin/tofu", "")}, wantErr: true},
		"NoCLI":    {reason: "and a CLI", opts: []FindersOption{WithTerraformCLI("", "/var/lib/ij")}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := terraformCLIOf(tc.opts)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nterraformCLIOf() error = %v, want error %t", tc.reason, err, tc.wantErr)
			}
			var cli string
			if got != nil {
				cli = got.cli
			}
			if cli != tc.want {
				t.Errorf("%s\nterraformCLIOf() found CLI %q, want %q", tc.reason, cli, tc.want)
			}
		})
	}
}
