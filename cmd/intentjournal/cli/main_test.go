package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// TestRealMainExitCodes runs the command line as a user would, with inputs
// that need no cluster: the operator binary's Main, with no options. The
// cases that need the fake cloud's finder type run in the test bed
// (testbed/integration/cli, TestDevMainExitCodes).
func TestRealMainExitCodes(t *testing.T) {
	path := buildJournal(t)
	cases := map[string]struct {
		reason     string
		args       []string
		wantCode   int
		wantStderr string
	}{
		"Help": {
			reason: "--help prints the usage and exits 0",
			args:   []string{"--help"}, wantCode: ExitOK,
		},
		"NoCommand": {
			reason: "a missing command is a usage error",
			args:   []string{}, wantCode: ExitUsage, wantStderr: "expected one of",
		},
		"UnknownCommand": {
			reason: "an unknown command is a usage error",
			args:   []string{"adopt-everything"}, wantCode: ExitUsage, wantStderr: "unexpected argument",
		},
		"UnknownFlag": {
			reason: "an unknown flag is a usage error",
			args:   []string{"journal", "ls", path, "--frobnicate"}, wantCode: ExitUsage, wantStderr: "unknown flag",
		},
		"BadOutput": {
			reason: "-o takes table, json or yaml",
			args:   []string{"journal", "ls", path, "-o", "xml"}, wantCode: ExitUsage, wantStderr: "must be one of",
		},
		"BadState": {
			reason: "--state takes a state name",
			args:   []string{"journal", "ls", path, "--state", "exploded"}, wantCode: ExitUsage, wantStderr: `unknown --state "exploded"`,
		},
		"BadRetention": {
			reason: "--retention must be positive",
			args:   []string{"journal", "compact", path, "--retention=-1h"}, wantCode: ExitUsage, wantStderr: "--retention must be positive",
		},
		"MissingJournal": {
			reason: "a missing journal file is an error, and is not created",
			args:   []string{"journal", "ls", filepath.Join(t.TempDir(), "nope.db")}, wantCode: ExitError, wantStderr: "does not exist",
		},
		"NotAJournal": {
			reason: "a file that is not a journal is an error",
			args:   []string{"journal", "verify", clitest.WriteFile(t, "not a journal at all, just text")}, wantCode: ExitError, wantStderr: "corrupt",
		},
		"RecoverWithoutKind": {
			reason: "recover needs at least one --kind",
			args:   []string{"recover"}, wantCode: ExitUsage, wantStderr: "at least one --kind",
		},
		"RecoverBadKind": {
			reason: "--kind is Kind.version.group",
			args:   []string{"recover", "--kind", "RecordSet"}, wantCode: ExitUsage, wantStderr: "want Kind.version.group",
		},
		"RecoverUnknownFinderType": {
			reason:   "--finder names a built-in type",
			args:     []string{"report", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--finder", "RecordSet=aws:us-east-1"},
			wantCode: ExitUsage, wantStderr: `unknown finder type "aws"`,
		},
		"RecoverBadPolicyKind": {
			reason:   "--policy-kind takes adopt or report-only",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--policy-kind", "RecordSet=yolo"},
			wantCode: ExitUsage, wantStderr: `unknown policy "yolo"`,
		},
		"TerraformFinderNeedsWorkspace": {
			reason:   "the terraform finder imports into a workspace, which must be named",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--finder", "RecordSet=terraform:fakecloud_record_set:zone,name"},
			wantCode: ExitUsage, wantStderr: "needs a workspace: --workspace RecordSet=DIR",
		},
		"TerraformFinderBadType": {
			reason:   "the Terraform resource type must be an identifier",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--finder", "RecordSet=terraform:bad type", "--workspace", "/tmp/ws", "--terraform", "/bin/sh"},
			wantCode: ExitError, wantStderr: `invalid resource type "bad type"`,
		},
		"TerraformFinderEmptyArgument": {
			reason:   "an empty required-argument name is a typo",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--finder", "RecordSet=terraform:fakecloud_record_set:zone,,name", "--workspace", "/tmp/ws"},
			wantCode: ExitUsage, wantStderr: "empty argument name",
		},
		"TerraformMissingCLI": {
			reason:   "--terraform must name an executable",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--finder", "RecordSet=terraform:fakecloud_record_set", "--workspace", "/tmp/ws", "--terraform", "/nonexistent/tofu"},
			wantCode: ExitError, wantStderr: "--terraform /nonexistent/tofu",
		},
		"WorkspaceWithoutTerraformFinder": {
			reason:   "--workspace belongs to the terraform finder",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--workspace", "/work/ws"},
			wantCode: ExitUsage, wantStderr: "--workspace is for the terraform finder",
		},
		"TerraformWithoutTerraformFinder": {
			reason:   "--terraform belongs to the terraform finder",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--terraform", "/bin/sh"},
			wantCode: ExitUsage, wantStderr: "--terraform is for the terraform finder",
		},
		"SharedWorkspace": {
			reason: "two kinds in one workspace would contend for its state lock",
			args: []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--kind", "Network.v1alpha1.fakecloud.intentjournal.io",
				"--finder", "*=terraform:fakecloud_thing", "--workspace", "/tmp/ws"},
			wantCode: ExitUsage, wantStderr: "would share workspace /tmp/ws",
		},
		"WorkspaceOfAnotherKind": {
			reason: "a kind's workspace needs that kind's terraform finder",
			args: []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--kind", "Network.v1alpha1.fakecloud.intentjournal.io",
				"--finder", "RecordSet=terraform:fakecloud_record_set", "--workspace", "Network=/tmp/ws"},
			wantCode: ExitUsage, wantStderr: "Network.fakecloud.intentjournal.io has no terraform finder",
		},
		"BadConcurrency": {
			reason:   "--concurrency must be at least 1",
			args:     []string{"recover", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--concurrency", "0"},
			wantCode: ExitUsage, wantStderr: "--concurrency must be at least 1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("%s\nMain(%q): exit code %d, want %d\nstderr:\n%s", tc.reason, tc.args, code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("%s\nMain(%q): stderr does not contain %q:\n%s", tc.reason, tc.args, tc.wantStderr, stderr.String())
			}
			if tc.wantCode != ExitOK && stdout.Len() > 0 {
				t.Errorf("%s\nMain(%q): wrote to stdout on error:\n%s", tc.reason, tc.args, stdout.String())
			}
		})
	}
}
