package adapter

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// harnessConfig is what newHarness varies.
type harnessConfig struct {
	annotationOnly bool
	async          bool
	closedGate     bool // leave the recovery gate closed (no pass yet)
	recovered      bool // run a complete recovery pass, so recoveryDone holds
	objects        []client.Object
	funcs          interceptor.Funcs
	locker         CreateLocker
	owns           func(namespace, name string) bool
	scope          func(journal.Intent) bool
	beginHook      func(ctx context.Context, in journal.Intent) error
	probes         map[schema.GroupKind]KeyProbe
	kindOpts       []KindOption
	tfID           TerraformIDFunc
	finder         recovery.Finder
	journalOpts    []journal.Option
	// journalPath, when set, is the journal's file (default: one in
	// t.TempDir()).
	journalPath string
	// prepare, when set, runs on the journal's path before it is opened.
	prepare func(t *testing.T, path string)
}

// harness is one Adapter and one Kind over a real journal in t.TempDir()
// and controller-runtime's fake client, with the fake line.
type harness struct {
	a     *Adapter
	k     *Kind
	j     *journal.Journal // nil in annotation-only mode
	kube  client.Client
	cloud *cloud
}

// nothingFound is a Finder whose lookup finds nothing: an earlier create
// made nothing.
var nothingFound = recovery.FinderFn(func(context.Context, *recovery.Candidate) ([]recovery.ExternalResource, error) {
	return nil, nil
})

// newHarness builds the create path of testGVK as Setup would, with an
// open gate unless c.closedGate.
func newHarness(t *testing.T, c harnessConfig) *harness {
	t.Helper()
	kube := fake.NewClientBuilder().WithScheme(runtime.NewScheme()).WithObjects(c.objects...).WithInterceptorFuncs(c.funcs).Build()
	var j *journal.Journal
	if !c.annotationOnly {
		path := c.journalPath
		if path == "" {
			path = filepath.Join(t.TempDir(), "intents.db")
		}
		if c.prepare != nil {
			c.prepare(t, path)
		}
		var err error
		j, err = journal.Open(path, c.journalOpts...)
		if err != nil {
			t.Fatalf("journal.Open(): %v", err)
		}
		t.Cleanup(func() { _ = j.Close() })
	}
	if c.finder == nil {
		c.finder = nothingFound
	}
	owner := journal.Owner{Replica: "replica-0", Epoch: journal.NewEpoch(time.Now()), Cluster: "cluster-a"}
	ro := recovery.Options{
		Journal: j,
		Client:  kube,
		Kinds:   []schema.GroupVersionKind{testGVK},
		Finders: map[schema.GroupKind]recovery.Finder{testGVK.GroupKind(): c.finder},
		Source:  report.Source{Owner: owner},
		Scope:   c.scope,
	}
	rec := recovery.NewRecoverer(ro)
	ro.Gate, ro.Sightings = rec.Gate(), rec.Sightings()
	res, err := recovery.NewResolver(ro)
	if err != nil {
		t.Fatalf("recovery.NewResolver(): %v", err)
	}
	cl, err := NewDefaultClassifier()
	if err != nil {
		t.Fatal(err)
	}
	a := &Adapter{
		j: j, kube: kube, resolver: res, recoverer: rec, owner: owner, classifier: cl, log: zap.NewNop(), metrics: NewMetrics(),
		beginHook: c.beginHook, probes: c.probes, scope: c.scope, line: fakeLine{}, locker: c.locker, owns: c.owns,
		ownsRecheck: time.Second, timeout: DefaultReconcileTimeout,
	}
	switch {
	case c.recovered:
		// A real pass over the fake cluster: it opens the gate and, as it
		// leaves nothing unresolved, closes Done.
		if err := rec.Start(context.Background()); err != nil {
			t.Fatalf("Recoverer.Start(): %v", err)
		}
		if !a.recoveryDone() {
			t.Fatal("the recovery pass left something unresolved")
		}
	case !c.closedGate:
		rec.Gate().MarkScanned()
	}
	k := a.Kind(testGVK, c.tfID, c.kindOpts...)
	if c.async {
		k.MarkAsync()
	}
	return &harness{a: a, k: k, j: j, kube: kube, cloud: &cloud{}}
}

