package crashmatrix

import (
	"flag"
	"testing"

	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/provider/crds"
	"github.com/intentjournal/intentjournal/adapter/upjetv2/internal/testbed"
	"github.com/intentjournal/intentjournal/internal/crashmatrix"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fcrecovery"
	itestbed "github.com/intentjournal/intentjournal/internal/testbed"
)

var scope = flag.String("crash.scope", "namespaced", "scope of the trials' managed resources: namespaced (fakecloud.m.intentjournal.io) or cluster (fakecloud.intentjournal.io)")

// TestCrashMatrix runs the crash matrix on the v2 line (see
// crashmatrix.Run): go test ./internal/crashmatrix -crash.trials=N.
func TestCrashMatrix(t *testing.T) {
	line := itestbed.Line{
		Name:            "v2",
		Module:          "adapter/upjetv2",
		ProviderPackage: testbed.ProviderPackage,
		CRDs:            crds.FS,
	}
	switch *scope {
	case "namespaced":
		line.Name += " namespaced"
		line.Group, line.Namespace, line.ProviderConfigKind = fcrecovery.GroupNamespaced, "crash", "ClusterProviderConfig"
	case "cluster":
		line.Name += " cluster-scoped"
		line.Group, line.ProviderConfigKind = fcrecovery.Group, "ProviderConfig"
	default:
		t.Fatalf("-crash.scope=%q: want namespaced or cluster", *scope)
	}
	crashmatrix.Run(t, line)
}
