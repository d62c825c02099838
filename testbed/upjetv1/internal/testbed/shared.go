package testbed

import (
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// FakeCloudPackage is the import path of the fake cloud's command.
const FakeCloudPackage = testbed.FakeCloudPackage

// ProviderPackage is the import path of this line's provider-fakecloud.
const ProviderPackage = "github.com/intentjournal/intentjournal/testbed/upjetv1/internal/cmd/provider-fakecloud"

// The line-independent parts, from internal/testbed.
type (
	Binaries  = testbed.Binaries
	Process   = testbed.Process
	FakeCloud = testbed.FakeCloud
	Provider  = testbed.Provider
)

var (
	StartProcess   = testbed.StartProcess
	StartFakeCloud = testbed.StartFakeCloud
	Build          = testbed.Build
	Eventually     = testbed.Eventually
)

// BuildBinaries builds the fake cloud and this line's provider (see
// testbed.BuildBinaries).
func BuildBinaries(t testing.TB) Binaries {
	t.Helper()
	return testbed.BuildBinaries(t, ProviderPackage)
}

// StartProvider starts this line's provider binary bin against c (see
// testbed.StartProvider).
func StartProvider(t testing.TB, bin string, c *Cluster, args ...string) *Provider {
	t.Helper()
	return testbed.StartProvider(t, bin, c.Kubeconfig, args...)
}
