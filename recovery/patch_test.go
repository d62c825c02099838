package recovery

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAnnotationPatch checks the patch the pass sends against the one
// client.MergeFrom with MergeFromWithOptimisticLock computes from the whole
// object: they must be the same JSON for every change of annotations.
func TestAnnotationPatch(t *testing.T) {
	cases := map[string]struct {
		before, after map[string]string
		want          string
	}{
		"Add": {
			before: map[string]string{"a": "1"},
			after:  map[string]string{"a": "1", "b": "2"},
			want:   `{"metadata":{"annotations":{"b":"2"},"resourceVersion":"42"}}`,
		},
		"Change": {
			before: map[string]string{"a": "1"},
			after:  map[string]string{"a": "2"},
			want:   `{"metadata":{"annotations":{"a":"2"},"resourceVersion":"42"}}`,
		},
		"Delete": {
			before: map[string]string{"a": "1", "b": "2"},
			after:  map[string]string{"b": "2"},
			want:   `{"metadata":{"annotations":{"a":null},"resourceVersion":"42"}}`,
		},
		"AddToNone": {
			after: map[string]string{"crossplane.io/external-name": "net-1"},
			want:  `{"metadata":{"annotations":{"crossplane.io/external-name":"net-1"},"resourceVersion":"42"}}`,
		},
		"AllAtOnce": {
			before: map[string]string{"keep": "k", "gone": "g", "moved": "1"},
			after:  map[string]string{"keep": "k", "moved": "2", "new": "n"},
			want:   `{"metadata":{"annotations":{"gone":null,"moved":"2","new":"n"},"resourceVersion":"42"}}`,
		},
		"NoChange": {
			before: map[string]string{"a": "1"},
			after:  map[string]string{"a": "1"},
			want:   `{"metadata":{"resourceVersion":"42"}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := annotationPatch("42", tc.before, tc.after)
			if err != nil {
				t.Fatalf("annotationPatch: %v", err)
			}
			if diff := cmp.Diff(decodeJSON(t, []byte(tc.want)), decodeJSON(t, got)); diff != "" {
				t.Errorf("annotationPatch: -want +got:\n%s", diff)
			}
			// The same change made to a whole object, as MergeFrom sees it.
			orig := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "fakecloud.intentjournal.io/v1alpha1", "kind": "Network",
				"metadata": map[string]any{"name": "n", "resourceVersion": "42"},
				"spec":     map[string]any{"forProvider": map[string]any{"cidrBlock": "10.0.0.0/16"}},
			}}
			if tc.before != nil {
				orig.SetAnnotations(tc.before)
			}
			mod := orig.DeepCopy()
			mod.SetAnnotations(tc.after)
			ref, err := client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}).Data(mod)
			if err != nil {
				t.Fatalf("MergeFrom: %v", err)
			}
			if diff := cmp.Diff(decodeJSON(t, ref), decodeJSON(t, got)); diff != "" {
				t.Errorf("annotationPatch differs from client.MergeFrom: -MergeFrom +annotationPatch:\n%s", diff)
			}
		})
	}
}

func TestAnnotationPatchNeedsResourceVersion(t *testing.T) {
	if _, err := annotationPatch("", nil, map[string]string{"a": "1"}); err == nil {
		t.Fatal("annotationPatch without a resourceVersion: got no error, want one (the patch would be unconditional)")
	}
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("cannot decode %s: %v", b, err)
	}
	return v
}
