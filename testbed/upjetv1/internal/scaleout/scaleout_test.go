package scaleout

import (
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/crds"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/scaleout"
	itestbed "github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// line is the v1 line's test bed, as the scale-out tests drive it.
var line = itestbed.Line{
	Name:               "v1",
	Module:             "testbed/upjetv1",
	ProviderPackage:    testbed.ProviderPackage,
	CRDs:               crds.FS,
	Group:              fcrecovery.Group,
	ProviderConfigKind: "ProviderConfig",
}

// TestShardDeath: see scaleout.ShardDeath.
func TestShardDeath(t *testing.T) { scaleout.ShardDeath(t, line) }

// TestRelabel: see scaleout.Relabel.
func TestRelabel(t *testing.T) { scaleout.Relabel(t, line) }

// TestRollingRestart: see scaleout.RollingRestart (-scaleout.creates=N).
func TestRollingRestart(t *testing.T) { scaleout.RollingRestart(t, line) }

// TestTakeoverOfIncompleteCreates: see scaleout.TakeoverOfIncompleteCreates.
func TestTakeoverOfIncompleteCreates(t *testing.T) { scaleout.TakeoverOfIncompleteCreates(t, line) }

// TestAnnotationOnlyCrash: see scaleout.AnnotationOnlyCrash.
func TestAnnotationOnlyCrash(t *testing.T) { scaleout.AnnotationOnlyCrash(t, line) }

// TestScaleOutRoles: see scaleout.Roles, run with this line's client-go
// and controller-runtime.
func TestScaleOutRoles(t *testing.T) { scaleout.Roles(t) }

// TestScaleOutManifests: see scaleout.Manifests.
func TestScaleOutManifests(t *testing.T) { scaleout.Manifests(t) }