// create runs Kind.Create of mg with the harness's cloud as dispatch.
func (h *harness) create(ctx context.Context, mg client.Object) error {
	return h.k.Create(ctx, mg, h.cloud.dispatch())
}

// intent returns the journal's record of mg, and whether there is one.
func (h *harness) intent(t *testing.T, mg client.Object) (journal.Intent, bool) {
	t.Helper()
	in, err := h.j.Get(context.Background(), string(mg.GetUID()))
	switch {
	case errors.Is(err, journal.ErrNotFound):
		return journal.Intent{}, false
	case err != nil:
		t.Fatalf("journal Get(%s): %v", mg.GetUID(), err)
	}
	return in, true
}

// stored returns mg as the fake API server holds it.
func (h *harness) stored(t *testing.T, mg client.Object) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(testGVK)
	if err := h.kube.Get(context.Background(), client.ObjectKeyFromObject(mg), u); err != nil {
		t.Fatalf("Get(%s): %v", mg.GetName(), err)
	}
	return u
}

// state returns the state of the journal's record of uid, reading a
// closed journal from its file; "" for none or without a journal.
func (h *harness) state(t *testing.T, uid string) journal.State {
	t.Helper()
	if h.j == nil {
		return ""
	}
	j := h.j
	in, err := j.Get(context.Background(), uid)
	if errors.Is(err, journal.ErrClosed) {
		if j, err = journal.Open(h.j.Path(), journal.WithReadOnly()); err != nil {
			t.Fatalf("cannot reopen the closed journal: %v", err)
		}
		defer func() { _ = j.Close() }()
		in, err = j.Get(context.Background(), uid)
	}
	switch {
	case errors.Is(err, journal.ErrNotFound):
		return ""
	case errors.Is(err, journal.ErrCorrupt):
		return "corrupt"
	case err != nil:
		t.Fatalf("journal Get(%s): %v", uid, err)
	}
	return in.State
}

// earlierIntent begins, straight on the journal, the intent of a create
// of mg that a process before this one dispatched and never settled.
func (h *harness) earlierIntent(t *testing.T, mg client.Object) journal.Intent {
	t.Helper()
	in, err := BuildIntent(mg, IntentInput{GVK: testGVK, Owner: journal.Owner{Replica: "replica-0", Epoch: journal.NewEpoch(time.Now().Add(-time.Hour)), Cluster: "cluster-a"}}, fakeLine{})
	if err != nil {
		t.Fatalf("BuildIntent(): %v", err)
	}
	if in, err = h.j.Begin(context.Background(), in); err != nil {
		t.Fatalf("Begin(): %v", err)
	}
	return in
}

// peerAnnotation returns mg's annotations with the unsettled intent of a
// create that replica-1, alive, has dispatched.
func peerAnnotation(t *testing.T, mg client.Object) map[string]string {
	t.Helper()
	in := journal.Intent{ID: journal.NewID(), State: journal.StateDispatched, Attempt: 1,
		Owner: journal.Owner{Replica: "replica-1", Epoch: journal.NewEpoch(time.Now()), Cluster: "cluster-a"}}
	ann, err := journal.SetAnnotation(mg.GetAnnotations(), in)
	if err != nil {
		t.Fatal(err)
	}
	return ann
}

// corruptRecord returns a prepare step that leaves garbage where the
// journal keeps the record of uid.
func corruptRecord(uid string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		j, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = db.Close() }()
		if err := db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("intents")).Put([]byte(uid), []byte("\x01torn write"))
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// rejectedIntent returns a prepare step that leaves in the journal an
// intent of owner's that the cloud rejected.
func rejectedIntent(owner journal.Owner) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		ctx := context.Background()
		j, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = j.Close() }()
		in, err := BuildIntent(newRecord("www"), IntentInput{GVK: testGVK, Owner: owner}, fakeLine{})
		if err != nil {
			t.Fatal(err)
		}
		if in, err = j.Begin(ctx, in); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Settle(ctx, in.Resource.UID, in.ID, journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassRejected}); err != nil {
			t.Fatal(err)
		}
	}
}

// failPatch is an interceptor whose every Patch fails with err.
func failPatch(err error) interceptor.Funcs {
	return interceptor.Funcs{Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
		return err
	}}
}
