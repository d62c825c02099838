package demo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/intentjournal/intentjournal/recovery"
)

func TestTrim(t *testing.T) {
	full := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "fakecloud.m.intentjournal.io/v1alpha1",
			"kind":       "Network",
			"metadata": map[string]any{
				"name": "net-00001", "namespace": "team-a", "uid": "u-1", "resourceVersion": "42",
				"labels": map[string]any{"app": "demo"},
				"annotations": map[string]any{
					recovery.AnnotationExternalName:          "net-1a2b",
					recovery.AnnotationExternalCreateSucceed: "2026-11-26T02:00:00Z",
					recovery.AnnotationExternalCreatePending: "2026-11-26T01:59:59Z",
					recovery.AnnotationPaused:                "true",
					"intentjournal.io/intent":                `{"v":1}`,
				},
				"managedFields": []any{map[string]any{"manager": "provider-fakecloud"}},
			},
			"spec": map[string]any{"forProvider": map[string]any{"cidrBlock": "10.0.0.0/24"}},
			"status": map[string]any{
				"atProvider": map[string]any{"id": "net-1a2b"},
				"conditions": []any{
					map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "create failed: alreadyExists"},
					map[string]any{"type": "Ready", "status": "True", "reason": "Available"},
					map[string]any{"type": "LastAsyncOperation", "status": "False", "message": "create failed"},
				},
			},
		}}
	}
	bare := full()
	unstructured.RemoveNestedField(bare.Object, "status")
	bare.SetAnnotations(nil)

	cases := []struct {
		name string
		in   any
		want any
	}{
		{
			name: "KeepsWhatManagedOfReads",
			in:   full(),
			want: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "fakecloud.m.intentjournal.io/v1alpha1",
				"kind":       "Network",
				"metadata": map[string]any{
					"name": "net-00001", "namespace": "team-a", "uid": "u-1", "resourceVersion": "42",
					"annotations": map[string]any{
						recovery.AnnotationExternalName:          "net-1a2b",
						recovery.AnnotationExternalCreateSucceed: "2026-11-26T02:00:00Z",
						recovery.AnnotationPaused:                "true",
					},
				},
				"status": map[string]any{"conditions": []any{
					map[string]any{"type": "Ready", "status": "True", "reason": "Available"},
					map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "create failed: alreadyExists"},
				}},
			}},
		},
		{
			name: "NoAnnotationsNoConditions",
			in:   bare,
			want: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "fakecloud.m.intentjournal.io/v1alpha1",
				"kind":       "Network",
				"metadata": map[string]any{
					"name": "net-00001", "namespace": "team-a", "uid": "u-1", "resourceVersion": "42",
				},
			}},
		},
		{
			name: "TombstonePassesAsItIs",
			in:   cache.DeletedFinalStateUnknown{Key: "team-a/net-00001"},
			want: cache.DeletedFinalStateUnknown{Key: "team-a/net-00001"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := trim(tc.in)
			if err != nil {
				t.Fatalf("trim: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("trim (-want +got):\n%s", diff)
			}
		})
	}

	// What the demo reads of a trimmed MR is what it reads of the whole.
	if diff := cmp.Diff(managedOf(full()), managedOf(mustTrim(t, full()))); diff != "" {
		t.Errorf("managedOf differs after trim (-whole +trimmed):\n%s", diff)
	}
}

func mustTrim(t *testing.T, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got, err := trim(u)
	if err != nil {
		t.Fatal(err)
	}
	return got.(*unstructured.Unstructured)
}
