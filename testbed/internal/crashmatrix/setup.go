package crashmatrix

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// setUp creates what every trial of the lane needs: for the line, and for
// the WeakTags and Records lines where they differ from it, the namespace
// its managed resources live in, if they are namespaced, and the provider
// config that points them at the lane's fake cloud.
func (e *env) setUp(t *testing.T) {
	t.Helper()
	lines := []testbed.Line{e.line}
	if e.weak != nil {
		lines = append(lines, e.weak.Line)
	}
	if e.records != nil {
		lines = append(lines, e.records.Line)
	}
	var objs []client.Object
	namespaces, configs := map[string]bool{}, map[string]bool{}
	for _, l := range lines {
		if l.Namespaced() && !namespaces[l.Namespace] {
			namespaces[l.Namespace] = true
			objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: l.Namespace}})
		}
		if pc := l.GVK(l.ProviderConfigKind).String(); !configs[pc] {
			configs[pc] = true
			objs = append(objs, l.ProviderConfig(e.fc.URL))
		}
	}
	e.cl.Create(t, objs...)
}
