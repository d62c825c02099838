package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fccli"
)

// withFakecloud adds the fake cloud's finder type to Main, as the test bed's
// development binary does (testbed/cmd/intentjournal-dev).
var withFakecloud = fccli.Option()

// TestDevMainExitCodes runs the command line of a development build (Main
// with the fake cloud's finder type) with inputs that need no cluster, as
// cmd/intentjournal/cli's TestRealMainExitCodes runs the operator binary's.
func TestDevMainExitCodes(t *testing.T) {
	cases := map[string]struct {
		reason     string
		args       []string
		wantCode   int
		wantStderr string
	}{
		"RecoverFinderForUndeclaredKind": {
			reason:   "--finder names a --kind",
			args:     []string{"report", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--finder", "Bucket=fakecloud:http://127.0.0.1:1"},
			wantCode: cli.ExitUsage, wantStderr: `kind "Bucket" is not one of the --kind values`,
		},
		"RecoverFakecloudUnsupportedKind": {
			reason:   "the fakecloud finder serves only its own kinds",
			args:     []string{"report", "--kind", "Bucket.v1beta1.s3.aws.upbound.io", "--finder", "Bucket=fakecloud:http://127.0.0.1:1"},
			wantCode: cli.ExitUsage, wantStderr: "the fakecloud finder supports",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := cli.Main(context.Background(), tc.args, &stdout, &stderr, withFakecloud)
			if code != tc.wantCode {
				t.Errorf("%s\nMain(%q): exit code %d, want %d\nstderr:\n%s", tc.reason, tc.args, code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("%s\nMain(%q): stderr does not contain %q:\n%s", tc.reason, tc.args, tc.wantStderr, stderr.String())
			}
			if tc.wantCode != cli.ExitOK && stdout.Len() > 0 {
				t.Errorf("%s\nMain(%q): wrote to stdout on error:\n%s", tc.reason, tc.args, stdout.String())
			}
		})
	}
}
