package adapter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestSetupConfig checks the provider blocks of a finder workspace against
// what upjet's FileProducer writes into main.tf.json for the same setup.
func TestSetupConfig(t *testing.T) {
	cases := map[string]struct {
		reason  string
		setup   CLISetup
		want    string // JSON; "" when an error is wanted
		wantErr string
	}{
		"Configured": {
			reason: "the local name is the source's last segment; the configuration is the provider block, nested values kept for Terraform to read by schema",
			setup: CLISetup{Source: "hashicorp/aws", Version: "5.100.0", Configuration: map[string]any{
				"region": "eu-west-1", "assume_role": []map[string]any{{"role_arn": "arn:aws:iam::1:role/x"}}}},
			want: `{"provider":{"aws":{"assume_role":[{"role_arn":"arn:aws:iam::1:role/x"}],"region":"eu-west-1"}},
				"terraform":{"required_providers":{"aws":{"source":"hashicorp/aws","version":"5.100.0"}}}}`,
		},
		"LocalName": {
			reason: "LocalName names the provider where the resource prefix differs from the source",
			setup:  CLISetup{Source: "port-labs/port-labs", Version: "2.0.0", LocalName: "port"},
			want:   `{"provider":{"port":{}},"terraform":{"required_providers":{"port":{"source":"port-labs/port-labs","version":"2.0.0"}}}}`,
		},
		"FullyQualifiedNoVersion": {
			reason: "a host-qualified source keeps its last segment; no version, no constraint",
			setup:  CLISetup{Source: "example.com/intentjournal/fakecloud", Configuration: map[string]any{"endpoint": "http://127.0.0.1:1"}},
			want:   `{"provider":{"fakecloud":{"endpoint":"http://127.0.0.1:1"}},"terraform":{"required_providers":{"fakecloud":{"source":"example.com/intentjournal/fakecloud"}}}}`,
		},
		"NoSource": {
			reason:  "without a source the CLI cannot install the provider: an error, not a guess",
			setup:   CLISetup{Configuration: map[string]any{"region": "x"}},
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
	with := func(f func(*CLISetup)) CLISetup {
		s := CLISetup{Source: "hashicorp/aws", Version: "5.0.0", Configuration: map[string]any{"region": "eu-west-1", "profile": "a"}}
		f(&s)
		return s
	}
	key := func(tfType string, s CLISetup) string {
		k, err := groupKey(tfType, s)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	same := key("aws_s3_bucket", with(func(*CLISetup) {}))
	if !strings.HasPrefix(same, "aws_s3_bucket-") {
		t.Errorf("groupKey = %q, want the type as its prefix (the workspace directory names it)", same)
	}
	cases := map[string]struct {
		reason string
		tfType string
		setup  CLISetup
		shared bool
	}{
		"Same":            {reason: "the same type and setup share one Importer", tfType: "aws_s3_bucket", setup: with(func(*CLISetup) {}), shared: true},
		"OtherType":       {reason: "another type plans in a workspace of its own", tfType: "aws_vpc", setup: with(func(*CLISetup) {})},
		"OtherRegion":     {reason: "another provider configuration (account, region) is another provider block", tfType: "aws_s3_bucket", setup: with(func(s *CLISetup) { s.Configuration["region"] = "us-east-1" })},
		"OtherVersion":    {reason: "another provider version is another required_providers", tfType: "aws_s3_bucket", setup: with(func(s *CLISetup) { s.Version = "5.1.0" })},
		"ExtraConfigured": {reason: "an added setting is another provider block", tfType: "aws_s3_bucket", setup: with(func(s *CLISetup) { s.Configuration["token"] = "t" })},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := key(tc.tfType, tc.setup) == same; got != tc.shared {
				t.Errorf("%s\nshares the group of aws_s3_bucket under the base setup: %t, want %t", tc.reason, got, tc.shared)
			}
		})
	}
}

// TestCLIExternalName: the ID of what a plan found is the external name
// the kind's function makes of the attributes; a lookup no longer waited
// for is an error, not a name.
func TestCLIExternalName(t *testing.T) {
	attrs := map[string]any{"id": "zones/z/records/www", "zone": "z", "name": "www"}
	byName := func(a map[string]any) (string, error) {
		n, ok := a["name"].(string)
		if !ok || a["id"] == nil {
			return "", errors.New("no name in the state")
		}
		return n, nil
	}
	cases := map[string]struct {
		reason  string
		fn      func(map[string]any) (string, error)
		attrs   map[string]any
		want    string
		wantErr bool
	}{
		"Function": {reason: "the kind's function makes the name", fn: byName, attrs: attrs, want: "www"},
		"None":     {reason: "no function: the id", attrs: attrs, want: "zones/z/records/www"},
		"Fails":    {reason: "the function's error is the lookup's", fn: byName, attrs: map[string]any{"name": "www"}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &cliGroup{queries: map[*recovery.Candidate]CLIQuery{}}
			c := &recovery.Candidate{Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "Bucket", Name: "b", UID: "u"}}}
			g.queries[c] = CLIQuery{ImportID: "tf-id", ExternalName: tc.fn}
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

// TestNewCLILookups: the lookups need a CLI and a directory.
func TestNewCLILookups(t *testing.T) {
	for _, tc := range []struct{ cli, dir string }{{"", "/d"}, {"/usr/bin/tofu", ""}} {
		if _, err := NewCLILookups(tc.cli, tc.dir); err == nil {
			t.Errorf("NewCLILookups(%q, %q): no error", tc.cli, tc.dir)
		}
	}
	if _, err := NewCLILookups("/usr/bin/tofu", "/d"); err != nil {
		t.Errorf("NewCLILookups: %v", err)
	}
}
