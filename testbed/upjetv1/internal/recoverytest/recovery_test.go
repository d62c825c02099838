package recoverytest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	xpresource "github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/go-logr/zapr"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// env is a real control plane, a real fake-cloud process and a real
// journal file, shared by the subtests of one test.
type env struct {
	t        *testing.T
	cluster  *testbed.Cluster
	cloud    *fakecloudtest.Process
	journal  *journal.Journal
	recorder record.EventRecorder
	events   typedcorev1.EventInterface
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cluster := testbed.StartCluster(t)
	cloud := fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{})
	j, err := journal.Open(t.TempDir()+"/journal.db", journal.WithLogger(zapr.NewLogger(zaptest.NewLogger(t))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	cs := kubernetes.NewForConfigOrDie(cluster.Config)
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	t.Cleanup(b.Shutdown)
	return &env{
		t: t, cluster: cluster, cloud: cloud, journal: j,
		recorder: b.NewRecorder(cluster.Scheme, corev1.EventSource{Component: "intentjournal-recovery"}),
		events:   cs.CoreV1().Events("default"),
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
		Client:   e.cluster.Client,
		Kinds:    fcrecovery.Kinds(),
		Finders:  fcrecovery.Finders(e.cloud.Client),
		Deleters: fcrecovery.Deleters(e.cloud.Client),
		Recorder: e.recorder,
		Logger:   zapr.NewLogger(zaptest.NewLogger(e.t)),
		Policy:   recovery.Policy{Concurrency: 4, RetryBackoff: 20 * time.Millisecond, LookupTimeout: 5 * time.Second},
		Scope:    func(in journal.Intent) bool { return scope[in.Resource.UID] },
	}
}

// begin creates the managed resource obj as a crashed provider left it:
// external-create-pending set, no external name, and a journal intent with
// the lookup keys of the wrapper.
func (e *env) begin(ctx context.Context, obj client.Object, kind string, keys map[string]string) journal.Intent {
	e.t.Helper()
	if err := e.cluster.Client.Create(ctx, obj); err != nil {
		e.t.Fatal(err)
	}
	// The wrapper's tagger writes crossplane's tags into spec.forProvider
	// before the create.
	withSpecTags(e.t, obj, fakecloudtest.CrossplaneTags(kind, obj.GetName()))
	if err := e.cluster.Client.Update(ctx, obj); err != nil {
		e.t.Fatal(err)
	}
	lk := fakecloudtest.CrossplaneTags(kind, obj.GetName())
	for k, v := range keys {
		lk[k] = v
	}
	// What the create sends, recorded as the adapter's create path does.
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		e.t.Fatal(err)
	}
	args, err := recovery.RecordArgs(u, obj.GetGeneration())
	if err != nil {
		e.t.Fatal(err)
	}
	in, err := e.journal.Begin(ctx, journal.Intent{
		Resource:   journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: kind, Name: obj.GetName(), UID: string(obj.GetUID())},
		LookupKeys: lk,
		Owner:      journal.Owner{Replica: "provider-0", Epoch: journal.NewEpoch(time.Now().Add(-time.Minute))},
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
	if err := e.cluster.Client.Update(ctx, obj); err != nil {
		e.t.Fatal(err)
	}
	in, _ = e.journal.Get(ctx, in.Resource.UID)
	return in
}

// withSpecTags adds tags to obj's spec.forProvider.tags, keeping any tag
// the spec sets: what the adapter's Tagger writes before a create.
func withSpecTags(t testing.TB, obj client.Object, tags map[string]string) {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedStringMap(u, "spec", "forProvider", "tags")
	if spec == nil {
		spec = map[string]string{}
	}
	for k, v := range tags {
		if _, set := spec[k]; !set {
			spec[k] = v
		}
	}
	if err := unstructured.SetNestedStringMap(u, spec, "spec", "forProvider", "tags"); err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj); err != nil {
		t.Fatal(err)
	}
}

// taggedNetwork is testbed.NewNetwork with the crossplane tags on its
// spec, as a tagger writes them before the create: for a create no intent
// explains, the spec's tags are what says the create sent them, so that
// a listing by them that finds nothing proves nothing was made.
func taggedNetwork(name, cidr string) *v1alpha1.Network {
	nw := testbed.NewNetwork(name, cidr)
	nw.Spec.ForProvider.Tags = map[string]*string{}
	for k, v := range fakecloudtest.CrossplaneTags("Network", name) {
		nw.Spec.ForProvider.Tags[k] = &v
	}
	return nw
}

