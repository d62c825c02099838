package upjetv2_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/zapr"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

// patchLog records the PATCH requests a client sent to the managed
// resources, with the status of each.
type patchLog struct {
	mu  sync.Mutex
	got []string // "name:status"
}

func (l *patchLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTrip(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/clinetworks/") && resp != nil {
			l.mu.Lock()
			l.got = append(l.got, fmt.Sprintf("%s:%d", req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:], resp.StatusCode))
			l.mu.Unlock()
		}
		return resp, err
	})
}

// take returns what was recorded since the last take.
func (l *patchLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.got
	l.got = nil
	return got
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// observedFacts is what one case of TestObservedStaleCopy saw.
type observedFacts struct {
	Patches []string // PATCHes of the managed resource, "name:status"
	// On the API server afterwards.
	ExternalName string
	Annotation   string // the intent annotation's intent: "ours", "theirs" or ""
	Label        string // the label another writer set, if any
	Moved        bool   // its resourceVersion moved on during Observed
	// The copy Observed was given.
	CopyVersionMoved bool // its resourceVersion was moved on
	// The intent in this process's journal.
	Journal journal.State
}

// TestObservedStaleCopy: Observed, called after an Observe that found the
// resource, binds the external name with a patch conditional on the
// copy's resourceVersion. From a current copy that is one patch, and the
// copy follows it. From a copy older than the object (the reconcile read
// it before the create's callback bound the name, issue #31: a Terraform
// CLI create under load made a second external-name patch) it writes
// nothing when the name is bound already, patches once when it is not,
// and leaves alone an object that carries a later create's intent; the
// stale copy keeps its resourceVersion, so the reconciler cannot write it
// over what changed since. Real parts: envtest and a bbolt journal, the
// CLINetwork kind; no controller runs.
func TestObservedStaleCopy(t *testing.T) {
	cl := testbed.StartCluster(t)
	var patches patchLog
	cfg := rest.CopyConfig(cl.Config)
	cfg.WrapTransport = patches.wrap
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: cl.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatalf("ctrl.NewManager(): %v", err)
	}
	gvk := clusterv1alpha1.CLINetwork_GroupVersionKind
	ij, err := upjetv2.Setup(mgr, upjetv2.Config{
		JournalPath: filepath.Join(t.TempDir(), "journal.db"),
		Replica:     "observed-test",
		ClusterID:   "observed-test-cluster",
		Kinds:       []schema.GroupVersionKind{gvk},
		Registry:    prometheus.NewRegistry(),
		Logger:      zapr.NewLogger(zaptest.NewLogger(t, zaptest.Level(zap.DebugLevel))),
	})
	if err != nil {
		t.Fatalf("upjetv2.Setup(): %v", err)
	}
	t.Cleanup(func() { _ = ij.Close() })
	k := ij.Adapter.Kind(gvk, nil)
	ctx := context.Background()
	const extName = "net-0123"

	// begin creates the CLINetwork name with the intent annotation of an
	// intent begun in the journal, as crossplane-runtime's critical
	// annotation update leaves it, and returns the object and the intent.
	begin := func(t *testing.T, name string) (*clusterv1alpha1.CLINetwork, journal.Intent) {
		t.Helper()
		nw := testbed.NewCLINetwork(name, "10.1.0.0/16")
		testbed.Create(t, cl, nw)
		in, err := adapter.BuildIntent(nw, adapter.IntentInput{GVK: gvk, Owner: ij.Owner()}, ij.Line())
		if err != nil {
			t.Fatalf("BuildIntent(): %v", err)
		}
		if in, err = ij.Journal().Begin(ctx, in); err != nil {
			t.Fatalf("Begin(): %v", err)
		}
		annotate(t, cl.Client, nw, in)
		return nw, in
	}
	// observed gives Observed a copy of the object as read before, with
	// the external name an inner Observe set in memory.
	observed := func(copy *clusterv1alpha1.CLINetwork) (moved bool) {
		copy.SetAnnotations(withName(copy.GetAnnotations(), extName))
		rv := copy.GetResourceVersion()
		patches.take()
		k.Observed(ctx, copy)
		return copy.GetResourceVersion() != rv
	}

	cases := []struct {
		name   string
		reason string
		// between runs after the copy is read: what else wrote the object.
		between func(t *testing.T, nw *clusterv1alpha1.CLINetwork, in journal.Intent)
		want    observedFacts
	}{
		{
			name:   "current copy",
			reason: "One conditional patch binds the name and drops the annotation; the copy follows it.",
			want: observedFacts{Patches: []string{"current-copy:200"}, ExternalName: extName, Moved: true,
				CopyVersionMoved: true, Journal: journal.StateSettled},
		},
		{
			name:   "stale copy, bound since",
			reason: "The create's callback bound the name after the copy was read: the conditional patch fails and nothing is written.",
			between: func(t *testing.T, nw *clusterv1alpha1.CLINetwork, _ journal.Intent) {
				cur := get(t, cl.Client, nw.Name)
				if observed(cur); adapter.ExternalName(get(t, cl.Client, nw.Name)) != extName {
					t.Fatal("the callback's stand-in did not bind the name")
				}
			},
			want: observedFacts{Patches: []string{"stale-copy-bound-since:409"}, ExternalName: extName, Journal: journal.StateSettled},
		},
		{
			name:   "stale copy, not bound",
			reason: "Another writer moved the object on, the annotation still there: one more patch, conditional on the object read, binds the name; the stale copy stays stale.",
			between: func(t *testing.T, nw *clusterv1alpha1.CLINetwork, _ journal.Intent) {
				cur := get(t, cl.Client, nw.Name)
				cur.SetLabels(map[string]string{"team": "a"})
				if err := cl.Client.Update(ctx, cur); err != nil {
					t.Fatal(err)
				}
			},
			want: observedFacts{Patches: []string{"stale-copy-not-bound:409", "stale-copy-not-bound:200"}, ExternalName: extName,
				Label: "a", Moved: true, Journal: journal.StateSettled},
		},
		{
			name:   "stale copy, a later create's intent",
			reason: "The object carries another replica's intent now: Observed leaves it alone.",
			between: func(t *testing.T, nw *clusterv1alpha1.CLINetwork, in journal.Intent) {
				theirs := in
				theirs.ID = journal.NewID()
				theirs.Owner.Replica = "peer"
				annotate(t, cl.Client, get(t, cl.Client, nw.Name), theirs)
			},
			want: observedFacts{Patches: []string{"stale-copy-a-later-create-s-intent:409"}, Annotation: "theirs", Journal: journal.StateSucceeded},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.NewReplacer(" ", "-", ",", "", "'", "-").Replace(tc.name)
			nw, in := begin(t, name)
			stale := get(t, cl.Client, name)
			if tc.between != nil {
				tc.between(t, nw, in)
			}
			before := get(t, cl.Client, name).GetResourceVersion()
			copyMoved := observed(stale)
			got := observedFacts{Patches: patches.take(), CopyVersionMoved: copyMoved}
			after := get(t, cl.Client, name)
			got.ExternalName = adapter.ExternalName(after)
			got.Label = after.GetLabels()["team"]
			got.Moved = after.GetResourceVersion() != before
			if a, has, err := journal.AnnotationIntent(after.GetAnnotations()); has {
				switch {
				case err != nil:
					got.Annotation = "unreadable: " + err.Error()
				case a.ID == in.ID:
					got.Annotation = "ours"
				default:
					got.Annotation = "theirs"
				}
			}
			j, err := ij.Journal().Get(ctx, string(nw.GetUID()))
			if err != nil {
				t.Fatalf("read the journal: %v", err)
			}
			got.Journal = j.State
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// annotate writes in's intent annotation onto the object nw, as read.
func annotate(t *testing.T, c client.Client, nw *clusterv1alpha1.CLINetwork, in journal.Intent) {
	t.Helper()
	ann, err := journal.SetAnnotation(nw.GetAnnotations(), in)
	if err != nil {
		t.Fatalf("SetAnnotation(): %v", err)
	}
	nw.SetAnnotations(ann)
	if err := c.Update(context.Background(), nw); err != nil {
		t.Fatalf("annotate %s: %v", nw.Name, err)
	}
}

// get reads the CLINetwork name from the API server.
func get(t *testing.T, c client.Client, name string) *clusterv1alpha1.CLINetwork {
	t.Helper()
	nw := &clusterv1alpha1.CLINetwork{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: name}, nw); err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	return nw
}

// withName returns annotations with the external name set.
func withName(annotations map[string]string, name string) map[string]string {
	out := map[string]string{recovery.AnnotationExternalName: name}
	for k, v := range annotations {
		if k != recovery.AnnotationExternalName {
			out[k] = v
		}
	}
	return out
}
