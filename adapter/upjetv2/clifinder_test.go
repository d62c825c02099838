package upjetv2

import (
	"testing"

	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/adapter"
)

// TestCLISetup: a finder workspace is configured with the provider
// requirement and configuration of upjet's setup, never its client
// metadata, which upjet does not write into main.tf.json.
func TestCLISetup(t *testing.T) {
	ts := terraform.Setup{
		Requirement:    terraform.ProviderRequirement{Source: "port-labs/port-labs", Version: "2.0.0", LocalName: "port", Registry: "r"},
		Configuration:  terraform.ProviderConfiguration{"region": "eu-west-1"},
		ClientMetadata: map[string]string{"account_id": "1"},
	}
	want := adapter.CLISetup{Source: "port-labs/port-labs", Version: "2.0.0", LocalName: "port", Configuration: map[string]any{"region": "eu-west-1"}}
	if diff := cmp.Diff(want, cliSetup(ts)); diff != "" {
		t.Errorf("cliSetup: -want +got:\n%s", diff)
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
