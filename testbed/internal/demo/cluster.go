package demo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/intentjournal/intentjournal/testbed/internal/kubeconfig"
)

// controlPlaneStartTimeout bounds each of etcd and kube-apiserver start-up;
// envtest's default of 20 s is tight on a busy 2-core machine.
const controlPlaneStartTimeout = 90 * time.Second

// Client-side rate limits of the demo's own client: creating thousands of
// managed resources must not be throttled by client-go's default 5 QPS.
const (
	clientQPS   = 500
	clientBurst = 1000
)

// cluster is an envtest control plane serving provider-fakecloud's CRDs. Its
// client knows the core kinds as types and the managed kinds as
// unstructured objects.
type cluster struct {
	env        *envtest.Environment
	config     *rest.Config
	client     client.Client
	kubeconfig string
}

// startCluster starts etcd and kube-apiserver from assets with the CRD
// manifests of crdFS (*.yaml at its top), written under dir, and a
// kubeconfig at dir/kubeconfig. On error, whatever started is stopped.
func startCluster(assets string, crdFS fs.FS, dir string) (c *cluster, err error) {
	if n, err := fs.Glob(crdFS, "*.yaml"); err != nil || len(n) == 0 {
		return nil, fmt.Errorf("no CRD manifests (*.yaml) found (%v); run hack/generate.sh", err)
	}
	crdDir := filepath.Join(dir, "crds")
	if err := os.CopyFS(crdDir, crdFS); err != nil {
		return nil, fmt.Errorf("cannot write the CRDs: %w", err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDDirectoryPaths:        []string{crdDir},
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: controlPlaneStartTimeout,
		ControlPlaneStopTimeout:  stopTimeout,
	}
	cfg, err := env.Start()
	if err != nil {
		// Start can fail after etcd or the API server is up.
		return nil, errors.Join(fmt.Errorf("cannot start the control plane from %s: %w", assets, err), env.Stop())
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, env.Stop())
		}
	}()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = clientQPS, clientBurst
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("cannot add the core kinds to the scheme: %w", err)
	}
	cl, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("cannot create a client for %s: %w", cfg.Host, err)
	}
	kc := filepath.Join(dir, "kubeconfig")
	if err := kubeconfig.Write(cfg, kc); err != nil {
		return nil, fmt.Errorf("cannot write the kubeconfig: %w", err)
	}
	return &cluster{env: env, config: cfg, client: cl, kubeconfig: kc}, nil
}

// stop stops the control plane and deletes its data.
func (c *cluster) stop() error {
	if err := c.env.Stop(); err != nil {
		return fmt.Errorf("cannot stop the control plane: %w", err)
	}
	return nil
}
