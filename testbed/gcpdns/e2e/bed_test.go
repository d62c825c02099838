package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/go-logr/logr"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced"
	dnsv1beta1 "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/dns/v1beta1"
	nsv1beta1 "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/v1beta1"
	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
	"github.com/intentjournal/intentjournal/testbed/internal/kubeconfig"
	"github.com/intentjournal/intentjournal/testbed/internal/offguard"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

const (
	project   = "intentjournal-test"
	zoneName  = "zone-a"
	zoneDNS   = "example.com."
	namespace = "team-a"
	// providerPackage is the provider the tests run.
	providerPackage = "github.com/intentjournal/intentjournal/testbed/gcpdns/cmd/provider-gcpdns"
)

// bed is one control plane, one fake Cloud DNS in this process, and the
// provider as a child process.
type bed struct {
	kube       client.Client
	kubeconfig string
	dns        *fakeclouddns.Server
	running    *fakeclouddns.Running
	guard      *offGuard
	bin        string
}

// binary is one build of provider-gcpdns, shared by the package's tests.
type binary struct {
	once sync.Once
	tags string
	path string
	err  error
}

var (
	// plainBinary is the provider as shipped; failpointBinary is built
	// with -tags failpoints (internal/failpoint), its crash points armed
	// by INTENTJOURNAL_FAILPOINTS.
	plainBinary, failpointBinary = &binary{}, &binary{tags: "failpoints"}
	buildDir                     string // removed by TestMain
	buildDirErr                  error
	buildDirOnce                 sync.Once
)

// TestMain removes the provider binaries the tests shared. envtest logs
// through controller-runtime's logger, which nothing here reads.
func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// build builds provider-gcpdns once for the package's tests, in the
// workspace the tests run in (gcp.work), and returns its path.
func (b *binary) build(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		buildDirOnce.Do(func() { buildDir, buildDirErr = os.MkdirTemp("", "provider-gcpdns-") })
		if b.err = buildDirErr; b.err != nil {
			return
		}
		b.path = filepath.Join(buildDir, "provider-gcpdns")
		args := []string{"build", "-o", b.path}
		if b.tags != "" {
			b.path += "-" + b.tags
			args = []string{"build", "-tags", b.tags, "-o", b.path}
		}
		out, err := exec.Command("go", append(args, providerPackage)...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatalf("cannot build %s (tags %q): %v", providerPackage, b.tags, b.err)
	}
	return b.path
}

// crdDir returns the generated CRDs' directory.
func crdDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test's source")
	}
	return filepath.Join(filepath.Dir(file), "..", "package", "crds")
}

// newBed starts the control plane and the fake Cloud DNS, with pageSize
// the fake's default page size and every changes.create answered
// changeLatency after it is carried out (the record set exists; the
// provider's create is still waiting: in flight), and creates the zone
// and the provider configuration.
func newBed(t *testing.T, pageSize int, changeLatency time.Duration) *bed {
	t.Helper()
	testenv.SkipShort(t, "provider-gcpdns (a 1-3 min build) and "+testenv.NeedEnvtest)
	b := &bed{guard: newOffGuard(t)}
	b.bin = plainBinary.build(t)
	cfg := testenv.StartEnvtest(t, crdDir(t))
	b.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := kubeconfig.Write(cfg, b.kubeconfig); err != nil {
		t.Fatal(err)
	}
	s := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := namespaced.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	b.kube = testenv.NewClient(t, cfg, s)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, r := range b.recordSets(t) {
			t.Logf("%s: external name %q, paused %t, conditions %+v", r.GetName(), meta.GetExternalName(&r), paused(&r), r.Status.Conditions)
		}
	})

	var err error
	if b.dns, err = fakeclouddns.NewServer(fakeclouddns.WithDefaultPageSize(pageSize)); err != nil {
		t.Fatal(err)
	}
	if err := b.dns.SetFaults(fakeclouddns.Faults{Ops: map[fakeclouddns.Op]fakeclouddns.Fault{fakeclouddns.OpChangesCreate: {Latency: changeLatency}}}); err != nil {
		t.Fatal(err)
	}
	if b.running, err = fakeclouddns.Listen("", b.dns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.running.Close() })

	ctx := context.Background()
	svc := b.dnsClient(t)
	if _, err := svc.ManagedZones.Create(project, &dns.ManagedZone{Name: zoneName, DnsName: zoneDNS, Description: "intentjournal e2e"}).Context(ctx).Do(); err != nil {
		t.Fatalf("cannot create the zone in the fake Cloud DNS: %v", err)
	}
	mustCreate(t, b.kube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})
	mustCreate(t, b.kube, &nsv1beta1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: nsv1beta1.ProviderConfigSpec{ProjectID: project, DNSEndpoint: b.running.Endpoint(),
			Credentials: nsv1beta1.ProviderCredentials{Source: xpv1.CredentialsSourceNone}},
	})
	return b
}

