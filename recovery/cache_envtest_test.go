package recovery_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// requestLog counts a client's requests to the managed Networks, by verb
// (the HTTP method, LIST for a GET of the collection) and status.
type requestLog struct {
	mu  sync.Mutex
	got map[string]int // "GET 200", "PATCH 409"
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTrip(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if strings.Contains(req.URL.Path, "/networks") && resp != nil {
			verb := req.Method
			if verb == http.MethodGet && strings.HasSuffix(req.URL.Path, "/networks") {
				verb = "LIST"
			}
			l.mu.Lock()
			l.got[verb+" "+http.StatusText(resp.StatusCode)]++
			l.mu.Unlock()
		}
		return resp, err
	})
}

func (l *requestLog) take() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.got
	l.got = map[string]int{}
	return got
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// snapshotReader is a cache that lags the API server by a known amount:
// it serves the copies taken when snapshot was called. A controller-
// runtime cache lags by an unknown amount; this one makes the stale
// cases deterministic.
type snapshotReader struct {
	client.Reader
	copies map[types.NamespacedName]*unstructured.Unstructured
}

func (s snapshotReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	c, ok := s.copies[key]
	if !ok {
		return &notCached{key}
	}
	c.DeepCopyInto(obj.(*unstructured.Unstructured))
	return nil
}

type notCached struct{ key client.ObjectKey }

func (n *notCached) Error() string { return n.key.String() + " is not in the snapshot" }

