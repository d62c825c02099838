package adapter

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestTypedCacheReader: the recovery pass asks for unstructured objects;
// the reader serves them from typed reads (the informers the controllers
// use) and refuses a kind the scheme does not know, which the pass then
// reads from the API server. The fake client stands in for the cache: the
// conversion is what is tested.
func TestTypedCacheReader(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "7",
		Annotations: map[string]string{"crossplane.io/external-name": "x"}}, Data: map[string]string{"k": "v"}}
	r := typedCacheReader{cache: fake.NewClientBuilder().WithScheme(s).WithObjects(cm).Build(), scheme: s}

	type result struct {
		Name, Kind, ExternalName, Data string
		NotFound, NotInScheme, Err     bool
	}
	get := func(gvk schema.GroupVersionKind, name string) result {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		err := r.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: name}, u)
		d, _, _ := unstructured.NestedString(u.Object, "data", "k")
		return result{Name: u.GetName(), Kind: u.GetKind(), ExternalName: u.GetAnnotations()["crossplane.io/external-name"], Data: d,
			NotFound: apierrors.IsNotFound(err), NotInScheme: errors.Is(err, errNotInScheme), Err: err != nil}
	}
	cmGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	cases := map[string]struct {
		reason string
		got    result
		want   result
	}{
		"Found": {reason: "A typed read, converted; the kind is kept.", got: get(cmGVK, "c"),
			want: result{Name: "c", Kind: "ConfigMap", ExternalName: "x", Data: "v"}},
		"NotFound": {reason: "A miss is the cache's not found.", got: get(cmGVK, "other"),
			want: result{Kind: "ConfigMap", NotFound: true, Err: true}},
		"UnknownKind": {reason: "A kind the scheme lacks is an error, not a panic.", got: get(schema.GroupVersionKind{Group: "x.io", Version: "v1", Kind: "Thing"}, "c"),
			want: result{Kind: "Thing", NotInScheme: true, Err: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
	t.Run("Typed", func(t *testing.T) {
		got := &corev1.ConfigMap{}
		if err := r.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "c"}, got); err != nil || got.Data["k"] != "v" {
			t.Errorf("a typed Get passes through: %v, %v", got.Data, err)
		}
	})
	t.Run("UnstructuredList", func(t *testing.T) {
		if err := r.List(t.Context(), &unstructured.UnstructuredList{}); !errors.Is(err, errUnstructuredList) {
			t.Errorf("List: %v, want errUnstructuredList", err)
		}
	})
	t.Run("TypedList", func(t *testing.T) {
		l := &corev1.ConfigMapList{}
		if err := r.List(t.Context(), l); err != nil || len(l.Items) != 1 {
			t.Errorf("a typed List passes through: %d items, %v", len(l.Items), err)
		}
	})
}
