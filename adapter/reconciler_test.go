package adapter

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestKindReconciler: the scaled-out filter passes only owned requests,
// and requeues an owner's finished reconcile only while the resource's
// create is incomplete with none of this process's creates in flight.
// The managed kind is a ConfigMap: the shared create path reads only its
// metadata, through the scheme and the cache.
func TestKindReconciler(t *testing.T) {
	pending := time.Date(2026, 11, 25, 19, 41, 57, 0, time.UTC)
	mr := func(name string, marks ...func(*corev1.ConfigMap)) *corev1.ConfigMap {
		r := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: types.UID("uid-" + name)}}
		for _, m := range marks {
			m(r)
		}
		return r
	}
	markPending := func(r *corev1.ConfigMap) {
		addAnnotations(r, map[string]string{recovery.AnnotationExternalCreatePending: pending.Format(time.RFC3339)})
	}
	markFailed := func(r *corev1.ConfigMap) {
		addAnnotations(r, map[string]string{recovery.AnnotationExternalCreateFailed: pending.Add(time.Second).Format(time.RFC3339)})
	}
	done := reconcile.Result{}
	polled := reconcile.Result{RequeueAfter: time.Minute}
	recheck := reconcile.Result{RequeueAfter: 3 * time.Second}
	requeue := reconcile.Result{RequeueAfter: time.Second}

	cases := map[string]struct {
		obj      *corev1.ConfigMap // nil: not in the cache
		owned    bool
		inFlight bool
		inner    reconcile.Result
		want     reconcile.Result
		reached  bool
	}{
		"not owned: rechecked, never reaches r":       {obj: mr("a", markPending), inner: done, want: recheck},
		"owned, done, no marks":                       {obj: mr("a"), owned: true, inner: done, want: done, reached: true},
		"owned, done, pending alone":                  {obj: mr("a", markPending), owned: true, inner: done, want: requeue, reached: true},
		"owned, done, pending then failed":            {obj: mr("a", markPending, markFailed), owned: true, inner: done, want: done, reached: true},
		"owned, done, pending, create in flight here": {obj: mr("a", markPending), owned: true, inFlight: true, inner: done, want: done, reached: true},
		"owned, done, deleted":                        {owned: true, inner: done, want: done, reached: true},
		"owned, polled, pending alone: r's result":    {obj: mr("a", markPending), owned: true, inner: polled, want: polled, reached: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := clientgoscheme.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			b := fake.NewClientBuilder().WithScheme(scheme)
			if tc.obj != nil {
				b = b.WithObjects(tc.obj)
			}
			a := &Adapter{cache: &typedCacheReader{cache: b.Build(), scheme: scheme}, scheme: scheme, log: zap.NewNop(), ownsRecheck: 3 * time.Second,
				owns: func(string, string) bool { return tc.owned }}
			k := a.Kind(corev1.SchemeGroupVersion.WithKind("ConfigMap"), nil)
			if tc.inFlight {
				k.track(mr("a", markPending), journal.Intent{}, func() {})
			}
			reached := false
			r := k.Reconciler(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				reached = true
				return tc.inner, nil
			}))
			got, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKey{Namespace: "team-a", Name: "a"}})
			if err != nil {
				t.Fatalf("Reconcile(): %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Reconcile() result (-want +got):\n%s", diff)
			}
			if reached != tc.reached {
				t.Errorf("reached r: %t, want %t", reached, tc.reached)
			}
		})
	}
	var nilKind *Kind
	inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return done, nil })
	if got, _ := nilKind.Reconciler(inner).Reconcile(context.Background(), reconcile.Request{}); got != done {
		t.Errorf("a nil Kind's Reconciler changed the result to %+v", got)
	}
}
