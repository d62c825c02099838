package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

// TestRunMainExitCodes runs this line's provider-fakecloud as far as its
// flags and its API server configuration.
func TestRunMainExitCodes(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   []string
		want   int
	}{
		"Help":    {reason: "--help is not an error.", args: []string{"--help"}, want: providercmd.ExitOK},
		"BadFlag": {reason: "A bad flag is a usage error.", args: []string{"--poll=x"}, want: providercmd.ExitUsage},
		"BadKubeconfig": {
			reason: "A kubeconfig that cannot be loaded fails the run.",
			args:   []string{"--kubeconfig=/nonexistent/kubeconfig", "--metrics-bind-address=0"},
			want:   providercmd.ExitError,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := runMain(context.Background(), tc.args, &stderr); got != tc.want {
				t.Errorf("%s\nrunMain(%q) = %d, want %d; stderr:\n%s", tc.reason, tc.args, got, tc.want, stderr.String())
			}
		})
	}
}
