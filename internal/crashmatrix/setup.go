package crashmatrix

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// setUp creates what every trial of the lane needs: the line's namespace,
// if its managed resources are namespaced, and the provider config that
// points them at the lane's fake cloud.
func (e *env) setUp(t *testing.T) {
	t.Helper()
	var objs []client.Object
	if e.line.Namespaced() {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.line.Namespace}})
	}
	e.cl.Create(t, append(objs, e.line.ProviderConfig(e.fc.URL))...)
}
