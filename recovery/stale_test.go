package recovery

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSameDecisionInputs(t *testing.T) {
	base := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "fakecloud.intentjournal.io/v1alpha1", "kind": "Network",
			"metadata": map[string]any{
				"name": "n", "uid": "u-1", "resourceVersion": "10", "generation": int64(1),
				"labels":        map[string]any{"team": "a"},
				"annotations":   map[string]any{AnnotationExternalCreatePending: "2026-11-27T10:00:00Z"},
				"managedFields": []any{map[string]any{"manager": "provider"}},
			},
			"spec": map[string]any{"forProvider": map[string]any{"cidrBlock": "10.0.0.0/16"}},
			"status": map[string]any{
				"atProvider":         map[string]any{"id": ""},
				"conditions":         []any{map[string]any{"type": "Synced", "status": "True"}},
				"observedGeneration": int64(1),
			},
		}}
	}
	cases := map[string]struct {
		reason string
		change func(u *unstructured.Unstructured)
		nilB   bool
		want   bool
	}{
		"Same":            {reason: "An unchanged copy.", change: func(*unstructured.Unstructured) {}, want: true},
		"ResourceVersion": {reason: "Every write moves it; no decision reads it.", change: func(u *unstructured.Unstructured) { u.SetResourceVersion("11") }, want: true},
		"Conditions": {reason: "A controller writes them on every reconcile.", change: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Synced", "status": "False"}}, "status", "conditions")
			_ = unstructured.SetNestedField(u.Object, int64(2), "status", "observedGeneration")
		}, want: true},
		"ManagedFields": {reason: "Server-side bookkeeping.", change: func(u *unstructured.Unstructured) { u.SetManagedFields(nil) }, want: true},
		"Annotation": {reason: "The external name, the intent and the create marks are annotations.", change: func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{AnnotationExternalName: "vpc-1"})
		}},
		"Label": {reason: "The key claim is a label.", change: func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"intentjournal.io/key": "k"}) }},
		"Spec": {reason: "Finders and the arguments check read the spec.", change: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "10.1.0.0/16", "spec", "forProvider", "cidrBlock")
		}},
		"Generation": {reason: "The arguments check compares generations.", change: func(u *unstructured.Unstructured) { u.SetGeneration(2) }},
		"UID":        {reason: "Another resource under the same name.", change: func(u *unstructured.Unstructured) { u.SetUID("u-2") }},
		"AtProvider": {reason: "The observation is not a condition.", change: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "vpc-1", "status", "atProvider", "id")
		}},
		"Deleting": {reason: "A deletion timestamp.", change: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "2026-11-27T10:00:00Z", "metadata", "deletionTimestamp")
		}},
		"Gone": {reason: "No live copy to compare.", nilB: true},
		"FirstConditions": {reason: "A status of conditions alone, where the copy had none.", change: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Synced", "status": "False"}}, "status", "conditions")
		}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a := base()
			var b *unstructured.Unstructured
			if !tc.nilB {
				b = base()
				tc.change(b)
			}
			got := sameDecisionInputs(a, b)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(base(), a); diff != "" {
				t.Errorf("sameDecisionInputs changed its argument:\n%s", diff)
			}
		})
	}
}
