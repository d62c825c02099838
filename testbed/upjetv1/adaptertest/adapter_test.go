package upjetv1_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/logging"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"github.com/crossplane/upjet/pkg/terraform"
	tferrors "github.com/crossplane/upjet/pkg/terraform/errors"
	"github.com/google/go-cmp/cmp"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// inner stands in for upjet's async external client: Create only counts
// dispatches, as upjet's returns before its goroutine runs; the test then
// plays the goroutine's part by setting the tracker's state and calling
// the callback.
type inner struct {
	creates atomic.Int32
	exists  atomic.Bool
	failed  error
}

func (c *inner) client() managed.ExternalClient {
	return managed.ExternalClientFns{
		ObserveFn: func(context.Context, resource.Managed) (managed.ExternalObservation, error) {
			return managed.ExternalObservation{ResourceExists: c.exists.Load(), ResourceUpToDate: true}, nil
		},
		CreateFn: func(context.Context, resource.Managed) (managed.ExternalCreation, error) {
			c.creates.Add(1)
			return managed.ExternalCreation{}, c.failed
		},
		DeleteFn: func(context.Context, resource.Managed) (managed.ExternalDelete, error) {
			return managed.ExternalDelete{}, nil
		},
		DisconnectFn: func(context.Context) error { return nil },
	}
}

// callbacks records which create callbacks upjet's provider received.
type callbacks struct {
	mu    sync.Mutex
	calls []string
}

func (c *callbacks) fn(op, name string) terraform.CallbackFn {
	return func(err error, _ context.Context) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.calls = append(c.calls, op+"/"+name)
		return nil
	}
}
func (c *callbacks) Create(name string) terraform.CallbackFn  { return c.fn("create", name) }
func (c *callbacks) Update(name string) terraform.CallbackFn  { return c.fn("update", name) }
func (c *callbacks) Destroy(name string) terraform.CallbackFn { return c.fn("destroy", name) }

type harness struct {
	cl      *testbed.Cluster
	cloud   *fakecloud.Client
	a       *upjetv1.Adapter
	store   *tjcontroller.OperationTrackerStore
	conn    managed.ExternalConnecter
	cb      tjcontroller.CallbackProvider
	inner   *inner
	upjet   *callbacks
	failing atomic.Bool
	reg     *prometheus.Registry // the adapter's metrics
}

// newHarness runs the adapter against envtest and the in-process fake
// cloud, with a started manager (its cache backs the callback path) and a
// finished recovery pass.
func newHarness(t *testing.T, opts ...func(*upjetv1.Config)) *harness {
	t.Helper()
	h := &harness{cl: testbed.StartCluster(t), inner: &inner{}, upjet: &callbacks{}}
	_, h.cloud = fakecloudtest.Serve(t)
	mgr := newManager(t, h.cl)
	h.reg = prometheus.NewRegistry()
	cfg := upjetv1.Config{
		Registry:    h.reg,
		JournalPath: filepath.Join(t.TempDir(), "intents.db"),
		Replica:     "test",
		Kinds:       fcrecovery.Kinds(),
		Finders:     fcrecovery.Finders(h.cloud),
		BeginHook: func(context.Context, journal.Intent) error {
			if h.failing.Load() {
				return errors.New("injected Begin failure")
			}
			return nil
		},
	}
	for _, o := range opts {
		o(&cfg)
	}
	var err error
	h.a, err = upjetv1.Setup(mgr, cfg)
	if err != nil {
		t.Fatalf("upjetv1.Setup(): %v", err)
	}
	startManager(t, mgr)
	select {
	case <-h.a.Recoverer().Done():
	case <-time.After(time.Minute):
		t.Fatalf("the recovery pass did not finish")
	}
	h.store = tjcontroller.NewOperationStore(logging.NewNopLogger())
	// The kind as the provider configures it (natural key zone and name),
	// settling with the tracked ID as it is, on a store of the harness's.
	p, err := config.GetProvider()
	if err != nil {
		t.Fatal(err)
	}
	upjetv1.Configure(p.Resources[config.RecordSetResource], upjetv1.ExternalNameFromID(func(id string) (string, error) { return id, nil }))
	k, err := upjetv1.KindFor(mgr, tjcontroller.Options{Provider: p, OperationTrackerStore: h.store}, config.RecordSetResource, v1alpha1.RecordSet_GroupVersionKind)
	if err != nil {
		t.Fatal(err)
	}
	h.cb = k.WrapCallbacks(h.upjet)
	h.conn = k.WrapConnecter(managed.ExternalConnectorFn(func(context.Context, resource.Managed) (managed.ExternalClient, error) {
		return h.inner.client(), nil
	}))
	return h
}