func (e *env) annotations(ctx context.Context, obj client.Object) map[string]string {
	e.t.Helper()
	if err := e.cluster.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
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

// eventReasons lists the reasons of the Events on the object called name.
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

// outcomes summarises a report as outcome per resource name.
func outcomes(rep *report.Report) map[string][]report.Outcome {
	out := map[string][]report.Outcome{}
	for _, e := range rep.Entries {
		out[e.Resource.Name] = append(out[e.Resource.Name], e.Outcome)
	}
	return out
}

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

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestResolvedPatchWakesReconciler: upjet providers filter their watch with
// crossplane-runtime's DesiredStateChanged, which ignores changes to
// external-create-pending. Every patch recovery makes must pass that filter,
// or a reconciler that already gave up with "cannot determine creation
// result" sleeps until the next cache resync (found by the crash matrix:
// cleared incomplete creates stayed stuck).
func TestResolvedPatchWakesReconciler(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	filter := xpresource.DesiredStateChanged()

	cleared := testbed.NewRecordSet("wake-cleared", "zone-wake")
	e.begin(ctx, cleared, "RecordSet", map[string]string{"zone": "zone-wake", "name": cleared.Name})
	incomplete := testbed.NewRecordSet("wake-incomplete", "zone-wake")
	incomplete.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: time.Now().UTC().Format(time.RFC3339)})
	if err := e.cluster.Client.Create(ctx, incomplete); err != nil {
		t.Fatal(err)
	}
	adopted := testbed.NewNetwork("wake-adopted", "10.0.0.0/16")
	e.begin(ctx, adopted, "Network", nil)
	if _, err := e.cloud.Client.CreateNetwork(ctx, fakecloud.Network{Name: adopted.Name, CIDRBlock: "10.0.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", adopted.Name)}); err != nil {
		t.Fatal(err)
	}
	conflict := testbed.NewRecordSet("wake-conflict", "zone-wake")
	if _, err := e.cloud.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "zone-wake", Name: conflict.Name, Type: "A", RRDatas: []string{"192.0.2.1"}}); err != nil {
		t.Fatal(err)
	}
	e.begin(ctx, conflict, "RecordSet", map[string]string{"zone": "zone-wake", "name": conflict.Name})

	objs := []client.Object{cleared, incomplete, adopted, conflict}
	before := map[string]client.Object{}
	uids := make([]types.UID, 0, len(objs))
	for _, o := range objs {
		if err := e.cluster.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		before[o.GetName()] = o.DeepCopyObject().(client.Object)
		uids = append(uids, o.GetUID())
	}
	opts := e.options(uids...)
	scope := opts.Scope
	// The incomplete create has no intent, so no UID in the journal's
	// scope: let it through by name.
	opts.Scope = func(in journal.Intent) bool { return scope(in) || in.Resource.Name == incomplete.Name }
	rep, err := recovery.Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, rep)
	want := map[string][]report.Outcome{
		"wake-cleared": {report.OutcomeCleared}, "wake-incomplete": {report.OutcomeCleared},
		"wake-adopted": {report.OutcomeAdopted}, "wake-conflict": {report.OutcomeConflict},
	}
	if diff := cmp.Diff(want, outcomes(rep)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	for _, o := range objs {
		after := o.DeepCopyObject().(client.Object)
		if err := e.cluster.Client.Get(ctx, client.ObjectKeyFromObject(after), after); err != nil {
			t.Fatal(err)
		}
		if !filter.Update(event.UpdateEvent{ObjectOld: before[o.GetName()], ObjectNew: after}) {
			t.Errorf("%s: recovery's patch does not pass DesiredStateChanged; its reconciler is not woken.\nbefore: %v\nafter:  %v",
				o.GetName(), before[o.GetName()].GetAnnotations(), after.GetAnnotations())
		}
		if !strings.HasPrefix(after.GetAnnotations()[recovery.AnnotationRecovered], string(want[o.GetName()][0])+" ") {
			t.Errorf("%s: %s = %q, want %q and a time", o.GetName(), recovery.AnnotationRecovered,
				after.GetAnnotations()[recovery.AnnotationRecovered], want[o.GetName()][0])
		}
	}
}
