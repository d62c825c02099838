package testbed

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/testbed/internal/scalebench"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
)

// scaleNamespace holds BenchmarkRecoveryGenerated4000's managed resources.
const scaleNamespace = "scale"

// BenchmarkRecoveryGenerated4000 is BenchmarkRecovery4000 (the v1 line's,
// testbed/upjetv1/internal/recoverytest) on the managed kinds upjet's
// pipeline generated for the v2 line: namespaced RecordSets and Networks
// of fakecloud.m.intentjournal.io, the kinds `make demo` creates, whose
// schemas are upjet's (the objects, freshly created, are about the v1
// test bed's size: 930 and 1,001 bytes of JSON against 918 and 989).
// Everything else is the same: 4,000 unsettled
// intents, one in eight a Network that exists in the fake cloud with the
// tags its create sent (adopted on the weak crossplane-tags proof with
// matching recorded arguments) and the rest RecordSets under which
// nothing was created (cleared); a pass with live reads (no
// Options.Reader), concurrency 32, a 20 ms lookup latency in the fake
// cloud process, envtest without client-side throttling; each iteration
// resets the annotations with 4,000 patches at the same concurrency and
// reports that time as api-write-s.
//
// Set beside BenchmarkRecovery4000 it separates the generated kinds from
// the overhead a provider's pass adds (issue #34): both run the same
// library pass with the same finders and fixture (scalebench), so a gap
// between their wall-s is the generated kinds' cost.
func BenchmarkRecoveryGenerated4000(b *testing.B) {
	const n = 4000
	cluster := StartCluster(b)
	CreateNamespaces(b, cluster, scaleNamespace)
	f := scalebench.New(b, scalebench.Line{
		Cluster: cluster,
		Kinds:   []schema.GroupVersionKind{namespacedv1alpha1.RecordSet_GroupVersionKind, namespacedv1alpha1.Network_GroupVersionKind},
		RecordSet: func(name string) client.Object {
			return NewNamespacedRecordSet(scaleNamespace, name, scalebench.Zone)
		},
		Network: func(name, cidr string) client.Object {
			return NewNamespacedNetwork(scaleNamespace, name, cidr)
		},
		// The intent the v2 adapter's create path begins: lookup keys that
		// are the tags upjet sends with the create, namespace and provider
		// config kind included.
		Intent: func(obj client.Object) (journal.Intent, error) {
			gvk := namespacedv1alpha1.RecordSet_GroupVersionKind
			if _, ok := obj.(*namespacedv1alpha1.Network); ok {
				gvk = namespacedv1alpha1.Network_GroupVersionKind
			}
			return upjetv2.BuildIntent(obj.(resource.Managed), upjetv2.IntentInput{GVK: gvk})
		},
	})
	f.Grow(b, n)
	f.Bench(b, n)
}