// newMR creates a RecordSet MR and returns it as read back.
func (h *harness) newMR(t *testing.T, name string) *v1alpha1.RecordSet {
	t.Helper()
	mr := testbed.NewRecordSet(name, "example-com")
	// What crossplane-runtime's initializer (the tagger) writes before the
	// create this harness calls directly.
	mr.Spec.ForProvider.Tags = map[string]*string{}
	for k, v := range map[string]string{"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": name, "crossplane-providerconfig": "default"} {
		mr.Spec.ForProvider.Tags[k] = &v
	}
	testbed.Create(t, h.cl, mr)
	return h.get(t, name)
}

func (h *harness) get(t *testing.T, name string) *v1alpha1.RecordSet {
	t.Helper()
	out := &v1alpha1.RecordSet{}
	if err := h.cl.Client.Get(context.Background(), client.ObjectKey{Name: name}, out); err != nil {
		t.Fatalf("cannot get %s: %v", name, err)
	}
	return out
}

func (h *harness) create(t *testing.T, mg resource.Managed) error {
	t.Helper()
	ec, err := h.conn.Connect(context.Background(), mg)
	if err != nil {
		t.Fatalf("Connect(): %v", err)
	}
	_, err = ec.Create(context.Background(), mg)
	return err
}

func (h *harness) intent(t *testing.T, uid string) journal.Intent {
	t.Helper()
	in, err := h.a.Journal().Get(context.Background(), uid)
	if err != nil {
		t.Fatalf("journal Get(%s): %v", uid, err)
	}
	return in
}

