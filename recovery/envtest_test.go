package recovery_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/intentjournal/intentjournal/internal/shorttest"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// The envtest tests of this package run the recovery pass against a real
// kube-apiserver and etcd serving the CRDs under testdata/crds, a journal
// file and the in-memory cloud (cloud_test.go). They follow the rules of
// the project's integration tests (testbed/internal/testenv, which this
// module cannot import): under -short, the fast loop of `make test-unit`,
// they skip; otherwise a missing kube-apiserver or etcd fails them, naming
// `make tools`, so a green `make test` means they ran.

// envAssets is the variable naming the directory that holds kube-apiserver
// and etcd, as controller-runtime's envtest reads it. `make test` sets it
// from hack/tools.sh env.
const envAssets = "KUBEBUILDER_ASSETS"

// toolsHint says how to provide the binaries.
const toolsHint = "run `make tools` (hack/tools.sh) to build them, then `eval $(bash hack/tools.sh env); export KUBEBUILDER_ASSETS`"

// controlPlaneStartTimeout bounds each of etcd and kube-apiserver start-up:
// envtest's default of 20 s is too tight on a 2-core machine that is also
// compiling. KUBEBUILDER_CONTROLPLANE_START_TIMEOUT still wins when set.
const controlPlaneStartTimeout = 90 * time.Second

// quietControllerRuntime gives controller-runtime, which envtest and the
// manager log through, a warn-level logger on stderr. Without one it prints
// a stack trace complaining that SetLogger was never called.
var quietControllerRuntime = sync.OnceFunc(func() {
	ctrllog.SetLogger(zapr.NewLogger(zap.New(zapcore.NewCore(
		zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()),
		zapcore.Lock(os.Stderr), zapcore.WarnLevel))))
})

// startAPIServer starts etcd and kube-apiserver from KUBEBUILDER_ASSETS
// with the CRDs under testdata/crds installed, and returns an admin config.
// A t.Cleanup stops them. Under -short it skips t; otherwise it fails t
// when the binaries are missing or the control plane does not start.
func startAPIServer(t testing.TB) *rest.Config {
	t.Helper()
	shorttest.SkipShort(t, "kube-apiserver and etcd (make tools)")
	assets := os.Getenv(envAssets)
	if assets == "" {
		t.Fatalf("%s is unset: these tests need kube-apiserver and etcd; %s", envAssets, toolsHint)
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		fi, err := os.Stat(filepath.Join(assets, bin))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			t.Fatalf("%s=%s holds no executable %s (%v); %s", envAssets, assets, bin, err, toolsHint)
		}
	}
	quietControllerRuntime()
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join("testdata", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		env.ControlPlaneStartTimeout = controlPlaneStartTimeout
	}
	cfg, err := env.Start()
	if err != nil {
		// Start can fail after etcd or the API server is up (while
		// installing the CRDs): stop whatever did start.
		if stopErr := env.Stop(); stopErr != nil {
			t.Logf("cannot stop a partly started envtest: %v", stopErr)
		}
		t.Fatalf("cannot start envtest from %s: %v", assets, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("cannot stop envtest: %v", err)
		}
	})
	return cfg
}

// env is a real control plane, a journal file and the in-memory cloud,
// shared by the subtests of one test.
type env struct {
	t        *testing.T
	config   *rest.Config
	scheme   *runtime.Scheme
	client   client.Client
	cloud    *memCloud
	journal  *journal.Journal
	recorder record.EventRecorder
	events   typedcorev1.EventInterface
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cfg := startAPIServer(t)
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal.db"), journal.WithLogger(zapr.NewLogger(zaptest.NewLogger(t))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	cs := kubernetes.NewForConfigOrDie(cfg)
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	t.Cleanup(b.Shutdown)
	return &env{
		t: t, config: cfg, scheme: s, client: c, cloud: newMemCloud(), journal: j,
		recorder: b.NewRecorder(s, corev1.EventSource{Component: "intentjournal-recovery"}),
		events:   cs.CoreV1().Events(metav1.NamespaceDefault),
	}
}

