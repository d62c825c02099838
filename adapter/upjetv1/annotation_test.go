package upjetv1

import (
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestAnnotationsAgreeWithCrossplane: the shared create path reads
// crossplane-runtime's annotations itself (package adapter imports no
// crossplane); on this line it must read them as crossplane-runtime v1
// does, under the same keys.
func TestAnnotationsAgreeWithCrossplane(t *testing.T) {
	for key, want := range map[string]string{
		recovery.AnnotationExternalName:          meta.AnnotationKeyExternalName,
		recovery.AnnotationExternalCreatePending: meta.AnnotationKeyExternalCreatePending,
		recovery.AnnotationExternalCreateSucceed: meta.AnnotationKeyExternalCreateSucceeded,
		recovery.AnnotationExternalCreateFailed:  meta.AnnotationKeyExternalCreateFailed,
	} {
		if key != want {
			t.Errorf("the shared create path reads %q where crossplane-runtime writes %q", key, want)
		}
	}
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	marks := map[string]func(*unstructured.Unstructured){
		"none":    func(*unstructured.Unstructured) {},
		"pending": func(u *unstructured.Unstructured) { meta.SetExternalCreatePending(u, at) },
		"pending, succeeded": func(u *unstructured.Unstructured) {
			meta.SetExternalCreatePending(u, at)
			meta.SetExternalCreateSucceeded(u, at.Add(time.Second))
		},
		"pending, failed": func(u *unstructured.Unstructured) {
			meta.SetExternalCreatePending(u, at)
			meta.SetExternalCreateFailed(u, at.Add(time.Second))
		},
		"failed, pending again": func(u *unstructured.Unstructured) {
			meta.SetExternalCreateFailed(u, at)
			meta.SetExternalCreatePending(u, at.Add(time.Second))
		},
		"pending and failed at once": func(u *unstructured.Unstructured) {
			meta.SetExternalCreatePending(u, at)
			meta.SetExternalCreateFailed(u, at)
		},
		"pending unreadable": func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{meta.AnnotationKeyExternalCreatePending: "yesterday"})
		},
		"named": func(u *unstructured.Unstructured) { meta.SetExternalName(u, "rs-0123") },
	}
	for name, mark := range marks {
		u := &unstructured.Unstructured{}
		mark(u)
		if got, want := adapter.ExternalCreateIncomplete(u), meta.ExternalCreateIncomplete(u); got != want {
			t.Errorf("%s: ExternalCreateIncomplete = %t, crossplane-runtime says %t", name, got, want)
		}
		if got, want := adapter.ExternalName(u), meta.GetExternalName(u); got != want {
			t.Errorf("%s: ExternalName = %q, crossplane-runtime says %q", name, got, want)
		}
	}
}