// TestCreatePath drives the wrapped create path step by step against
// envtest, the fake cloud and a real journal.
func TestCreatePath(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()

	t.Run("BeginFailureDispatchesNothing", func(t *testing.T) {
		mg := h.newMR(t, "begin-fails")
		h.failing.Store(true)
		defer h.failing.Store(false)
		before := h.inner.creates.Load()
		err := h.create(t, mg)
		if err == nil || !strings.Contains(err.Error(), "cannot record the create intent") {
			t.Errorf("Create() with a failing Begin: want a Begin error, got %v", err)
		}
		if got := h.inner.creates.Load() - before; got != 0 {
			t.Errorf("a failed Begin must dispatch nothing; inner Create ran %d times", got)
		}
		if _, err := h.a.Journal().Get(ctx, string(mg.GetUID())); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("a failed Begin must leave no intent; journal Get: %v", err)
		}
	})

	t.Run("SucceededCallbackBindsAtOnce", func(t *testing.T) {
		mg := h.newMR(t, "succeeds")
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		in, has, err := journal.AnnotationIntent(mg.GetAnnotations())
		if !has || err != nil || in.State != journal.StatePending {
			t.Fatalf("Create() should annotate a pending intent; got %+v, %t, %v", in, has, err)
		}
		// upjet's goroutine: the create made rs-123 and the tracker holds it.
		h.store.Tracker(mg).SetTfState(&tfsdk.InstanceState{ID: "rs-123"})
		if err := h.cb.Create(mg.GetName())(nil, ctx); err != nil {
			t.Fatalf("callback: %v", err)
		}
		got := h.get(t, mg.GetName())
		cases := map[string]struct {
			reason    string
			got, want any
		}{
			"ExternalName": {reason: "The callback persists the external name at once.", got: meta.GetExternalName(got), want: "rs-123"},
			"NoAnnotation": {reason: "The settled intent's annotation is dropped.", got: got.GetAnnotations()[journal.AnnotationKey], want: ""},
			"Journal": {reason: "The journal says settled with the name.",
				got:  []string{string(h.intent(t, string(mg.GetUID())).State), h.intent(t, string(mg.GetUID())).Outcome.ExternalName},
				want: []string{string(journal.StateSettled), "rs-123"}},
			"UpjetCallback": {reason: "upjet's own callback still runs.", got: h.upjet.calls[len(h.upjet.calls)-1], want: "create/succeeds"},
		}
		for name, tc := range cases {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s: %s\n-want, +got:\n%s", name, tc.reason, diff)
			}
		}
	})

	t.Run("SucceededCallbackCompletesALostCreateMark", func(t *testing.T) {
		// crossplane-runtime marked the create pending before Create, and
		// its update recording the success lost every retry to conflicts:
		// only external-create-pending is on the resource.
		mg := h.newMR(t, "mark-lost")
		meta.SetExternalCreatePending(mg, time.Now())
		if err := h.cl.Client.Update(ctx, mg); err != nil {
			t.Fatalf("Update(): %v", err)
		}
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		h.store.Tracker(mg).SetTfState(&tfsdk.InstanceState{ID: "rs-456"})
		if err := h.cb.Create(mg.GetName())(nil, ctx); err != nil {
			t.Fatalf("callback: %v", err)
		}
		got := h.get(t, mg.GetName())
		if meta.ExternalCreateIncomplete(got) {
			t.Errorf("the resource is left at \"cannot determine creation result\": annotations %v", got.GetAnnotations())
		}
		if diff := cmp.Diff("rs-456", meta.GetExternalName(got)); diff != "" {
			t.Errorf("external name; -want, +got:\n%s", diff)
		}
	})

	t.Run("ForeignConflictIsPaused", func(t *testing.T) {
		if _, err := h.cloud.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "example-com", Name: "taken", Type: "A", TTL: 300, RRDatas: []string{"192.0.2.1"}}); err != nil {
			t.Fatalf("CreateRecordSet(): %v", err)
		}
		mg := h.newMR(t, "taken")
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		err := errors.New(`failed to create the resource: Error creating RecordSet: recordset "taken" already exists in zone "example-com"`)
		_ = h.cb.Create(mg.GetName())(err, ctx)
		got := h.get(t, mg.GetName())
		if diff := cmp.Diff("true", got.GetAnnotations()[recovery.AnnotationPaused]); diff != "" {
			t.Errorf("a foreign same-name resource pauses the MR; -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("", meta.GetExternalName(got)); diff != "" {
			t.Errorf("a foreign same-name resource is never adopted; -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(journal.StateReported, h.intent(t, string(mg.GetUID())).State); diff != "" {
			t.Errorf("the journal reports the conflict; -want, +got:\n%s", diff)
		}
	})

	t.Run("OwnConflictIsAdopted", func(t *testing.T) {
		mg := h.newMR(t, "ours")
		// An earlier attempt made it, with the crossplane tags.
		rs, err := h.cloud.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "example-com", Name: "ours", Type: "A", TTL: 300, RRDatas: []string{"192.0.2.10"},
			Tags: map[string]string{"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": "ours", "crossplane-providerconfig": "default"}})
		if err != nil {
			t.Fatalf("CreateRecordSet(): %v", err)
		}
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		_ = h.cb.Create(mg.GetName())(errors.New(`recordset "ours" already exists in zone "example-com"`), ctx)
		got := h.get(t, mg.GetName())
		if diff := cmp.Diff(rs.ID, meta.GetExternalName(got)); diff != "" {
			t.Errorf("a tagged same-name resource is adopted; -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(journal.StateAdopted, h.intent(t, string(mg.GetUID())).State); diff != "" {
			t.Errorf("the journal says adopted; -want, +got:\n%s", diff)
		}
	})

	t.Run("LookAlikeWithOtherArgumentsIsNotAdopted", func(t *testing.T) {
		// The create met "already exists": someone made the record with
		// this MR's crossplane tags within the clock-skew allowance, and
		// another answer and TTL. Adopting it would let the provider
		// rewrite it (#29): the MR is paused, the record untouched.
		mg := h.newMR(t, "theirs-differ")
		rs, err := h.cloud.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "example-com", Name: "theirs-differ", Type: "A", TTL: 600, RRDatas: []string{"203.0.113.66"},
			Tags: map[string]string{"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": "theirs-differ", "crossplane-providerconfig": "default"}})
		if err != nil {
			t.Fatalf("CreateRecordSet(): %v", err)
		}
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		_ = h.cb.Create(mg.GetName())(errors.New(`recordset "theirs-differ" already exists in zone "example-com"`), ctx)
		got := h.get(t, mg.GetName())
		if n := meta.GetExternalName(got); n != "" {
			t.Errorf("a record with other arguments was adopted as %q", n)
		}
		if !meta.IsPaused(got) {
			t.Error("the MR must be paused, or its reconciler would rewrite the record")
		}
		if diff := cmp.Diff(journal.StateReported, h.intent(t, string(mg.GetUID())).State); diff != "" {
			t.Errorf("the journal says reported; -want, +got:\n%s", diff)
		}
		if after, err := h.cloud.GetRecordSet(ctx, rs.ID); err != nil || after.TTL != 600 || !cmp.Equal(after.RRDatas, []string{"203.0.113.66"}) {
			t.Errorf("their record: %+v, %v; want it untouched", after, err)
		}
	})

	t.Run("EarlierProcessIntentIsResolvedNotRepeated", func(t *testing.T) {
		mg := h.newMR(t, "earlier")
		in, err := upjetv1.BuildIntent(mg, upjetv1.IntentInput{GVK: v1alpha1.RecordSet_GroupVersionKind,
			Owner: journal.Owner{Replica: "test", Epoch: journal.NewEpoch(time.Now().Add(-time.Hour))}})
		if err != nil {
			t.Fatalf("BuildIntent(): %v", err)
		}
		if _, err := h.a.Journal().Begin(ctx, in); err != nil {
			t.Fatalf("Begin(): %v", err)
		}
		before := h.inner.creates.Load()
		if err := h.create(t, mg); err == nil || !strings.Contains(err.Error(), "resolved as cleared") {
			t.Errorf("Create() over an earlier process's intent: want it resolved (cleared) instead, got %v", err)
		}
		if got := h.inner.creates.Load() - before; got != 0 {
			t.Errorf("an earlier intent must be resolved, not created over; inner Create ran %d times", got)
		}
		if diff := cmp.Diff(journal.StateCleared, h.intent(t, string(mg.GetUID())).State); diff != "" {
			t.Errorf("nothing was found, so the earlier intent is cleared; -want, +got:\n%s", diff)
		}
		// The next attempt creates.
		mg = h.get(t, mg.GetName())
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create() after clearing: %v", err)
		}
		if diff := cmp.Diff(2, h.intent(t, string(mg.GetUID())).Attempt); diff != "" {
			t.Errorf("the second create is attempt 2; -want, +got:\n%s", diff)
		}
	})

	t.Run("RejectedCreateRunsAgain", func(t *testing.T) {
		mg := h.newMR(t, "rejected")
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		_ = h.cb.Create(mg.GetName())(errors.New("InvalidParameterValue: ttl out of range (400)"), ctx)
		if diff := cmp.Diff(journal.ErrorClassRejected, h.intent(t, string(mg.GetUID())).Outcome.ErrorClass); diff != "" {
			t.Errorf("a 400 is classified rejected; -want, +got:\n%s", diff)
		}
		before := h.inner.creates.Load()
		if err := h.create(t, h.get(t, mg.GetName())); err != nil {
			t.Fatalf("Create() after a rejection: %v", err)
		}
		if got := h.inner.creates.Load() - before; got != 1 {
			t.Errorf("a create the cloud rejected runs again; inner Create ran %d times", got)
		}
	})

	t.Run("ObserveSettlesAndBinds", func(t *testing.T) {
		mg := h.newMR(t, "observed")
		in, err := upjetv1.BuildIntent(mg, upjetv1.IntentInput{GVK: v1alpha1.RecordSet_GroupVersionKind, Owner: h.a.Owner()})
		if err != nil {
			t.Fatalf("BuildIntent(): %v", err)
		}
		if in, err = h.a.Journal().Begin(ctx, in); err != nil {
			t.Fatalf("Begin(): %v", err)
		}
		ann, err := journal.SetAnnotation(mg.GetAnnotations(), in)
		if err != nil {
			t.Fatalf("SetAnnotation(): %v", err)
		}
		mg.SetAnnotations(ann)
		meta.SetExternalName(mg, "rs-observed")
		if err := h.cl.Client.Update(ctx, mg); err != nil {
			t.Fatalf("Update(): %v", err)
		}
		h.inner.exists.Store(true)
		defer h.inner.exists.Store(false)
		ec, err := h.conn.Connect(ctx, mg)
		if err != nil {
			t.Fatalf("Connect(): %v", err)
		}
		if _, err := ec.Observe(ctx, mg); err != nil {
			t.Fatalf("Observe(): %v", err)
		}
		got := h.get(t, mg.GetName())
		if diff := cmp.Diff("", got.GetAnnotations()[journal.AnnotationKey]); diff != "" {
			t.Errorf("Observe drops the settled intent's annotation; -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(got.GetResourceVersion(), mg.GetResourceVersion()); diff != "" {
			t.Errorf("Observe keeps the in-memory object's resourceVersion current; -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(journal.StateSettled, h.intent(t, string(mg.GetUID())).State); diff != "" {
			t.Errorf("Observe settles the intent; -want, +got:\n%s", diff)
		}
	})

	t.Run("UpjetErrorsFromCreate", func(t *testing.T) {
		cases := map[string]struct {
			reason string
			err    error
			want   journal.State
		}{
			"Refused": {reason: "upjet refused to start: no callback will come, so the intent is settled at once.",
				err: upjetRefusal(t), want: journal.StateFailed},
			"PreviousError": {reason: "upjet returns the previous operation's error although it started this one: the callback settles it.",
				err: tferrors.NewAsyncCreateFailed(errors.New("earlier failure")), want: journal.StatePending},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				mg := h.newMR(t, strings.ToLower(name))
				h.inner.failed = tc.err
				defer func() { h.inner.failed = nil }()
				if err := h.create(t, mg); err == nil {
					t.Fatalf("Create(): want the inner error")
				}
				if diff := cmp.Diff(tc.want, h.intent(t, string(mg.GetUID())).State); diff != "" {
					t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
				}
			})
		}
	})

	t.Run("Metrics", func(t *testing.T) {
		mfs, err := h.reg.Gather()
		if err != nil {
			t.Fatalf("Gather(): %v", err)
		}
		// The open-intents gauge is the journal's count of unsettled
		// intents, less the two intents the subtests above began straight
		// on the journal, after Setup counted, as an earlier process's
		// (EarlierProcessIntentIsResolvedNotRepeated and
		// ObserveSettlesAndBinds): the adapter settled both, so the gauge
		// counted them down but never up. A restarted provider counts
		// such intents at Setup.
		const beganBehindTheAdapter = 2
		unsettled := -beganBehindTheAdapter
		for _, err := range h.a.Journal().Unsettled(ctx) {
			if err == nil {
				unsettled++
			}
		}
		got := map[string]bool{}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				switch {
				case m.GetCounter().GetValue() > 0, m.GetHistogram().GetSampleCount() > 0:
					got[mf.GetName()] = true
				case mf.GetName() == "intentjournal_open_intents":
					if v := m.GetGauge().GetValue(); v != float64(unsettled) {
						t.Errorf("intentjournal_open_intents = %v, want %d, the journal's unsettled intents less those begun behind the adapter", v, unsettled)
					}
					got[mf.GetName()] = true
				}
			}
		}
		want := map[string]bool{
			"intentjournal_intents_begun_total":    true,
			"intentjournal_intents_settled_total":  true,
			"intentjournal_open_intents":           true,
			"intentjournal_journal_commit_seconds": true,
		}
		for name := range want {
			if !got[name] {
				t.Errorf("metric %s is not registered in controller-runtime's registry, or never moved", name)
			}
		}
	})
}
