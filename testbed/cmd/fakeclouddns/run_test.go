package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
)

func TestParseFlags(t *testing.T) {
	defaults := options{Addr: "127.0.0.1:0", LogLevel: "info", PageSize: fakeclouddns.DefaultPageSize}
	cases := map[string]struct {
		reason  string
		args    []string
		want    options
		wantErr string
	}{
		"Defaults": {
			reason: "No flag is required; the address defaults to a random loopback port.",
			want:   defaults,
		},
		"All": {
			reason: "Every flag.",
			args:   []string{"--addr=127.0.0.1:9053", "--ready-file=r", "--log-level=debug", "--page-size=2", "--change-delay=3s", `--faults={"ops":{"changes.create":{"ambiguousRate":0.5}}}`},
			want: options{Addr: "127.0.0.1:9053", ReadyFile: "r", LogLevel: "debug", PageSize: 2, ChangeDelay: 3 * time.Second,
				Faults: fakeclouddns.Faults{Ops: map[fakeclouddns.Op]fakeclouddns.Fault{fakeclouddns.OpChangesCreate: {AmbiguousRate: 0.5}}}},
		},
		"PublicAddr":    {reason: "Only loopback addresses.", args: []string{"--addr=0.0.0.0:8080"}, wantErr: "only listens on loopback"},
		"PageSizeZero":  {reason: "A page holds at least one item.", args: []string{"--page-size=0"}, wantErr: "--page-size 0 is below 1"},
		"NegativeDelay": {reason: "The change delay is not negative.", args: []string{"--change-delay=-1s"}, wantErr: "--change-delay -1s is negative"},
		"BadFaults":     {reason: "Unknown fault fields are refused.", args: []string{`--faults={"latncy":"1s"}`}, wantErr: `unknown field "latncy"`},
		"InvalidFaults": {reason: "Faults are validated.", args: []string{`--faults={"ops":{"changes.get":{"ambiguousRate":1}}}`}, wantErr: "a read has nothing to be ambiguous about"},
		"BadLogLevel":   {reason: "The log level is zap's.", args: []string{"--log-level=loud"}, wantErr: "--log-level"},
		"StrayArg":      {reason: "Positional arguments are refused.", args: []string{"extra"}, wantErr: "unexpected arguments"},
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
		args []string
		want int
	}{
		"Usage": {[]string{"--addr=10.0.0.1:80"}, exitUsage},
		"Help":  {[]string{"-h"}, exitOK},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := realMain(t.Context(), tc.args, &bytes.Buffer{}); got != tc.want {
				t.Errorf("realMain(%q) = %d, want %d", tc.args, got, tc.want)
			}
		})
	}
}

// TestRun starts the server, waits for its ready file, reads its stats
// and stops it through its context.
func TestRun(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	ctx, cancel := context.WithCancel(t.Context())
	var logs bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- realMain(ctx, []string{"--ready-file=" + ready, "--page-size=2"}, &logs) }()

	var url string
	deadline := time.Now().Add(10 * time.Second)
	for url == "" && time.Now().Before(deadline) {
		if b, err := os.ReadFile(ready); err == nil {
			url = strings.TrimSpace(string(b))
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		cancel()
		t.Fatalf("ready file holds %q", url)
	}
	res, err := http.Get(url + "/fake/stats")
	if err != nil {
		t.Fatal(err)
	}
	var st fakeclouddns.Stats
	err = json.NewDecoder(res.Body).Decode(&st)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK || len(st.Zones) != 0 {
		t.Errorf("GET /fake/stats: %d %+v %v", res.StatusCode, st, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit code %d, logs:\n%s", code, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not stop")
	}
}
