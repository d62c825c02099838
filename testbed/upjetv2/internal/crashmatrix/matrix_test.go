package crashmatrix

import (
	"flag"
	"testing"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/testbed/internal/crashmatrix"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	itestbed "github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/crds"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

var scope = flag.String("crash.scope", "namespaced", "scope of the trials' managed resources: namespaced (fakecloud.m.intentjournal.io) or cluster (fakecloud.intentjournal.io)")

// TestCrashMatrix runs the crash matrix on the v2 line (see
// crashmatrix.Run): go test ./internal/crashmatrix -crash.trials=N.
//
// Two of its variants (issue #29) run beside -crash.scope's kinds:
//   - the trials whose look-alikes are made within the clock-skew
//     allowance run the provider with --uid-tag=false, which tags with
//     upjet's own tagger (crossplane's tags, no UID), on cluster-scoped
//     managed resources: upjet v2.3.0's tagger writes no
//     crossplane-namespace tag, so crossplane tags can prove a resource
//     ours, weakly, only for a cluster-scoped one;
//   - the trials that draw foreign records create namespaced Records,
//     the tagless kind found by its ID template and proven by the key
//     probe (there is no cluster-scoped Record).
func TestCrashMatrix(t *testing.T) {
	base := itestbed.Line{
		Module:          "testbed/upjetv2",
		ProviderPackage: testbed.ProviderPackage,
		CRDs:            crds.FS,
	}
	namespaced, cluster := base, base
	namespaced.Name = "v2 namespaced"
	namespaced.Group, namespaced.Namespace, namespaced.ProviderConfigKind = fcrecovery.GroupNamespaced, "crash", "ClusterProviderConfig"
	cluster.Name = "v2 cluster-scoped"
	cluster.Group, cluster.ProviderConfigKind = fcrecovery.Group, "ProviderConfig"
	var line itestbed.Line
	switch *scope {
	case "namespaced":
		line = namespaced
	case "cluster":
		line = cluster
	default:
		t.Fatalf("-crash.scope=%q: want namespaced or cluster", *scope)
	}
	crashmatrix.Run(t, line,
		crashmatrix.WithWeakTags(crashmatrix.WeakTags{Line: cluster, ProviderArgs: []string{"--uid-tag=false"}}),
		crashmatrix.WithRecords(crashmatrix.Records{Line: namespaced, KeyLabel: adapter.KeyLabel, ExternalName: tfprovider.RecordID}))
}
