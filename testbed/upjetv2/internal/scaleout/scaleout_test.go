package scaleout

import (
	"flag"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/scaleout"
	itestbed "github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/package/crds"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

var scope = flag.String("scaleout.scope", "namespaced", "scope of the tests' managed resources: namespaced (fakecloud.m.intentjournal.io) or cluster (fakecloud.intentjournal.io)")

// line returns the v2 line's test bed in the scope -scaleout.scope names.
func line(t *testing.T) itestbed.Line {
	t.Helper()
	l := itestbed.Line{
		Name:            "v2",
		Module:          "testbed/upjetv2",
		ProviderPackage: testbed.ProviderPackage,
		CRDs:            crds.FS,
	}
	switch *scope {
	case "namespaced":
		l.Name += " namespaced"
		l.Group, l.Namespace, l.ProviderConfigKind = fcrecovery.GroupNamespaced, "scaleout", "ClusterProviderConfig"
	case "cluster":
		l.Name += " cluster-scoped"
		l.Group, l.ProviderConfigKind = fcrecovery.Group, "ProviderConfig"
	default:
		t.Fatalf("-scaleout.scope=%q: want namespaced or cluster", *scope)
	}
	return l
}

// TestShardDeath: see scaleout.ShardDeath.
func TestShardDeath(t *testing.T) { scaleout.ShardDeath(t, line(t)) }

// TestRelabel: see scaleout.Relabel.
func TestRelabel(t *testing.T) { scaleout.Relabel(t, line(t)) }

// TestRollingRestart: see scaleout.RollingRestart (-scaleout.creates=N).
func TestRollingRestart(t *testing.T) { scaleout.RollingRestart(t, line(t)) }

// TestTakeoverOfIncompleteCreates: see scaleout.TakeoverOfIncompleteCreates.
func TestTakeoverOfIncompleteCreates(t *testing.T) { scaleout.TakeoverOfIncompleteCreates(t, line(t)) }

// TestAnnotationOnlyCrash: see scaleout.AnnotationOnlyCrash.
func TestAnnotationOnlyCrash(t *testing.T) { scaleout.AnnotationOnlyCrash(t, line(t)) }

// TestScaleOutRoles: see scaleout.Roles, run with this line's client-go
// and controller-runtime.
func TestScaleOutRoles(t *testing.T) { scaleout.Roles(t) }

// TestScaleOutManifests: see scaleout.Manifests.
func TestScaleOutManifests(t *testing.T) { scaleout.Manifests(t) }
