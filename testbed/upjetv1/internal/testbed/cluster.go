package testbed

import (
	"testing"

	"k8s.io/client-go/rest"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis"
)

// Cluster is an envtest control plane serving provider-fakecloud's CRDs,
// whose client knows the v1 test bed's API types.
type Cluster = fakecloudtest.Cluster

// StartCluster starts fakecloudtest's control plane with the v1 test bed's
// API types in its client's scheme. Under -short it skips t; otherwise it
// fails t, naming `make tools`, when kube-apiserver or etcd is missing.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return fakecloudtest.StartCluster(t, apis.AddToScheme)
}

// WriteKubeconfig writes a kubeconfig file for cfg to path, with the
// credentials inlined (see fakecloudtest.WriteKubeconfig).
func WriteKubeconfig(cfg *rest.Config, path string) error {
	return fakecloudtest.WriteKubeconfig(cfg, path)
}
