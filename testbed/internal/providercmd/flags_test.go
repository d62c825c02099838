package providercmd

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
)

func TestParseFlags(t *testing.T) {
	defaults := Options{
		SyncPeriod:               time.Hour,
		PollInterval:             10 * time.Minute,
		PollStateMetricInterval:  5 * time.Second,
		MaxReconcileRate:         10,
		LeaderElectionNamespace:  "crossplane-system",
		Scale:                    ScaleOutFlags{ShardLabel: "intentjournal.io/shard", BucketLeaseNamespace: "crossplane-system", LeaseDuration: time.Minute},
		MetricsBindAddress:       "127.0.0.1:8080",
		EnableManagementPolicies: true,
		ReconcileTimeout:         3 * time.Minute,
		RecoveryConcurrency:      16,
		KubeQPS:                  20,
		KubeBurst:                30,
	}
	with := func(f func(*Options)) Options { o := defaults; f(&o); return o }
	cases := map[string]struct {
		reason  string
		args    []string
		want    Options
		wantErr bool
	}{
		"Defaults": {
			reason: "No flags should give upjet's usual defaults, with leader election off.",
			want:   defaults,
		},
		"All": {
			reason: "Every flag should land in its field.",
			args: []string{"--kubeconfig=/k", "--poll=10s", "--max-reconcile-rate=50", "--leader-election",
				"--metrics-bind-address=0", "--debug", "--sync=1m"},
			want: with(func(o *Options) {
				o.Kubeconfig, o.PollInterval, o.MaxReconcileRate, o.LeaderElection = "/k", 10*time.Second, 50, true
				o.MetricsBindAddress, o.Debug, o.SyncPeriod = "0", true, time.Minute
			}),
		},
		"Journal": {
			reason: "--journal turns the crash-safe create path on, with its owner and report flags.",
			args:   []string{"--journal=/var/lib/p/intents.db", "--replica=p-0", "--shard=a", "--recovery-report=/r.json", "--log-api-writes"},
			want: with(func(o *Options) {
				o.Journal, o.Replica, o.Shard, o.RecoveryReport, o.LogAPIWrites = "/var/lib/p/intents.db", "p-0", "a", "/r.json", true
			}),
		},
		"QueueSocket": {
			reason: "--queue-socket serves what the work queues hold, for tests, with or without the journal.",
			args:   []string{"--queue-socket=/run/q.sock"},
			want:   with(func(o *Options) { o.QueueSocket = "/run/q.sock" }),
		},
		"RecoveryConcurrency": {
			reason: "--recovery-concurrency sets how many intents a pass resolves at once.",
			args:   []string{"--journal=/j.db", "--recovery-concurrency=32"},
			want: with(func(o *Options) {
				o.Journal, o.RecoveryConcurrency = "/j.db", 32
			}),
		},
		"ZeroRecoveryConcurrency": {
			reason:  "A pass resolves at least one intent at a time.",
			args:    []string{"--journal=/j.db", "--recovery-concurrency=0"},
			wantErr: true,
		},
		"AnnotationOnly": {
			reason: "--annotation-only turns the crash-safe create path on without a journal, with the same owner and report flags.",
			args:   []string{"--annotation-only", "--replica=p-0", "--shard=a", "--recovery-report=/r.json"},
			want: with(func(o *Options) {
				o.AnnotationOnly, o.Replica, o.Shard, o.RecoveryReport = true, "p-0", "a", "/r.json"
			}),
		},
		"ReconcileTimeout": {
			reason: "--reconcile-timeout sets the managed reconcilers' timeout, which the recovery's bound on incomplete creates follows.",
			args:   []string{"--journal=/j.db", "--reconcile-timeout=20s"},
			want: with(func(o *Options) {
				o.Journal, o.ReconcileTimeout = "/j.db", 20*time.Second
			}),
		},
		"KubeAPILimits": {
			reason: "The API client's rate limits are flags, so a large run is not throttled at controller-runtime's 20 requests/s.",
			args:   []string{"--kube-api-qps=250", "--kube-api-burst=500"},
			want: with(func(o *Options) {
				o.KubeQPS, o.KubeBurst = 250, 500
			}),
		},
		"KubeAPIQPSZero": {
			reason:  "A client allowed no requests would never reconcile.",
			args:    []string{"--kube-api-qps=0"},
			wantErr: true,
		},
		"ReconcileTimeoutUnwrapped": {
			reason:  "Unwrapped, the controllers keep upjet's timeout; the flag would do nothing.",
			args:    []string{"--reconcile-timeout=20s"},
			wantErr: true,
		},
		"ReconcileTimeoutZero": {
			reason:  "A reconcile with no time to run is refused.",
			args:    []string{"--journal=/j.db", "--reconcile-timeout=0s"},
			wantErr: true,
		},
		"AnnotationOnlyWithJournal": {
			reason:  "Annotation-only mode has no journal; naming one is a mistake.",
			args:    []string{"--annotation-only", "--journal=/j.db"},
			wantErr: true,
		},
		"LabelShard": {
			reason: "--shard-name selects a label shard; it needs the crash-safe create path.",
			args:   []string{"--journal=/j.db", "--shard-name=a", "--leader-election", "--create-lease", "--lease-duration=6s", "--recovery-interval=2s"},
			want: with(func(o *Options) {
				o.Journal, o.LeaderElection = "/j.db", true
				o.Scale.ShardName, o.Scale.CreateLease, o.Scale.LeaseDuration, o.Scale.RecoveryInterval = "a", true, 6*time.Second, 2*time.Second
			}),
		},
		"HashBuckets": {
			reason: "--buckets splits resources into leased buckets.",
			args:   []string{"--annotation-only", "--buckets=16", "--bucket-lease-namespace=leases"},
			want: with(func(o *Options) {
				o.AnnotationOnly, o.Scale.Buckets, o.Scale.BucketLeaseNamespace = true, 16, "leases"
			}),
		},
		"ShardAndBuckets": {
			reason:  "A label shard and hash buckets are two shapes; one process runs one.",
			args:    []string{"--journal=/j.db", "--shard-name=a", "--buckets=4"},
			wantErr: true,
		},
		"BucketsWithLeaderElection": {
			reason:  "Hash buckets elect per bucket; process-wide leader election would leave all but one replica idle.",
			args:    []string{"--journal=/j.db", "--buckets=4", "--leader-election"},
			wantErr: true,
		},
		"CreateLeaseWithoutIntents": {
			reason:  "A create Lease guards the crash-safe create path only.",
			args:    []string{"--create-lease"},
			wantErr: true,
		},
		"ShardDisagrees": {
			reason:  "--shard is written into intents and --shard-name filters the cache; they must agree.",
			args:    []string{"--journal=/j.db", "--shard=a", "--shard-name=b"},
			wantErr: true,
		},
		"ReplicaWithoutJournal": {
			reason:  "Journal flags without --journal would silently do nothing.",
			args:    []string{"--replica=p-0"},
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
		"Unknown": {
			reason:  "Unknown flags are refused.",
			args:    []string{"--nope"},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseFlags(tc.args, &bytes.Buffer{}, nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nparseFlags(%q): error %v, want error %t", tc.reason, tc.args, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Options{}, ScaleOutFlags{})); diff != "" {
				t.Errorf("%s\nparseFlags(%q): -want, +got:\n%s", tc.reason, tc.args, diff)
			}
		})
	}
}

