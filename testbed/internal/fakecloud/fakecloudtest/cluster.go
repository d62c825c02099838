package fakecloudtest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/crds"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/kubeconfig"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// ProviderConfigName is the ProviderConfig the managed resources refer to.
const ProviderConfigName = "default"

// Cluster is an envtest control plane serving provider-fakecloud's CRDs.
type Cluster struct {
	// Config is an admin config for the API server.
	Config *rest.Config
	// Client knows the core kinds, the kinds of StartCluster's schemes,
	// and every kind as unstructured.
	Client client.Client
	// Kubeconfig is the path of a kubeconfig file for Config, for child
	// processes.
	Kubeconfig string
	// Scheme holds the kinds Client knows as types.
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
// provider-fakecloud installed and writes a kubeconfig for it. Its client
// knows the core kinds and those addToScheme adds (a test bed adds its
// crossplane line's API types; tests with none use unstructured objects).
// Under -short it skips t (see testenv.SkipShort); otherwise it fails t,
// naming `make tools`, when kube-apiserver or etcd is missing.
func StartCluster(t testing.TB, addToScheme ...func(*runtime.Scheme) error) *Cluster {
	t.Helper()
	return StartClusterWith(t, crds.FS, addToScheme...)
}

// StartClusterWith is StartCluster with the CRD manifests (*.yaml at the
// top of crdFS) of another crossplane line's provider-fakecloud installed
// instead, e.g. the v2 line's, which add the namespaced group.
func StartClusterWith(t testing.TB, crdFS fs.FS, addToScheme ...func(*runtime.Scheme) error) *Cluster {
	t.Helper()
	testenv.SkipShort(t, testenv.NeedEnvtest)
	quietControllerRuntime()
	if n, err := fs.Glob(crdFS, "*.yaml"); err != nil || len(n) == 0 {
		t.Fatalf("fakecloudtest: no CRDs embedded (%v); run hack/generate.sh", err)
	}
	crdDir := filepath.Join(t.TempDir(), "crds")
	if err := os.CopyFS(crdDir, crdFS); err != nil {
		t.Fatalf("fakecloudtest: cannot write CRDs: %v", err)
	}
	cfg := testenv.StartEnvtest(t, crdDir)

	s := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{corev1.AddToScheme}, addToScheme...) {
		if err := add(s); err != nil {
			t.Fatalf("fakecloudtest: cannot build the scheme: %v", err)
		}
	}
	c := &Cluster{
		Config:     cfg,
		Client:     testenv.NewClient(t, cfg, s),
		Kubeconfig: filepath.Join(t.TempDir(), "kubeconfig"),
		Scheme:     s,
	}
	if err := WriteKubeconfig(cfg, c.Kubeconfig); err != nil {
		t.Fatalf("fakecloudtest: %v", err)
	}
	return c
}

// WriteKubeconfig writes a kubeconfig file for cfg to path (see
// kubeconfig.Write).
func WriteKubeconfig(cfg *rest.Config, path string) error { return kubeconfig.Write(cfg, path) }

// CrossplaneTags are the crossplane external tags a fake cloud MR of kind
// ("RecordSet" or "Network") called name carries, through
// ProviderConfigName: in this cluster, and in any other cluster with the
// same manifests (a look-alike carries exactly these).
func CrossplaneTags(kind, name string) map[string]string {
	return map[string]string{
		recovery.TagCrossplaneKind:           strings.ToLower(kind) + "." + fcrecovery.Group,
		recovery.TagCrossplaneName:           name,
		recovery.TagCrossplaneProviderConfig: ProviderConfigName,
	}
}

// RecordSet returns, as an unstructured object, a RecordSet MR called name
// for an A record of the same name in zone.
func RecordSet(name, zone string) *unstructured.Unstructured {
	return managed("RecordSet", name, map[string]any{
		"zone": zone, "name": name, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.10"},
	})
}

// Network returns, as an unstructured object, a Network MR called name with
// the same display name.
func Network(name, cidr string) *unstructured.Unstructured {
	return managed("Network", name, map[string]any{"name": name, "cidrBlock": cidr})
}

func managed(kind, name string, forProvider map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"providerConfigRef": map[string]any{"name": ProviderConfigName},
			"forProvider":       forProvider,
		},
	}}
	u.SetGroupVersionKind(fcrecovery.RecordSet.WithVersion(fcrecovery.Version))
	u.SetKind(kind)
	u.SetName(name)
	return u
}

// Create creates objs in the cluster, failing t on the first error.
func (c *Cluster) Create(t testing.TB, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := c.Client.Create(ctx, o)
		cancel()
		if err != nil {
			t.Fatalf("fakecloudtest: cannot create %T %q: %v", o, o.GetName(), err)
		}
	}
}
