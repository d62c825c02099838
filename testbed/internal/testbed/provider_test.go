package testbed

import (
	"strings"
	"testing"
	"time"
)

// TestProviderTerminate: a provider's stop that hung in controller-runtime's
// priority queue (exit ExitPriorityQueueHang) is taken as clean; any other
// non-zero exit is not. Real child processes, a shell standing in for the
// provider, SIGTERMed as a provider is.
func TestProviderTerminate(t *testing.T) {
	cases := map[string]struct {
		exit    string
		wantErr bool
	}{
		"Clean":             {exit: "0"},
		"PriorityQueueHang": {exit: "3"},
		"Failed":            {exit: "1", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// The shell exits with the case's code on SIGTERM.
			p := &Provider{Process: StartProcess(t, "provider-"+name, "/bin/sh",
				[]string{"-c", "trap 'exit " + tc.exit + "' TERM; echo trapped; while :; do sleep 0.05; done"})}
			Eventually(t, 10*time.Second, 10*time.Millisecond, "the shell to trap SIGTERM", func() (bool, error) {
				return strings.Contains(p.LogTail(5), "trapped"), nil
			})
			if err := p.Terminate(); (err != nil) != tc.wantErr {
				t.Errorf("Terminate() = %v, want an error %t", err, tc.wantErr)
			}
		})
	}
}
