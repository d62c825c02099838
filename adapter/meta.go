package adapter

import (
	"maps"

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
// RFC 3339 time counts as unset. It is recovery.CreateIncomplete, the one
// copy the library keeps of crossplane-runtime's rule.
func ExternalCreateIncomplete(o metav1.Object) bool {
	return recovery.CreateIncomplete(o.GetAnnotations())
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

// managementActionObserve is crossplane's ManagementActionObserve, written
// out so that the adapter names no type of the package that holds it,
// which crossplane-runtime v2.3 moved into crossplane/apis/v2 (core/v2):
// each line's package passes its own ManagementPolicies.
const managementActionObserve = "Observe"

// ObserveOnly reports whether policies, a managed resource's
// spec.managementPolicies, are exactly Observe (in any number of copies):
// a resource crossplane only observes, which upjet's tagger leaves
// untagged. It takes any runtime generation's ManagementPolicies.
func ObserveOnly[S ~[]A, A ~string](policies S) bool {
	if len(policies) == 0 {
		return false
	}
	for _, p := range policies {
		if string(p) != managementActionObserve {
			return false
		}
	}
	return true
}
