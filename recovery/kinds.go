package recovery

import (
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ManagedKinds returns the kinds in scheme, in the given API groups (all
// groups when none are given), that are shaped like Crossplane managed
// resources: a Spec struct with a ForProvider field. List kinds, provider
// configs and usages are left out. The result is sorted, for stable scans.
func ManagedKinds(scheme *runtime.Scheme, groups ...string) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for gvk, t := range scheme.AllKnownTypes() {
		if len(groups) > 0 && !slices.Contains(groups, gvk.Group) {
			continue
		}
		if strings.HasSuffix(gvk.Kind, "List") || !isManaged(t) {
			continue
		}
		out = append(out, gvk)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func isManaged(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	spec, ok := t.FieldByName("Spec")
	if !ok || spec.Type.Kind() != reflect.Struct {
		return false
	}
	_, ok = spec.Type.FieldByName("ForProvider")
	return ok
}
