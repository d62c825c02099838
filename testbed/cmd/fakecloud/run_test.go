package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

func TestParseFlags(t *testing.T) {
	cases := map[string]struct {
		reason  string
		args    []string
		want    options
		wantErr string
	}{
		"Defaults": {
			reason: "Only --state is required; the address defaults to a random loopback port.",
			args:   []string{"--state", "s.json"},
			want:   options{State: "s.json", Addr: "127.0.0.1:0", LogLevel: "info"},
		},
		"ScalarFaults": {
			reason: "The contract's fault flags set every class, and --ambiguous-rate sets creates.",
			args:   []string{"--state=s", "--latency=200ms", "--jitter=50ms", "--error-rate=0.1", "--timeout-rate=0.2", "--ambiguous-rate=0.3"},
			want: options{State: "s", Addr: "127.0.0.1:0", LogLevel: "info", Faults: fakecloud.Faults{
				Latency: fakecloud.AllLatencies(200 * time.Millisecond), Jitter: 50 * time.Millisecond,
				ErrorRate: fakecloud.AllRates(0.1), TimeoutRate: fakecloud.AllRates(0.2), AmbiguousRate: fakecloud.Rates{Create: 0.3},
			}},
		},
		"FaultsJSONOverridden": {
			reason: "--faults sets per-class values and the scalar flags override their fields.",
			args:   []string{"--state=s", `--faults={"latency":{"create":"2s","read":"20ms"},"errorRate":0.5}`, "--error-rate=0"},
			want: options{State: "s", Addr: "127.0.0.1:0", LogLevel: "info", Faults: fakecloud.Faults{
				Latency: fakecloud.Latencies{Create: 2 * time.Second, Read: 20 * time.Millisecond},
			}},
		},
		"NoState":      {reason: "--state is required.", args: nil, wantErr: "--state is required"},
		"PublicAddr":   {reason: "Only loopback addresses are allowed.", args: []string{"--state=s", "--addr=0.0.0.0:8080"}, wantErr: "only listens on loopback"},
		"BadRate":      {reason: "Rates are probabilities.", args: []string{"--state=s", "--error-rate=2"}, wantErr: "errorRate for create is 2"},
		"BadFaultJSON": {reason: "Unknown fault fields are refused.", args: []string{"--state=s", `--faults={"latncy":"1s"}`}, wantErr: `unknown field "latncy"`},
		"StrayArg":     {reason: "Positional arguments are refused.", args: []string{"--state=s", "extra"}, wantErr: "unexpected arguments"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseFlags(tc.args, &bytes.Buffer{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nparseFlags: got %v, want an error containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nparseFlags: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(options{}, "Seed")); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRealMainExitCodes(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   []string
		want   int
	}{
		"Usage":  {reason: "Bad flags exit 2.", args: []string{"--addr=10.0.0.1:80", "--state=x"}, want: exitUsage},
		"Help":   {reason: "-h exits 0.", args: []string{"-h"}, want: exitOK},
		"Locked": {reason: "A second server on one state file exits 4.", want: exitLocked},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			args := tc.args
			if name == "Locked" {
				state := t.TempDir() + "/state.json"
				s, err := fakecloud.OpenStore(state)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				args = []string{"--state", state}
			}
			var stderr bytes.Buffer
			if got := realMain(context.Background(), args, &stderr); got != tc.want {
				t.Errorf("%s\nrealMain(%q) = %d, want %d\nstderr:\n%s", tc.reason, args, got, tc.want, stderr.String())
			}
		})
	}
}
