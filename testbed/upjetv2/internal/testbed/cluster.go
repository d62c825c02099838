package testbed

import (
	"testing"

	"k8s.io/client-go/rest"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/crds"
)

// Cluster is an envtest control plane serving the v2 provider-fakecloud's
// CRDs, whose client knows the v2 test bed's API types of both scopes.
type Cluster = fakecloudtest.Cluster

// StartCluster starts fakecloudtest's control plane with the v2 CRDs (both
// groups) installed and the v2 API types in its client's scheme. Under
// -short it skips t; otherwise it fails t, naming `make tools`, when
// kube-apiserver or etcd is missing.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return fakecloudtest.StartClusterWith(t, crds.FS, apis.AddToScheme)
}

// WriteKubeconfig writes a kubeconfig file for cfg to path, with the
// credentials inlined (see fakecloudtest.WriteKubeconfig).
func WriteKubeconfig(cfg *rest.Config, path string) error {
	return fakecloudtest.WriteKubeconfig(cfg, path)
}