// options returns recovery options scoped to the given UIDs.
func (e *env) options(uids ...types.UID) recovery.Options {
	scope := map[string]bool{}
	for _, u := range uids {
		scope[string(u)] = true
	}
	return recovery.Options{
		Journal:  e.journal,
		Client:   e.client,
		Kinds:    memKinds(),
		Finders:  e.cloud.finders(),
		Deleters: e.cloud.deleters(),
		Recorder: e.recorder,
		Logger:   zapr.NewLogger(zaptest.NewLogger(e.t)),
		Policy:   recovery.Policy{Concurrency: 4, RetryBackoff: 20 * time.Millisecond, LookupTimeout: 5 * time.Second},
		Scope:    func(in journal.Intent) bool { return scope[in.Resource.UID] },
	}
}

// managed returns a managed resource of kind called name, through
// providerConfigName, whose spec.forProvider is forProvider.
func managed(kind, name string, forProvider map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"providerConfigRef": map[string]any{"name": providerConfigName},
			"forProvider":       forProvider,
		},
	}}
	u.SetGroupVersionKind(schemaGK(kind).WithVersion(memVersion))
	u.SetName(name)
	return u
}

// newRecordSet returns a RecordSet called name for an A record of the same
// name in zone.
func newRecordSet(name, zone string) *unstructured.Unstructured {
	return managed("RecordSet", name, map[string]any{
		"zone": zone, "name": name, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.10"},
	})
}

// newNetwork returns a Network called name with the same display name.
func newNetwork(name, cidr string) *unstructured.Unstructured {
	return managed("Network", name, map[string]any{"name": name, "cidrBlock": cidr})
}

// setSpecTags sets obj's spec.forProvider.tags to tags.
func setSpecTags(t testing.TB, obj *unstructured.Unstructured, tags map[string]string) {
	t.Helper()
	if err := unstructured.SetNestedStringMap(obj.Object, tags, "spec", "forProvider", "tags"); err != nil {
		t.Fatal(err)
	}
}

// schemaGK is the GroupKind of the in-memory cloud's kind.
func schemaGK(kind string) schema.GroupKind {
	return schema.GroupKind{Group: memGroup, Kind: kind}
}

// uidTags are the tags a create of the managed resource uid sends when the
// adapter's Tagger wrote its tags: crossplane's plus the UID tag.
func uidTags(kind, name string, uid types.UID) map[string]string {
	t := crossplaneTags(kind, name)
	t[recovery.TagUID] = string(uid)
	return t
}

// begin creates the managed resource obj as a crashed provider left it:
// external-create-pending set, no external name, and a journal intent with
// the lookup keys of the wrapper.
func (e *env) begin(ctx context.Context, obj *unstructured.Unstructured, kind string, keys map[string]string) journal.Intent {
	e.t.Helper()
	return e.beginWith(ctx, obj, kind, keys, false)
}

// beginUIDTagged is begin for a create that sent the UID tag, as one whose
// tags the adapter's Tagger wrote does.
func (e *env) beginUIDTagged(ctx context.Context, obj *unstructured.Unstructured, kind string, keys map[string]string) journal.Intent {
	e.t.Helper()
	return e.beginWith(ctx, obj, kind, keys, true)
}

