package adapter

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// refused is what a refused create left behind.
type refused struct {
	// Dispatched counts the creates that reached the wrapped client.
	Dispatched int
	// Intent is the state of the journal's record of the resource: "" for
	// none, "corrupt" for a quarantined one.
	Intent journal.State
	// LocksHeld counts create locks taken and not released.
	LocksHeld int
	// HandedBack says the API server's copy carries the hand-back mark
	// (ownership.AnnotationCreateRefused).
	HandedBack bool
	// Annotated says the in-memory resource, which crossplane-runtime
	// persists after Create returns, carries an intent annotation.
	Annotated bool
}

// TestCreateRefusals: every refusal of Kind.Create before it dispatches,
// one cause per row. Each dispatches nothing, holds no create lock after
// it returns, and leaves the journal as the code promises: no intent when
// it refuses before Begin, the earlier intent as the resolver left it, and
// a rejected one when the intent was begun but could not be annotated.
func TestCreateRefusals(t *testing.T) {
	errLease := errors.New("create lease held by replica-1")
	errRead := errors.New("probe: read timed out")
	errHook := errors.New("injected Begin failure")
	notOwned := func(string, string) bool { return false }
	long := strings.Repeat("x", 1000)
	mine := journal.Owner{Replica: "replica-0", Epoch: journal.NewEpoch(time.Now()), Cluster: "cluster-a"}

	cases := map[string]struct {
		reason string
		cfg    harnessConfig
		// absent: the API server does not hold the resource; unreadable:
		// it does, but every read fails.
		absent, unreadable bool
		// mod changes the resource, in memory and on the API server.
		mod func(t *testing.T, mg *unstructured.Unstructured)
		// setup runs once the harness is built.
		setup      func(t *testing.T, h *harness, mg *unstructured.Unstructured)
		ctx        func(t *testing.T) context.Context
		wantPrefix string
		wantIs     error
		want       refused
		check      func(t *testing.T, h *harness, mg *unstructured.Unstructured, err error)
	}{
		"GateClosedBeforeThePass": {
			reason:     "Until the recovery pass has scanned, any resource may have an unsettled intent: nothing creates.",
			cfg:        harnessConfig{closedGate: true},
			wantPrefix: errGate, wantIs: recovery.ErrRecoveryPending,
		},
		"GateClosedHandsBackToTheOwner": {
			reason:     "A resource this replica no longer owns is refused and handed back: the failed mark and the refusal mark, on the server and in memory.",
			cfg:        harnessConfig{closedGate: true, owns: notOwned},
			wantPrefix: errGate, wantIs: recovery.ErrRecoveryPending,
			want: refused{HandedBack: true},
			check: func(t *testing.T, h *harness, mg *unstructured.Unstructured, _ error) {
				if mg.GetAnnotations()[ownership.AnnotationCreateRefused] == "" || mg.GetAnnotations()[recovery.AnnotationExternalCreateFailed] == "" {
					t.Errorf("the in-memory resource lacks the hand-back marks: %v", mg.GetAnnotations())
				}
				if got, want := mg.GetResourceVersion(), h.stored(t, mg).GetResourceVersion(); got != want {
					t.Errorf("in-memory resourceVersion %s, stored %s: the reconciler's own update would conflict", got, want)
				}
			},
		},
		"GateClosedHandBackFails": {
			reason:     "A hand-back whose patch fails is logged; the refusal stands and the in-memory resource claims no mark.",
			cfg:        harnessConfig{closedGate: true, owns: notOwned, funcs: failPatch(errors.New("etcdserver: request timed out"))},
			wantPrefix: errGate, wantIs: recovery.ErrRecoveryPending,
			check: func(t *testing.T, _ *harness, mg *unstructured.Unstructured, _ error) {
				if v := mg.GetAnnotations()[ownership.AnnotationCreateRefused]; v != "" {
					t.Errorf("the in-memory resource claims a hand-back that never landed: %q", v)
				}
			},
		},
		"UnresolvedIntentWhileThePassRuns": {
			reason: "A resource the pass has blocked waits for the pass, which is still running.",
			setup: func(_ *testing.T, h *harness, mg *unstructured.Unstructured) {
				h.a.Gate().Block(mg.GetUID(), "being recovered")
			},
			wantPrefix: errGate, wantIs: recovery.ErrIntentUnresolved,
		},
		"LockHeldElsewhere": {
			reason:     "Another process holds the create lock: refused, nothing written, no hand-back while this replica owns the resource.",
			cfg:        harnessConfig{locker: &lockCounter{err: errLease}},
			wantPrefix: "cannot create: cannot take the create lock of www", wantIs: errLease,
		},
		"LockRefusedBucketMoved": {
			reason:     "The lock says another replica owns the resource now: refused and handed back.",
			cfg:        harnessConfig{locker: &lockCounter{err: fmt.Errorf("%w: www", ownership.ErrNotOwned)}},
			wantPrefix: "cannot create: cannot take the create lock of www", wantIs: ownership.ErrNotOwned,
			want: refused{HandedBack: true},
		},
		"LockTimesOut": {
			reason: "The reconcile's deadline passes while the lock is awaited: refused.",
			cfg: harnessConfig{locker: CreateLockerFn(func(ctx context.Context, _ metav1.Object) (func(), error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})},
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
				t.Cleanup(cancel)
				return ctx
			},
			wantPrefix: "cannot create: cannot take the create lock of www", wantIs: context.DeadlineExceeded,
		},
		"JournalClosed": {
			reason: "The journal cannot be read: whether an earlier create is unsettled is unknown.",
			setup: func(t *testing.T, h *harness, _ *unstructured.Unstructured) {
				if err := h.j.Close(); err != nil {
					t.Fatal(err)
				}
			},
			wantPrefix: errReadJournal, wantIs: journal.ErrClosed,
		},
		"CorruptJournalRecord": {
			reason: "What the earlier create did is unknown: the quarantined record is resolved (the lookup found nothing: cleared, and released), never created over.",
			cfg:    harnessConfig{prepare: corruptRecord("uid-www")},
			setup: func(t *testing.T, h *harness, mg *unstructured.Unstructured) {
				if got := h.state(t, string(mg.GetUID())); got != "corrupt" {
					t.Fatalf("the journal's record is %q before the create, want it corrupt", got)
				}
			},
			// Without the resolution, Begin would have refused the
			// quarantined record.
			wantPrefix: fmt.Sprintf(errResolved, report.OutcomeCleared),
		},
		"EarlierProcessIntent": {
			reason: "An earlier process's unsettled intent is resolved (nothing was made: cleared) and the reconcile observes afresh.",
			setup: func(t *testing.T, h *harness, mg *unstructured.Unstructured) {
				h.earlierIntent(t, mg)
			},
			wantPrefix: fmt.Sprintf(errResolved, report.OutcomeCleared),
			want:       refused{Intent: journal.StateCleared},
		},
		"EarlierIntentResourceUnreadable": {
			reason: "The resolver cannot read the resource: the earlier intent stays unsettled.",
			cfg: harnessConfig{funcs: interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
				return apierrors.NewServiceUnavailable("apiserver is shutting down")
			}}},
			unreadable: true,
			setup: func(t *testing.T, h *harness, mg *unstructured.Unstructured) {
				h.earlierIntent(t, mg)
			},
			wantPrefix: errResolve,
			want:       refused{Intent: journal.StatePending},
			check: func(t *testing.T, _ *harness, _ *unstructured.Unstructured, err error) {
				if !apierrors.IsServiceUnavailable(err) {
					t.Errorf("error %v does not carry the API server's 503", err)
				}
			},
		},
		"EarlierIntentOfARecreatedResource": {
			reason: "The copy in hand is of a resource since recreated under the same name: its intent is not resolved against the new one.",
			setup: func(t *testing.T, h *harness, mg *unstructured.Unstructured) {
				mg.SetUID("uid-www-gone")
				h.earlierIntent(t, mg)
			},
			wantPrefix: errResolve,
			want:       refused{Intent: journal.StatePending},
			check: func(t *testing.T, _ *harness, _ *unstructured.Unstructured, err error) {
				if !strings.Contains(err.Error(), "it was recreated") {
					t.Errorf("error %v does not say the resource was recreated", err)
				}
			},
		},
		"LivePeerIntent": {
			reason: "An unsettled intent of a live peer, out of this process's scope: never resolved, never created over.",
			cfg: harnessConfig{scope: func(in journal.Intent) bool {
				return in.Owner.Replica == "replica-0"
			}},
			mod: func(t *testing.T, mg *unstructured.Unstructured) {
				mg.SetAnnotations(peerAnnotation(t, mg))
			},
			wantPrefix: "cannot create: the earlier create intent belongs to replica-1",
			want:       refused{Annotated: true},
		},
		"EarlierRejectionCannotBeSettled": {
			reason: "This process's own rejected intent must be settled before the next attempt: a journal that refuses the write refuses the create.",
			cfg:    harnessConfig{prepare: rejectedIntent(mine), journalOpts: []journal.Option{journal.WithReadOnly()}},
			setup: func(_ *testing.T, h *harness, _ *unstructured.Unstructured) {
				h.a.owner = mine
			},
			wantPrefix: errSettleEarlier, wantIs: journal.ErrReadOnly,
			want: refused{Intent: journal.StateFailed},
		},
		"CorruptAnnotation": {
			reason: "An intent annotation that does not decode, with no journal record: resolved (nothing found: cleared, the annotation dropped), never created over.",
			mod: func(_ *testing.T, mg *unstructured.Unstructured) {
				mg.SetAnnotations(map[string]string{journal.AnnotationKey: "{torn"})
			},
			wantPrefix: fmt.Sprintf(errResolved, report.OutcomeCleared),
		},
		"AnnotationOnlyEarlierIntent": {
			reason: "Without a journal, an earlier process's unsettled intent annotation is resolved, never created over.",
			cfg:    harnessConfig{annotationOnly: true},
			mod: func(t *testing.T, mg *unstructured.Unstructured) {
				in, err := BuildIntent(mg, IntentInput{GVK: testGVK, Owner: journal.Owner{Replica: "replica-0", Epoch: journal.NewEpoch(time.Now().Add(-time.Hour)), Cluster: "cluster-a"}}, fakeLine{})
				if err != nil {
					t.Fatal(err)
				}
				ann, err := journal.SetAnnotation(nil, journal.Stamp(in, time.Now().Add(-time.Hour), 0))
				if err != nil {
					t.Fatal(err)
				}
				mg.SetAnnotations(ann)
			},
			wantPrefix: fmt.Sprintf(errResolved, report.OutcomeCleared),
		},
		"NotAManagedResource": {
			reason: "The line cannot read the resource's tags (ExternalTags fails): no intent can be built.",
			mod: func(_ *testing.T, mg *unstructured.Unstructured) {
				unstructured.RemoveNestedField(mg.Object, "spec", "forProvider")
			},
			wantPrefix: errBuildIntent,
		},
		"NaturalKeyMissing": {
			reason:     "A natural-key field is unset: recovery could not look the resource up.",
			cfg:        harnessConfig{kindOpts: []KindOption{WithNaturalKey(SpecFields("zone", "region"))}},
			wantPrefix: errBuildIntent + ": cannot read the natural key",
		},
		"NaturalKeyClashesWithATag": {
			reason: "A natural-key field named like a crossplane tag would overwrite it.",
			cfg: harnessConfig{kindOpts: []KindOption{WithNaturalKey(func(client.Object) (map[string]string, error) {
				return map[string]string{recovery.TagCrossplaneName: "other"}, nil
			})}},
			wantPrefix: errBuildIntent + ": natural-key field",
		},
		"ArgumentsUnencodable": {
			reason: "What the create sends cannot be recorded.",
			absent: true, // the fake API server cannot hold a NaN either
			mod: func(t *testing.T, mg *unstructured.Unstructured) {
				if err := unstructured.SetNestedField(mg.Object, math.NaN(), "spec", "forProvider", "ttl"); err != nil {
					t.Fatal(err)
				}
			},
			wantPrefix: errBuildIntent + ": cannot encode the create's arguments",
		},
		"ProbeFails": {
			reason:     "The key probe cannot read whether the key is free: the create waits for a probe that answers.",
			cfg:        harnessConfig{probes: map[schema.GroupKind]KeyProbe{testGVK.GroupKind(): KeyProbeFn(func(context.Context, client.Object) (string, bool, error) { return "", false, errRead })}},
			wantPrefix: errProbe, wantIs: errRead,
		},
		"BeginHookFails": {
			reason:     "Fault injection before Begin fails the create closed, as a failed Begin does.",
			cfg:        harnessConfig{beginHook: func(context.Context, journal.Intent) error { return errHook }},
			wantPrefix: errBegin, wantIs: errHook,
		},
		"JournalClosedAtBegin": {
			reason: "The journal closes between the read of the earlier intent and Begin.",
			setup: func(_ *testing.T, h *harness, _ *unstructured.Unstructured) {
				h.a.beginHook = func(context.Context, journal.Intent) error { return h.j.Close() }
			},
			wantPrefix: errBegin, wantIs: journal.ErrClosed,
		},
		"IntentInvalid": {
			reason: "The journal refuses an intent with an oversized field.",
			mod: func(t *testing.T, mg *unstructured.Unstructured) {
				if err := unstructured.SetNestedField(mg.Object, strings.Repeat("p", 2000), "spec", "providerConfigRef", "name"); err != nil {
					t.Fatal(err)
				}
			},
			wantPrefix: errBegin, wantIs: journal.ErrInvalid,
		},
		"AnnotationTooLarge": {
			reason: "The intent is durable but cannot be annotated: it is settled rejected (nothing was dispatched), and the resource carries no annotation.",
			cfg: harnessConfig{probes: map[schema.GroupKind]KeyProbe{testGVK.GroupKind(): KeyProbeFn(func(context.Context, client.Object) (string, bool, error) {
				return "zones/" + long, true, nil
			})}},
			mod: func(_ *testing.T, mg *unstructured.Unstructured) {
				mg.SetAnnotations(map[string]string{recovery.AnnotationExternalName: long})
			},
			wantPrefix: errAnnotate, wantIs: journal.ErrInvalid,
			want: refused{Intent: journal.StateFailed},
			check: func(t *testing.T, h *harness, mg *unstructured.Unstructured, _ error) {
				in, _ := h.intent(t, mg)
				if in.Outcome.ErrorClass != journal.ErrorClassRejected {
					t.Errorf("the intent is settled %s/%s, want failed/rejected, so that the next attempt may begin", in.State, in.Outcome.ErrorClass)
				}
			},
		},
		"AnnotationOnlyPatchFails": {
			reason:     "Without a journal the annotation patch is the intent: a failed patch fails the create closed.",
			cfg:        harnessConfig{annotationOnly: true, funcs: failPatch(errors.New("etcdserver: request timed out"))},
			wantPrefix: errBegin + ": cannot patch the intent annotation of www",
		},
		"AnnotationOnlyPatchConflicts": {
			reason:     "The intent patch names the resource's UID: a resource recreated under the name answers 409, and nothing is dispatched.",
			cfg:        harnessConfig{annotationOnly: true, funcs: failPatch(apierrors.NewConflict(schema.GroupResource{Group: testGVK.Group, Resource: "records"}, "www", errors.New("uid precondition failed")))},
			wantPrefix: errBegin + ": cannot patch the intent annotation of www",
			check: func(t *testing.T, _ *harness, _ *unstructured.Unstructured, err error) {
				if !apierrors.IsConflict(err) {
					t.Errorf("error %v does not carry the 409", err)
				}
			},
		},
		"AnnotationOnlyResourceGone": {
			reason:     "Without a journal, a resource deleted before its create cannot carry the intent: nothing is dispatched.",
			cfg:        harnessConfig{annotationOnly: true},
			absent:     true,
			wantPrefix: errBegin + ": cannot patch the intent annotation of www",
			check: func(t *testing.T, _ *harness, _ *unstructured.Unstructured, err error) {
				if !apierrors.IsNotFound(err) {
					t.Errorf("error %v does not carry the 404", err)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mg := newRecord("www")
			if tc.mod != nil {
				tc.mod(t, mg)
			}
			locks := &lockCounter{}
			if tc.cfg.locker == nil {
				tc.cfg.locker = locks
			}
			if !tc.absent {
				tc.cfg.objects = []client.Object{mg.DeepCopy()}
			}
			h := newHarness(t, tc.cfg)
			if tc.setup != nil {
				tc.setup(t, h, mg)
			}
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx(t)
			}
			annBefore := mg.GetAnnotations()[journal.AnnotationKey]

			err := h.create(ctx, mg)

			if err == nil || !strings.HasPrefix(err.Error(), tc.wantPrefix) {
				t.Fatalf("%s\nCreate() = %v, want an error starting %q", tc.reason, err, tc.wantPrefix)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("%s\nCreate() = %v, want it to wrap %v", tc.reason, err, tc.wantIs)
			}
			got := refused{
				Dispatched: h.cloud.dispatched(),
				Intent:     h.state(t, string(mg.GetUID())),
				LocksHeld:  locks.held(),
				Annotated:  mg.GetAnnotations()[journal.AnnotationKey] != "",
			}
			if !tc.absent && !tc.unreadable {
				got.HandedBack = h.stored(t, mg).GetAnnotations()[ownership.AnnotationCreateRefused] != ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nafter Create() = %v (-want +got):\n%s", tc.reason, err, diff)
			}
			if got.Annotated && mg.GetAnnotations()[journal.AnnotationKey] != annBefore {
				t.Errorf("%s\na refused create rewrote the intent annotation it found", tc.reason)
			}
			if tc.check != nil {
				tc.check(t, h, mg, err)
			}
		})
	}
}
