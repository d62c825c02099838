package crashmatrix

import (
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/crashmatrix"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/crds"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	itestbed "github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// shortTrials is the legacy v1 line's short form in make test: 10 trials
// where the v2 line runs crashmatrix.DefaultTrials (20), so that CI stays
// within its budget (#16). The long form (make crashtest) runs 200.
const shortTrials = 10

// TestCrashMatrix runs the crash matrix on the v1 line (see
// crashmatrix.Run): go test ./internal/crashmatrix -crash.trials=N.
//
// The v1 line has neither of the v2 line's issue #29 options: its
// provider always sends the UID tag, so a look-alike made within the
// clock-skew allowance is told apart by it before any weak proof is tried
// (the trial still checks that it is left unchanged), and it serves no
// tagless Record, so no trial races a foreign record.
func TestCrashMatrix(t *testing.T) {
	crashmatrix.Run(t, itestbed.Line{
		Name:               "v1",
		Module:             "testbed/upjetv1",
		ProviderPackage:    testbed.ProviderPackage,
		CRDs:               crds.FS,
		Group:              fcrecovery.Group,
		ProviderConfigKind: "ProviderConfig",
	}, crashmatrix.WithDefaultTrials(shortTrials))
}
