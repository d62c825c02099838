package adapter

import (
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/intentjournal/intentjournal/recovery"
)

// crossplane-runtime's meta helpers for the annotations the create path
// reads and writes, over metav1.Object: the same keys and the same
// reading on both lines (each line's tests compare them with its
// crossplane-runtime's).

// ExternalName returns o's crossplane.io/external-name annotation, as
// crossplane-runtime's meta.GetExternalName does; "" when it has none.
func ExternalName(o metav1.Object) string {
	return o.GetAnnotations()[recovery.AnnotationExternalName]
}

// ExternalCreateIncomplete reports whether o's create appears incomplete,
// as crossplane-runtime's meta.ExternalCreateIncomplete does: its
// external-create-pending mark is set and newer than its
// external-create-succeeded and -failed marks. A mark that is not an
// RFC 3339 time counts as unset.
func ExternalCreateIncomplete(o metav1.Object) bool {
	pending := annotationTime(o, recovery.AnnotationExternalCreatePending)
	if pending.IsZero() {
		return false
	}
	latest := annotationTime(o, recovery.AnnotationExternalCreateSucceed)
	if failed := annotationTime(o, recovery.AnnotationExternalCreateFailed); failed.After(latest) {
		latest = failed
	}
	return pending.After(latest)
}

// annotationTime returns the RFC 3339 time of o's annotation key, or the
// zero time.
func annotationTime(o metav1.Object, key string) time.Time {
	t, err := time.Parse(time.RFC3339, o.GetAnnotations()[key])
	if err != nil {
		return time.Time{}
	}
	return t
}

// addAnnotations adds add to o's annotations, as crossplane-runtime's
// meta.AddAnnotations does.
func addAnnotations(o metav1.Object, add map[string]string) {
	a := o.GetAnnotations()
	if a == nil {
		o.SetAnnotations(add)
		return
	}
	maps.Copy(a, add)
	o.SetAnnotations(a)
}
