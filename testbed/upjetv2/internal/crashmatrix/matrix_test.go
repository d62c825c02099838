package crashmatrix

import (
	"flag"
	"io/fs"
	"testing"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/testbed/internal/crashmatrix"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	itestbed "github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/package/crds"
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
//     probe.
//
// Its RecordSets and Networks are reconciled through upjet's plugin SDK
// connector, in the provider's process; TestCrashMatrixGenerated runs the
// same provider's Terraform CLI kinds.
func TestCrashMatrix(t *testing.T) {
	line, namespaced, cluster := lines(t, "v2", crds.FS)
	crashmatrix.Run(t, line,
		crashmatrix.WithWeakTags(crashmatrix.WeakTags{Line: cluster, ProviderArgs: []string{"--uid-tag=false"}}),
		crashmatrix.WithRecords(crashmatrix.Records{Line: namespaced, KeyLabel: adapter.KeyLabel, ExternalName: tfprovider.RecordID}))
}

// lines returns the line of the v2 test bed's module whose provider
// serves the CRDs crdFS, called name, in both scopes, and the one
// -crash.scope picks: namespaced kinds in namespace crash with a
// ClusterProviderConfig, or cluster-scoped ones with a ProviderConfig.
func lines(t *testing.T, name string, crdFS fs.FS) (line, namespaced, cluster itestbed.Line) {
	t.Helper()
	base := itestbed.Line{
		Module:          "testbed/upjetv2",
		ProviderPackage: testbed.ProviderPackage,
		CRDs:            crdFS,
	}
	namespaced, cluster = base, base
	namespaced.Name = name + " namespaced"
	namespaced.Group, namespaced.Namespace, namespaced.ProviderConfigKind = fcrecovery.GroupNamespaced, "crash", "ClusterProviderConfig"
	cluster.Name = name + " cluster-scoped"
	cluster.Group, cluster.ProviderConfigKind = fcrecovery.Group, "ProviderConfig"
	switch *scope {
	case "namespaced":
		line = namespaced
	case "cluster":
		line = cluster
	default:
		t.Fatalf("-crash.scope=%q: want namespaced or cluster", *scope)
	}
	return line, namespaced, cluster
}
