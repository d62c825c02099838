package testbed

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/intentjournal/intentjournal/internal/fakecloud/apis"
	"github.com/intentjournal/intentjournal/internal/fakecloud/crds"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fixtures"
	"github.com/intentjournal/intentjournal/internal/testenv"
)

// Cluster is an envtest control plane serving provider-fakecloud's CRDs.
type Cluster struct {
	// Config is an admin config for the API server.
	Config *rest.Config
	// Client knows the core kinds and the fakecloud.intentjournal.io kinds.
	Client client.Client
	// Kubeconfig is the path of a kubeconfig file for Config, for child
	// processes.
	Kubeconfig string
	// Scheme holds the kinds Client knows.
	Scheme *runtime.Scheme
}

// quietControllerRuntime gives controller-runtime, which envtest logs
// through, a warn-level logger on stderr. Without one it prints a stack trace
// complaining that SetLogger was never called.
var quietControllerRuntime = sync.OnceFunc(func() {
	ctrllog.SetLogger(zapr.NewLogger(zap.New(zapcore.NewCore(
		zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()),
		zapcore.Lock(os.Stderr), zapcore.WarnLevel))))
})

// StartCluster starts envtest (see testenv.StartEnvtest) with the CRDs of
// provider-fakecloud installed and writes a kubeconfig for it. Under -short
// it skips t (see testenv.SkipShort); otherwise it fails t, naming `make
// tools`, when kube-apiserver or etcd is missing.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	testenv.SkipShort(t, testenv.NeedEnvtest)
	quietControllerRuntime()
	crdDir := filepath.Join(t.TempDir(), "crds")
	if err := os.CopyFS(crdDir, crds.FS); err != nil {
		t.Fatalf("testbed: cannot write CRDs: %v", err)
	}
	if n, err := fs.Glob(crds.FS, "*.yaml"); err != nil || len(n) == 0 {
		t.Fatalf("testbed: no CRDs embedded (%v); run hack/generate.sh", err)
	}
	cfg := testenv.StartEnvtest(t, crdDir)

	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatalf("testbed: cannot add core kinds to scheme: %v", err)
	}
	if err := apis.AddToScheme(s); err != nil {
		t.Fatalf("testbed: cannot add fakecloud kinds to scheme: %v", err)
	}
	c := &Cluster{
		Config:     cfg,
		Client:     testenv.NewClient(t, cfg, s),
		Kubeconfig: filepath.Join(t.TempDir(), "kubeconfig"),
		Scheme:     s,
	}
	if err := WriteKubeconfig(cfg, c.Kubeconfig); err != nil {
		t.Fatalf("testbed: %v", err)
	}
	return c
}

// WriteKubeconfig writes a kubeconfig file for cfg to path, with the
// credentials inlined (see fixtures.WriteKubeconfig).
func WriteKubeconfig(cfg *rest.Config, path string) error { return fixtures.WriteKubeconfig(cfg, path) }