func (e *env) beginWith(ctx context.Context, obj *unstructured.Unstructured, kind string, keys map[string]string, uidTag bool) journal.Intent {
	e.t.Helper()
	if err := e.client.Create(ctx, obj); err != nil {
		e.t.Fatal(err)
	}
	// The wrapper's tagger writes the tags into spec.forProvider before the
	// create: crossplane's, and with uidTag the UID tag.
	withSpecTags(e.t, obj, crossplaneTags(kind, obj.GetName()), uidTag)
	if err := e.client.Update(ctx, obj); err != nil {
		e.t.Fatal(err)
	}
	lk := crossplaneTags(kind, obj.GetName())
	for k, v := range keys {
		lk[k] = v
	}
	// What the create sends, recorded as the adapter's create path does.
	args, err := recovery.RecordArgs(obj.Object, obj.GetGeneration())
	if err != nil {
		e.t.Fatal(err)
	}
	in, err := e.journal.Begin(ctx, journal.Intent{
		Resource:   journal.ResourceRef{APIVersion: memGroup + "/" + memVersion, Kind: kind, Name: obj.GetName(), UID: string(obj.GetUID())},
		LookupKeys: lk,
		Owner:      journal.Owner{Replica: "provider-0", Epoch: journal.NewEpoch(time.Now().Add(-time.Minute))},
		UIDTag:     uidTag,
		// The wrapper's tagger wrote the crossplane tags before the
		// create, so it sent them: a listing that finds nothing proves
		// it made nothing.
		TaggedSpec: true,
		Args:       args,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.journal.MarkDispatched(ctx, in.Resource.UID, in.ID); err != nil {
		e.t.Fatal(err)
	}
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[recovery.AnnotationExternalCreatePending] = time.Now().Format(time.RFC3339)
	obj.SetAnnotations(a)
	if err := e.client.Update(ctx, obj); err != nil {
		e.t.Fatal(err)
	}
	in, _ = e.journal.Get(ctx, in.Resource.UID)
	return in
}

// withSpecTags adds tags, and with uidTag the UID tag of obj, to obj's
// spec.forProvider.tags, keeping any tag the spec sets: what the adapter's
// Tagger writes before a create.
func withSpecTags(t testing.TB, obj *unstructured.Unstructured, tags map[string]string, uidTag bool) {
	t.Helper()
	spec, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "forProvider", "tags")
	if spec == nil {
		spec = map[string]string{}
	}
	for k, v := range tags {
		if _, set := spec[k]; !set {
			spec[k] = v
		}
	}
	if uidTag {
		spec[recovery.TagUID] = string(obj.GetUID())
	}
	setSpecTags(t, obj, spec)
}

func (e *env) annotations(ctx context.Context, obj client.Object) map[string]string {
	e.t.Helper()
	if err := e.client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		e.t.Fatal(err)
	}
	return obj.GetAnnotations()
}

func (e *env) state(ctx context.Context, uid types.UID) journal.State {
	e.t.Helper()
	in, err := e.journal.Get(ctx, string(uid))
	if err != nil {
		e.t.Fatal(err)
	}
	return in.State
}

// eventReasons lists the reasons of the Events on the object called name,
// waiting up to 5 s for the first: Events are posted asynchronously.
func (e *env) eventReasons(ctx context.Context, name string) []string {
	var out []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		list, err := e.events.List(ctx, metav1.ListOptions{})
		if err == nil {
			out = out[:0]
			for _, ev := range list.Items {
				if ev.InvolvedObject.Name == name {
					out = append(out, ev.Reason)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return out
}

// hasEvent waits up to 5 s for an Event with reason on the resource name:
// Events are posted asynchronously, one after another.
func (e *env) hasEvent(ctx context.Context, name, reason string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := e.eventReasons(ctx, name)
		if slices.Contains(r, reason) || time.Now().After(deadline) {
			return slices.Contains(r, reason)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// outcomes summarises a report as outcome per resource name.
func outcomes(rep *report.Report) map[string][]report.Outcome {
	out := map[string][]report.Outcome{}
	for _, e := range rep.Entries {
		out[e.Resource.Name] = append(out[e.Resource.Name], e.Outcome)
	}
	return out
}

// validate fails t when rep does not validate against the report schema.
func validate(t *testing.T, rep *report.Report) {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(b); err != nil {
		t.Errorf("the report does not validate against its schema: %v", err)
	}
}
