package recovery

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/intentjournal/intentjournal/recovery/report"
)

// steppingClock returns a clock that moves one millisecond forward at
// every reading: a phase timed by two readings takes at least 1 ms, with
// no real time in the test.
func steppingClock() func() time.Time {
	var n atomic.Int64
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

func TestStopwatch(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	now := t0
	s := &stopwatch{now: func() time.Time { return now }}
	now = t0.Add(3 * time.Second)
	s.since(phaseLookup, t0)
	s.since(phaseLookup, t0.Add(time.Second))
	before := s.snapshot(0)
	s.since(phasePatch, t0)
	s.since(phaseSettle, t0.Add(5*time.Second)) // a clock that stepped back
	s.add(phaseDiscover, 7*time.Millisecond)
	s.add(phaseDiscover, -time.Second)
	s.tally(counterCacheRead)
	s.tally(counterCacheRead)
	s.tally(counterReread)

	cases := map[string]struct {
		reason string
		got    report.Timings
		want   report.Timings
	}{
		"Snapshot": {
			reason: "Lookups sum over workers; a negative time counts as none, its operation still counts.",
			got:    s.snapshot(4 * time.Second),
			want: report.Timings{Wall: 4 * time.Second, Discover: 7 * time.Millisecond, Lookups: 5 * time.Second, LookupCount: 2,
				Patches: 3 * time.Second, PatchCount: 1, SettleCount: 1, CacheReadCount: 2, RereadCount: 1},
		},
		"Minus": {
			reason: "A pass reports what happened since its start.",
			got:    timingsSince(s.snapshot(time.Second), before),
			want: report.Timings{Wall: time.Second, Discover: 7 * time.Millisecond, Patches: 3 * time.Second, PatchCount: 1, SettleCount: 1,
				CacheReadCount: 2, RereadCount: 1},
		},
		"NegativeWall": {
			reason: "A wall clock that stepped back gives no time.",
			got:    timingsSince(s.snapshot(-time.Second), s.snapshot(0)),
			want:   report.Timings{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRunTimings runs a pass over three incomplete creates that made
// nothing (no journal): each is looked up and cleared by a patch. The
// summary counts those operations, times each phase on the pass's clock,
// and the last log line of the pass carries them. The clock is fake: no
// assertion depends on real time.
func TestRunTimings(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"}
	var objs []runtime.Object
	for _, name := range []string{"a", "b", "c"} {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		u.SetName(name)
		u.SetUID(types.UID("uid-" + name))
		u.SetAnnotations(map[string]string{AnnotationExternalCreatePending: "2026-11-25T11:00:00Z"})
		objs = append(objs, u)
	}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
	scheme.AddKnownTypeWithName(gvk.GroupVersion().WithKind("NetworkList"), &unstructured.UnstructuredList{})
	core, logs := observer.New(zapcore.InfoLevel)
	var lookups atomic.Int64
	rep, err := Run(context.Background(), Options{
		Client: fake.NewClientBuilder().WithScheme(scheme).WithRuntimeObjects(objs...).Build(),
		Kinds:  []schema.GroupVersionKind{gvk},
		Finders: map[schema.GroupKind]Finder{gvk.GroupKind(): FinderFn(func(context.Context, *Candidate) ([]ExternalResource, error) {
			lookups.Add(1)
			return nil, nil
		})},
		Policy: Policy{Concurrency: 2},
		Logger: zapr.NewLogger(zap.New(core)),
		Now:    steppingClock(),
	})
	if err != nil {
		t.Fatalf("Run(): %v", err)
	}
	tm := rep.Summary.Timings
	if tm == nil {
		t.Fatal("Run() left the summary without timings")
	}
	counts := map[string]struct{ got, want int }{
		"cleared": {rep.Summary.Cleared, 3},
		"lookups": {tm.LookupCount, int(lookups.Load())},
		"patches": {tm.PatchCount, 3},
		"reads":   {tm.ReadCount, 0}, // no journal candidate to read
		"settles": {tm.SettleCount, 0},
		"finder":  {int(lookups.Load()), 3},
	}
	for name, c := range counts {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", name, c.got, c.want)
		}
	}
	for name, d := range map[string]time.Duration{"wall": tm.Wall, "discover": tm.Discover, "lookups": tm.Lookups, "patches": tm.Patches} {
		if d <= 0 {
			t.Errorf("%s took %s on a clock that steps at every reading; want it timed", name, d)
		}
	}
	if got, want := fmt.Sprintf("%+v", rep.Summary), "Timings:wall "; !strings.Contains(got, want) {
		t.Errorf("the summary printed with %%+v is %q, want its timings spelled out (%q)", got, want)
	}
	finished := logs.FilterMessage("recovery pass finished").All()
	if len(finished) != 1 {
		t.Fatalf("%d \"recovery pass finished\" log lines, want 1", len(finished))
	}
	fields := finished[0].ContextMap()
	for _, k := range []string{"wall", "discover", "reads", "lookups", "patches", "settles", "lookup-count", "patch-count"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("the pass's last log line has no %q: %v", k, fields)
		}
	}
}
