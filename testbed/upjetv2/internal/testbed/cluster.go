package testbed

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	apiscluster "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster"
	apisnamespaced "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/package/crds"
)

// Cluster is an envtest control plane serving the v2 provider-fakecloud's
// CRDs, whose client knows the v2 test bed's API types of both scopes.
type Cluster = fakecloudtest.Cluster

// StartCluster starts fakecloudtest's control plane with the generated
// provider's CRDs (both groups) installed and its API types in its
// client's scheme. Under -short it skips t; otherwise it fails t, naming
// `make tools`, when kube-apiserver or etcd is missing.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return fakecloudtest.StartClusterWith(t, crds.FS, AddToScheme)
}

// AddToScheme adds the generated provider's API types of both scopes to
// s, as upjet v2's generated main.go does with apisCluster and
// apisNamespaced.
func AddToScheme(s *runtime.Scheme) error {
	if err := apiscluster.AddToScheme(s); err != nil {
		return err
	}
	return apisnamespaced.AddToScheme(s)
}

// WriteKubeconfig writes a kubeconfig file for cfg to path, with the
// credentials inlined (see fakecloudtest.WriteKubeconfig).
func WriteKubeconfig(cfg *rest.Config, path string) error {
	return fakecloudtest.WriteKubeconfig(cfg, path)
}
