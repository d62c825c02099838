package testenv

import (
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// startTimeout bounds each of etcd and kube-apiserver start-up. envtest's own
// default of 20 s is too tight on a 2-core machine that is also compiling;
// KUBEBUILDER_CONTROLPLANE_START_TIMEOUT still wins when set.
const startTimeout = 90 * time.Second

// StartEnvtest starts a real etcd and kube-apiserver from KubebuilderAssets,
// installs the CustomResourceDefinitions found in crdDirs (directories or
// files of YAML or JSON; each must exist), waits until they are served, and
// returns an admin *rest.Config for the new API server. It registers a
// t.Cleanup that stops the control plane and deletes its data, so nothing
// outlives the test. Each call starts a fresh control plane (3-5 s), so share
// one across the subtests of a test where possible.
//
// The control plane listens on 127.0.0.1 on random ports. Set
// KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true to see its logs. Under -short
// StartEnvtest skips t (see SkipShort). Otherwise it calls t.Fatalf, naming
// `make tools`, when the binaries are missing, and t.Fatalf when the control
// plane does not start.
func StartEnvtest(t testing.TB, crdDirs ...string) *rest.Config {
	t.Helper()
	SkipShort(t, NeedEnvtest)
	assets := KubebuilderAssets(t)
	// envtest prefers KUBEBUILDER_ASSETS over BinaryAssetsDirectory even when
	// it is empty, which would make it run ./etcd.
	if v, ok := os.LookupEnv(EnvKubebuilderAssets); ok && v == "" {
		t.Fatalf("testenv: %s is set but empty; unset it to use the `make tools` cache", EnvKubebuilderAssets)
	}

	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
	}
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		env.ControlPlaneStartTimeout = startTimeout
	}
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		// Start can fail after etcd or the API server is up (for example
		// while installing CRDs); stop whatever did start.
		if stopErr := env.Stop(); stopErr != nil {
			t.Logf("testenv: cannot stop partly started envtest: %v", stopErr)
		}
		t.Fatalf("testenv: cannot start envtest from %s with CRDs %q: %v", assets, crdDirs, err)
	}
	t.Logf("testenv: envtest from %s serving at %s after %s", assets, cfg.Host, time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("testenv: cannot stop envtest: %v", err)
		}
	})
	return cfg
}

// NewClient returns a controller-runtime client for cfg that knows the types
// in scheme; a nil scheme means client-go's scheme.Scheme, the built-in kinds.
// It calls t.Fatalf when the client cannot be built.
func NewClient(t testing.TB, cfg *rest.Config, scheme *runtime.Scheme) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("testenv: cannot create client for %s: %v", cfg.Host, err)
	}
	return c
}
