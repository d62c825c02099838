package upjetv1_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	itestbed "github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// TestRequeue runs a real manager against envtest with a controller whose
// only source is Kind.Requeues: Adapter.Requeue reaches its reconciler
// with exactly the resources that match, read from the manager's cache,
// and a Kind whose adapter is nil wires a source that never fires.
func TestRequeue(t *testing.T) {
	cl := testbed.StartCluster(t)
	_, cloud := fakecloudtest.Serve(t)
	mgr := newManager(t, cl)
	a, err := upjetv1.Setup(mgr, upjetv1.Config{
		Registry:    prometheus.NewRegistry(),
		JournalPath: filepath.Join(t.TempDir(), "intents.db"),
		Replica:     "test",
		Kinds:       fcrecovery.Kinds(),
		Finders:     fcrecovery.Finders(cloud),
	})
	if err != nil {
		t.Fatalf("upjetv1.Setup(): %v", err)
	}
	got := make(chan string, 100)
	rec := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		got <- req.Name
		return reconcile.Result{}, nil
	})
	p, err := config.GetProvider()
	if err != nil {
		t.Fatal(err)
	}
	k, err := upjetv1.KindFor(mgr, tjcontroller.Options{Provider: p}, config.RecordSetResource, v1alpha1.RecordSet_GroupVersionKind)
	if err != nil || k == nil {
		t.Fatalf("KindFor() = %v, %v; want the kind of the manager's adapter", k, err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).Named("requeue-test").WatchesRawSource(k.Requeues()).Complete(rec); err != nil {
		t.Fatalf("cannot set up the controller: %v", err)
	}
	var nilKind *upjetv1.Kind // KindFor's without an adapter in the manager
	if err := ctrl.NewControllerManagedBy(mgr).Named("requeue-test-nil").
		WatchesRawSource(nilKind.Requeues()).Complete(rec); err != nil {
		t.Fatalf("cannot set up the controller of a nil adapter's Kind: %v", err)
	}
	names := []string{"keep-1", "keep-2", "skip-1"}
	for _, n := range names {
		testbed.Create(t, cl, testbed.NewRecordSet(n, "example-com"))
	}

	ctx := startManager(t, mgr)
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the manager's cache did not sync")
	}

	// Nothing reconciles without a request: the source is the only one.
	select {
	case n := <-got:
		t.Fatalf("reconciled %q before any requeue", n)
	case <-time.After(time.Second):
	}
	// The cache may still be filling for the list; Requeue reads it.
	itestbed.Eventually(t, 30*time.Second, 100*time.Millisecond, "the cache to hold the three RecordSets", func() (bool, error) {
		list := &v1alpha1.RecordSetList{}
		if err := mgr.GetClient().List(ctx, list); err != nil {
			return false, err
		}
		return len(list.Items) == len(names), nil
	})
	sent, err := a.Requeue(ctx, func(_, name string) bool { return strings.HasPrefix(name, "keep-") })
	if err != nil {
		t.Fatalf("Requeue(): %v", err)
	}
	if sent != 2 {
		t.Errorf("Requeue() sent %d requests, want 2", sent)
	}
	var reconciled []string
	timeout := time.After(30 * time.Second)
	for len(reconciled) < 2 {
		select {
		case n := <-got:
			reconciled = append(reconciled, n)
		case <-timeout:
			t.Fatalf("reconciled only %q within 30 s of Requeue", reconciled)
		}
	}
	select {
	case n := <-got:
		reconciled = append(reconciled, n)
	case <-time.After(2 * time.Second):
	}
	slices.Sort(reconciled)
	if diff := cmp.Diff([]string{"keep-1", "keep-2"}, reconciled); diff != "" {
		t.Errorf("reconciled after Requeue (-want +got):\n%s", diff)
	}
}