// dnsClient returns a dns/v1 client of the fake, which refuses anything
// but loopback.
func (b *bed) dnsClient(t *testing.T) *dns.Service {
	t.Helper()
	svc, err := dns.NewService(context.Background(), option.WithEndpoint(b.running.BasePath()), option.WithoutAuthentication(),
		option.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// startProvider starts provider-gcpdns with args, its proxy and metadata
// variables pointed at the guard.
func (b *bed) startProvider(t *testing.T, args ...string) *testbed.Provider {
	t.Helper()
	return b.startProviderEnv(t, b.bin, nil, args...)
}

// startProviderEnv starts the provider binary bin with env added to the
// guard's.
func (b *bed) startProviderEnv(t *testing.T, bin string, env []string, args ...string) *testbed.Provider {
	t.Helper()
	all := append([]string{"--kubeconfig", b.kubeconfig, "--metrics-bind-address", "0", "--poll=10s", "--max-reconcile-rate=50"}, args...)
	p := &testbed.Provider{Process: testbed.StartProcess(t, "provider-gcpdns", bin, all, append(b.guard.Env(), env...)...)}
	t.Logf("provider-gcpdns started (pid %d): %s", p.Pid(), strings.Join(args, " "))
	return p
}

// recordName is the DNS name of the i-th record set.
func recordName(i int) string { return fmt.Sprintf("rec-%04d.%s", i, zoneDNS) }

// recordID is the Terraform ID, and the external name, of a record set.
func recordID(name, typ string) string {
	return fmt.Sprintf("projects/%s/managedZones/%s/rrsets/%s/%s", project, zoneName, name, typ)
}

// newRecordSet returns a namespaced RecordSet of name in the zone.
func newRecordSet(mrName, dnsName, addr string, annotations map[string]string) *dnsv1beta1.RecordSet {
	r := &dnsv1beta1.RecordSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: mrName, Annotations: annotations}}
	r.Spec.ProviderConfigReference = &xpv1.ProviderConfigReference{Kind: nsv1beta1.ClusterProviderConfigKind, Name: "default"}
	r.Spec.ForProvider = dnsv1beta1.RecordSetParameters{
		ManagedZone: ptr.To(zoneName), Name: ptr.To(dnsName), Type: ptr.To("A"), TTL: ptr.To(300.0), Rrdatas: []*string{ptr.To(addr)},
	}
	return r
}

// recordSets lists the namespaced RecordSets.
func (b *bed) recordSets(t *testing.T) []dnsv1beta1.RecordSet {
	t.Helper()
	l := &dnsv1beta1.RecordSetList{}
	if err := b.kube.List(context.Background(), l, client.InNamespace(namespace)); err != nil {
		t.Fatalf("cannot list RecordSets: %v", err)
	}
	return l.Items
}

// zone returns the fake's ground truth of the zone.
func (b *bed) zone(t *testing.T) fakeclouddns.ZoneStats {
	t.Helper()
	z, ok := b.dns.Stats().Zones[project+"/"+zoneName]
	if !ok {
		t.Fatal("the fake holds no zone " + zoneName)
	}
	return z
}

// rrdata returns the data of the record set (name, A) in the zone, and
// whether there is one.
func (b *bed) rrdata(t *testing.T, name string) ([]string, bool) {
	t.Helper()
	for _, rr := range b.zone(t).RRSets {
		if rr.Name == name && rr.Type == "A" {
			return slices.Clone(rr.Rrdatas), true
		}
	}
	return nil, false
}

// ready reports whether mg is Ready and Synced.
func ready(r *dnsv1beta1.RecordSet) bool {
	return r.GetCondition(xpv1.TypeReady).Status == "True" && r.GetCondition(xpv1.TypeSynced).Status == "True"
}

// looping reports whether r's last create met "already exists".
func looping(r *dnsv1beta1.RecordSet) bool {
	c := r.GetCondition(xpv1.TypeSynced)
	return c.Status == "False" && strings.Contains(c.Message, "alreadyExists")
}

// pendingIncomplete reports whether crossplane-runtime stopped r because
// its last create left a pending mark and no outcome.
func pendingIncomplete(r *dnsv1beta1.RecordSet) bool {
	c := r.GetCondition(xpv1.TypeSynced)
	return c.Status == "False" && strings.Contains(c.Message, "cannot determine creation result")
}

// paused reports whether r carries crossplane.io/paused.
func paused(r *dnsv1beta1.RecordSet) bool { return meta.IsPaused(r) }

// warned reports whether r has a Warning Event IntentConflict: its create
// was resolved as a conflict, paused and reported.
func (b *bed) warned(t *testing.T, r client.Object) bool {
	t.Helper()
	events := &corev1.EventList{}
	if err := b.kube.List(context.Background(), events, client.InNamespace(r.GetNamespace())); err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.InvolvedObject.UID == r.GetUID() && e.Type == corev1.EventTypeWarning && e.Reason == recovery.EventConflict {
			return true
		}
	}
	return false
}

// offGuard is the bed's guard (offguard.Guard): the provider's
// HTTP_PROXY, HTTPS_PROXY and GCE_METADATA_HOST point at it, and the test
// fails when it ends if anything came, unless it is the guard's control.
type offGuard struct {
	*offguard.Guard
	// control: the test sends traffic off the machine on purpose, to show
	// that the guard sees it; hits do not fail it.
	control bool
}

func newOffGuard(t *testing.T) *offGuard {
	og, err := offguard.Start()
	if err != nil {
		t.Fatal(err)
	}
	g := &offGuard{Guard: og}
	t.Cleanup(func() {
		og.Close()
		if got := og.Hits(); len(got) != 0 && !g.control {
			t.Errorf("the provider sent %d request(s) off the machine: %v", len(got), got)
		}
	})
	return g
}

func mustCreate(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatalf("cannot create %T %s: %v", obj, obj.GetName(), err)
	}
}
