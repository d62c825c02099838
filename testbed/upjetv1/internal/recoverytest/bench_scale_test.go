package recoverytest_test

import (
	"fmt"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/scalebench"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// scaleSizes are the numbers of unsettled intents BenchmarkRecoveryScale
// resolves, in ascending order: each size reuses the managed resources the
// smaller ones created.
var scaleSizes = []int{1_000, 4_000, 20_000, 100_000}

// BenchmarkRecoveryScale measures the wall time of one recovery pass against
// the number of unsettled intents N (1,000, 4,000, 20,000 and 100,000), with
// the workload and settings BenchmarkRecovery4000 shares: a 20 ms lookup latency
// in the fake cloud process, concurrency 32, envtest without client-side
// throttling, one intent in eight a Network that exists (adopted) and the
// rest RecordSets under which nothing was created (cleared).
//
// Each iteration first puts the pending mark
// back on every managed resource with a Get and a Patch at the same
// concurrency, and reports that time as api-write-s: the pass makes the same
// two API calls per intent. So x-(ideal+api), wall-s over (N x 20 ms / 32 +
// api-write-s), is measured under the load of the same run.
//
// All sizes share one control plane and one fake cloud. The managed
// resources, and the Networks in the cloud, grow with N and are never
// deleted, so the pass at size N runs against exactly N of each. The
// 100,000 case creates 100,000 objects in envtest and takes several minutes:
// run one size with -bench 'RecoveryScale/N=4000$'.
func BenchmarkRecoveryScale(b *testing.B) {
	f := scalebench.New(b, scaleLine(b))
	for _, n := range scaleSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			f.Grow(b, n)
			f.Bench(b, n)
		})
	}
}

// scaleLine is the v1 line's part of the scale benchmarks: its
// hand-written test kinds, and intents as its create path begins them.
func scaleLine(b *testing.B) scalebench.Line {
	b.Helper()
	return scalebench.Line{
		Cluster: testbed.StartCluster(b),
		Kinds:   fcrecovery.Kinds(),
		RecordSet: func(name string) client.Object {
			return testbed.NewRecordSet(name, scalebench.Zone)
		},
		Network: func(name, cidr string) client.Object { return testbed.NewNetwork(name, cidr) },
		Intent: func(obj client.Object) (journal.Intent, error) {
			kind := "RecordSet"
			if _, ok := obj.(*v1alpha1.Network); ok {
				kind = "Network"
			}
			return journal.Intent{
				Resource:   journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: kind, Name: obj.GetName(), UID: string(obj.GetUID())},
				LookupKeys: fakecloudtest.CrossplaneTags(kind, obj.GetName()),
			}, nil
		},
	}
}
