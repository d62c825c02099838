package testenv

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestStartEnvtest starts a real etcd and kube-apiserver with the CRD in
// testdata/crds and talks to them.
func TestStartEnvtest(t *testing.T) {
	cfg := StartEnvtest(t, "testdata/crds")
	c := NewClient(t, cfg, nil)

	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatalf("cannot parse envtest host %q: %v", cfg.Host, err)
	}
	if u.Hostname() != "127.0.0.1" {
		t.Errorf("envtest serves on %q, want 127.0.0.1 only", u.Hostname())
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("ConfigMap", func(t *testing.T) {
		want := map[string]string{"intent": "create", "key": "fakecloud/recordset/www"}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "testenv"},
			Data:       want,
		}
		if err := c.Create(ctx, cm); err != nil {
			t.Fatalf("Create(ConfigMap): %v", err)
		}
		got := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
			t.Fatalf("Get(ConfigMap): %v", err)
		}
		if diff := cmp.Diff(want, got.Data); diff != "" {
			t.Errorf("ConfigMap data round trip: -want, +got:\n%s", diff)
		}
		if got.UID == "" || got.ResourceVersion == "" {
			t.Errorf("ConfigMap from the API server has UID %q and resourceVersion %q, want both set", got.UID, got.ResourceVersion)
		}
	})

	t.Run("CustomResource", func(t *testing.T) {
		gvk := schema.GroupVersionKind{Group: "testenv.intentjournal.io", Version: "v1alpha1", Kind: "Widget"}
		w := &unstructured.Unstructured{}
		w.SetGroupVersionKind(gvk)
		w.SetName("small")
		if err := unstructured.SetNestedField(w.Object, int64(3), "spec", "size"); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(ctx, w); err != nil {
			t.Fatalf("Create(Widget): %v", err)
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(gvk)
		if err := c.Get(ctx, client.ObjectKey{Name: "small"}, got); err != nil {
			t.Fatalf("Get(Widget): %v", err)
		}
		if diff := cmp.Diff(w.Object["spec"], got.Object["spec"]); diff != "" {
			t.Errorf("Widget spec round trip: -want, +got:\n%s", diff)
		}
	})
}
