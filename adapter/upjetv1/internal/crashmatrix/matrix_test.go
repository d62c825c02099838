package crashmatrix

import (
	"testing"

	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/testbed"
	"github.com/intentjournal/intentjournal/internal/crashmatrix"
	"github.com/intentjournal/intentjournal/internal/fakecloud/crds"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fcrecovery"
	itestbed "github.com/intentjournal/intentjournal/internal/testbed"
)

// TestCrashMatrix runs the crash matrix on the v1 line (see
// crashmatrix.Run): go test ./internal/crashmatrix -crash.trials=N.
func TestCrashMatrix(t *testing.T) {
	crashmatrix.Run(t, itestbed.Line{
		Name:               "v1",
		Module:             "adapter/upjetv1",
		ProviderPackage:    testbed.ProviderPackage,
		CRDs:               crds.FS,
		Group:              fcrecovery.Group,
		ProviderConfigKind: "ProviderConfig",
	})
}
