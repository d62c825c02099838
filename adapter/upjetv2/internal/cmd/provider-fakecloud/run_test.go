package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlags(t *testing.T) {
	defaults := options{
		syncPeriod:               time.Hour,
		pollInterval:             10 * time.Minute,
		pollStateMetricInterval:  5 * time.Second,
		maxReconcileRate:         10,
		leaderElectionNamespace:  "crossplane-system",
		metricsBindAddress:       "127.0.0.1:8080",
		enableManagementPolicies: true,
		kubeQPS:                  20,
		kubeBurst:                30,
	}
	with := func(f func(*options)) options { o := defaults; f(&o); return o }
	cases := map[string]struct {
		reason  string
		args    []string
		want    options
		wantErr bool
	}{
		"Defaults": {
			reason: "No flags should give upjet's usual defaults, with leader election off.",
			want:   defaults,
		},
		"All": {
			reason: "Every flag should land in its field.",
			args: []string{"--kubeconfig=/k", "--poll=10s", "--max-reconcile-rate=50", "--leader-election",
				"--metrics-bind-address=0", "--debug", "--sync=1m", "--log-api-writes", "--kube-api-qps=250", "--kube-api-burst=500"},
			want: with(func(o *options) {
				o.kubeconfig, o.pollInterval, o.maxReconcileRate, o.leaderElection = "/k", 10*time.Second, 50, true
				o.metricsBindAddress, o.debug, o.syncPeriod, o.logAPIWrites = "0", true, time.Minute, true
				o.kubeQPS, o.kubeBurst = 250, 500
			}),
		},
		"Journal": {
			reason: "The crash-safe create path's flags land in their fields.",
			args: []string{"--journal=/j.db", "--replica=r-0", "--recovery-report=/r.json", "--delete-orphans",
				"--deterministic-external-name"},
			want: with(func(o *options) {
				o.journal, o.replica, o.recoveryReport, o.deleteOrphans = "/j.db", "r-0", "/r.json", true
				o.deterministicExternalName = true
			}),
		},
		"JournalFlagsNeedJournal": {
			reason:  "--replica, --recovery-report and --delete-orphans mean nothing without --journal.",
			args:    []string{"--delete-orphans"},
			wantErr: true,
		},
		"KubeAPIQPSZero": {
			reason:  "A client allowed no requests would never reconcile.",
			args:    []string{"--kube-api-qps=0"},
			wantErr: true,
		},
		"ZeroRate": {
			reason:  "A reconcile rate below 1 would stall every controller.",
			args:    []string{"--max-reconcile-rate=0"},
			wantErr: true,
		},
		"ZeroPoll": {
			reason:  "A non-positive poll interval is refused.",
			args:    []string{"--poll=0s"},
			wantErr: true,
		},
		"Positional": {
			reason:  "The provider takes no arguments.",
			args:    []string{"extra"},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseFlags(tc.args, &bytes.Buffer{})
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nparseFlags(%q): error %v, want error %t", tc.reason, tc.args, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("%s\nparseFlags(%q): -want, +got:\n%s", tc.reason, tc.args, diff)
			}
		})
	}
}

func TestRunMainExitCodes(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   []string
		want   int
	}{
		"Help":    {reason: "--help is not an error.", args: []string{"--help"}, want: exitOK},
		"BadFlag": {reason: "A bad flag is a usage error.", args: []string{"--poll=x"}, want: exitUsage},
		"BadKubeconfig": {
			reason: "A kubeconfig that cannot be loaded fails the run.",
			args:   []string{"--kubeconfig=/nonexistent/kubeconfig", "--metrics-bind-address=0"},
			want:   exitError,
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