// TestPassReadsFromCache: with Options.Reader, a pass reads each journal
// candidate's managed resource from the cache instead of the API server,
// so it makes one request per intent (its PATCH) where it made two. A
// decision made from a cached copy is carried out only through a patch
// guarded by that copy's resourceVersion. When the copy is stale, one live
// read follows: a change to status conditions alone (what a controller
// writes on every reconcile) keeps the decision; any other change, and a
// resource replaced under the same name, makes the pass decide again from
// the live resource. Real parts: envtest, a controller-runtime cache, the
// in-memory cloud and a journal file; the lagging cache of the stale
// cases is a snapshot, to lag by a known change.
func TestPassReadsFromCache(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	reqs := &requestLog{got: map[string]int{}}
	cfg := rest.CopyConfig(e.config)
	cfg.WrapTransport = reqs.wrap
	counted, err := client.New(cfg, client.Options{Scheme: e.scheme})
	if err != nil {
		t.Fatal(err)
	}
	// begin makes n Networks whose creates made a UID-tagged cloud
	// network each, and returns them with the IDs made.
	begin := func(t *testing.T, prefix string, n int) ([]*unstructured.Unstructured, []string) {
		var nws []*unstructured.Unstructured
		var ids []string
		for i := range n {
			name := prefix + "-" + string(rune('a'+i))
			nw := newNetwork(name, "10.9.0.0/16")
			e.beginUIDTagged(ctx, nw, "Network", nil)
			made := e.cloud.createNetwork(cloudNetwork{Name: name, CIDRBlock: "10.9.0.0/16", Tags: uidTags("Network", name, nw.GetUID())})
			nws, ids = append(nws, nw), append(ids, made.ID)
		}
		return nws, ids
	}
	options := func(r client.Reader, nws []*unstructured.Unstructured) recovery.Options {
		var uids []types.UID
		for _, nw := range nws {
			uids = append(uids, nw.GetUID())
		}
		o := e.options(uids...)
		o.Client, o.Reader = counted, r
		return o
	}
	snapshot := func(t *testing.T, nws []*unstructured.Unstructured) snapshotReader {
		s := snapshotReader{copies: map[types.NamespacedName]*unstructured.Unstructured{}}
		for _, nw := range nws {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gkNetwork.WithVersion(memVersion))
			if err := e.client.Get(ctx, client.ObjectKeyFromObject(nw), u); err != nil {
				t.Fatal(err)
			}
			s.copies[client.ObjectKeyFromObject(nw)] = u
		}
		return s
	}
	externalName := func(t *testing.T, nw *unstructured.Unstructured) string {
		return e.annotations(ctx, nw)[recovery.AnnotationExternalName]
	}
	type facts struct {
		Outcomes              map[string][]report.Outcome
		Reads, Cache, Rereads int
		Requests              map[string]int
	}
	run := func(t *testing.T, o recovery.Options) (*report.Report, facts) {
		reqs.take()
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		tm := rep.Summary.Timings
		return rep, facts{Outcomes: outcomes(rep), Reads: tm.ReadCount, Cache: tm.CacheReadCount, Rereads: tm.RereadCount, Requests: reqs.take()}
	}

	t.Run("FromTheManagersCache", func(t *testing.T) {
		nws, ids := begin(t, "cached", 4)
		c, err := cache.New(e.config, cache.Options{Scheme: e.scheme})
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { _ = c.Start(cctx) }()
		if !c.WaitForCacheSync(cctx) {
			t.Fatal("the cache did not sync")
		}
		_, got := run(t, options(c, nws))
		want := facts{
			Outcomes: map[string][]report.Outcome{"cached-a": {report.OutcomeAdopted}, "cached-b": {report.OutcomeAdopted},
				"cached-c": {report.OutcomeAdopted}, "cached-d": {report.OutcomeAdopted}},
			Reads: 4, Cache: 4,
			// One request per intent, its PATCH, and the pass's one list
			// of the kind (the annotation scan). No GET.
			Requests: map[string]int{"LIST OK": 1, "PATCH OK": 4},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
		for i, nw := range nws {
			if got := externalName(t, nw); got != ids[i] {
				t.Errorf("%s: external-name %q, want %q", nw.GetName(), got, ids[i])
			}
		}
	})

	t.Run("WithoutACacheReadsLive", func(t *testing.T) {
		nws, _ := begin(t, "live", 2)
		_, got := run(t, options(nil, nws))
		want := facts{
			Outcomes: map[string][]report.Outcome{"live-a": {report.OutcomeAdopted}, "live-b": {report.OutcomeAdopted}},
			Reads:    2,
			Requests: map[string]int{"LIST OK": 1, "GET OK": 2, "PATCH OK": 2},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
	})

	t.Run("CacheMissReadsLive", func(t *testing.T) {
		nws, _ := begin(t, "miss", 1)
		_, got := run(t, options(snapshotReader{}, nws))
		want := facts{
			Outcomes: map[string][]report.Outcome{"miss-a": {report.OutcomeAdopted}},
			Reads:    1,
			Requests: map[string]int{"LIST OK": 1, "GET OK": 1, "PATCH OK": 1},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
	})

	t.Run("StaleConditionsKeepTheDecision", func(t *testing.T) {
		nws, ids := begin(t, "conditions", 1)
		snap := snapshot(t, nws)
		// A controller's reconcile writes a status condition after the
		// cache's copy was taken.
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(snap.copies[client.ObjectKeyFromObject(nws[0])].GroupVersionKind())
		if err := e.client.Get(ctx, client.ObjectKeyFromObject(nws[0]), live); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedSlice(live.Object, []any{map[string]any{
			"type": "Synced", "status": "False", "reason": "ReconcileError", "lastTransitionTime": "2026-11-27T10:00:00Z",
			"message": "the recovery pass has not resolved this create",
		}}, "status", "conditions"); err != nil {
			t.Fatal(err)
		}
		if err := e.client.Status().Update(ctx, live); err != nil {
			t.Fatal(err)
		}
		_, got := run(t, options(snap, nws))
		want := facts{
			Outcomes: map[string][]report.Outcome{"conditions-a": {report.OutcomeAdopted}},
			Reads:    1, Cache: 1,
			// The patch from the cached copy conflicts; one live read
			// shows only the conditions changed; the same change is
			// patched onto it.
			Requests: map[string]int{"PATCH Conflict": 1, "LIST OK": 1, "GET OK": 1, "PATCH OK": 1},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
		if got := externalName(t, nws[0]); got != ids[0] {
			t.Errorf("external-name %q, want %q", got, ids[0])
		}
	})

	t.Run("StaleLabelsDecideAgain", func(t *testing.T) {
		nws, ids := begin(t, "labels", 1)
		snap := snapshot(t, nws)
		nw := nws[0]
		if err := e.client.Get(ctx, client.ObjectKeyFromObject(nw), nw); err != nil {
			t.Fatal(err)
		}
		nw.SetLabels(map[string]string{"team": "b"})
		if err := e.client.Update(ctx, nw); err != nil {
			t.Fatal(err)
		}
		_, got := run(t, options(snap, nws))
		want := facts{
			Outcomes: map[string][]report.Outcome{"labels-a": {report.OutcomeAdopted}},
			// The cached read, then the live one after the conflict, then
			// the read the second decision starts from.
			Reads: 2, Cache: 1, Rereads: 1,
			Requests: map[string]int{"LIST OK": 1, "PATCH Conflict": 1, "GET OK": 2, "PATCH OK": 1},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-want +got:\n%s", diff)
		}
		if got := externalName(t, nw); got != ids[0] {
			t.Errorf("external-name %q, want %q", got, ids[0])
		}
	})

	t.Run("ReplacedResourceIsNotAdopted", func(t *testing.T) {
		nws, _ := begin(t, "replaced", 1)
		snap := snapshot(t, nws)
		old := nws[0]
		// The resource the intent was for is deleted and another made
		// under its name: the cache still holds the first.
		if err := e.client.Delete(ctx, old); err != nil {
			t.Fatal(err)
		}
		waitGone(t, e, old)
		repl := newNetwork(old.GetName(), "10.9.0.0/16")
		if err := e.client.Create(ctx, repl); err != nil {
			t.Fatal(err)
		}
		rep, got := run(t, options(snap, nws))
		if diff := cmp.Diff(1, got.Rereads); diff != "" {
			t.Errorf("rereads -want +got:\n%s", diff)
		}
		if o := got.Outcomes["replaced-a"]; len(o) == 0 || o[0] == report.OutcomeAdopted {
			t.Errorf("outcomes %v: the intent's resource is gone, its cloud network must not be adopted by the replacement (report %+v)", o, rep.Entries)
		}
		if got := externalName(t, repl); got != "" {
			t.Errorf("the replacement was given external-name %q", got)
		}
	})
}

// waitGone waits until obj is no longer served.
func waitGone(t *testing.T, e *env, obj client.Object) {
	t.Helper()
	for range 100 {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
		if err := e.client.Get(t.Context(), client.ObjectKeyFromObject(obj), u); err != nil || u.GetUID() != obj.GetUID() {
			return
		}
		select {
		case <-t.Context().Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("%s was not deleted", obj.GetName())
}