// loadConfig is a line's run as far as its first step: the API server
// configuration.
func loadConfig(_ context.Context, _ *zap.Logger, o Options) error {
	_, err := RestConfig(o.Kubeconfig)
	return err
}

func TestRunMainExitCodes(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   []string
		want   int
	}{
		"Help":    {reason: "--help is not an error.", args: []string{"--help"}, want: ExitOK},
		"BadFlag": {reason: "A bad flag is a usage error.", args: []string{"--poll=x"}, want: ExitUsage},
		"BadKubeconfig": {
			reason: "A kubeconfig that cannot be loaded fails the run.",
			args:   []string{"--kubeconfig=/nonexistent/kubeconfig", "--metrics-bind-address=0"},
			want:   ExitError,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			if got := RunMain(context.Background(), tc.args, &stderr, nil, loadConfig); got != tc.want {
				t.Errorf("%s\nRunMain(%q) = %d, want %d; stderr:\n%s", tc.reason, tc.args, got, tc.want, stderr.String())
			}
		})
	}
}

// TestPriorityQueueHang: only a dump whose priority queue is blocked
// handing an item out (controller-runtime#3538) is that deadlock; a
// worker waiting for the queue's lock, or the hand-off goroutine in any
// other state, is not. The blocks are cut from a dump of a provider whose
// graceful stop hung in TestRollingRestart.
func TestPriorityQueueHang(t *testing.T) {
	const handOff = `goroutine 294 [chan send]:
sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems.func1.1()
	/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/controller/priorityqueue/priorityqueue.go:400 +0x28d
sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems(0x254f020)
	/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/controller/priorityqueue/priorityqueue.go:408 +0x29`
	const idleHandOff = `goroutine 294 [select]:
sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).handleReadyItems(0x254f020)
	/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/controller/priorityqueue/priorityqueue.go:360 +0x29`
	const worker = `goroutine 930 [sync.Mutex.Lock]:
sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue[...]).Done(0x254f020, {})
	/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/controller/priorityqueue/priorityqueue.go:468 +0x87`
	const otherSend = `goroutine 12 [chan send]:
main.feed()
	/src/main.go:10 +0x1d`
	cases := map[string]struct {
		dump string
		want bool
	}{
		"HandOffBlocked":   {dump: worker + "\n\n" + handOff + "\n\n" + otherSend, want: true},
		"HandOffIdle":      {dump: worker + "\n\n" + idleHandOff, want: false},
		"OtherChannelSend": {dump: otherSend + "\n\n" + worker, want: false},
		"Empty":            {dump: "", want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := PriorityQueueHang(tc.dump); got != tc.want {
				t.Errorf("PriorityQueueHang = %t, want %t", got, tc.want)
			}
		})
	}
}
