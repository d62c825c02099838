package scan

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/recovery"
)

// t0 is when the managed resources of the tests were created.
var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// at returns the RFC 3339 form of t0 plus d, as crossplane-runtime writes
// its annotations.
func at(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }

type mrOption func(*unstructured.Unstructured)

// newMR returns a RecordSet managed resource called name, as a stock
// provider leaves it, shaped by opts.
func newMR(name string, opts ...mrOption) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"forProvider": map[string]any{"zone": "example-com", "name": name}},
	}}
	u.SetAPIVersion("fakecloud.intentjournal.io/v1alpha1")
	u.SetKind("RecordSet")
	u.SetName(name)
	u.SetUID(types.UID("uid-" + name))
	u.SetCreationTimestamp(metav1.NewTime(t0))
	for _, o := range opts {
		o(u)
	}
	return u
}

func ann(k, v string) mrOption {
	return func(u *unstructured.Unstructured) {
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[k] = v
		u.SetAnnotations(a)
	}
}

func cond(typ, status, reason, message string) mrOption {
	return func(u *unstructured.Unstructured) {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		conds = append(conds, map[string]any{"type": typ, "status": status, "reason": reason, "message": message,
			"lastTransitionTime": at(3 * time.Minute)})
		_ = unstructured.SetNestedSlice(u.Object, conds, "status", "conditions")
	}
}

func deleting() mrOption {
	return func(u *unstructured.Unstructured) {
		ts := metav1.NewTime(t0.Add(time.Hour))
		u.SetDeletionTimestamp(&ts)
	}
}

// The traces, as crossplane-runtime and upjet write them.
var (
	pending    = ann(recovery.AnnotationExternalCreatePending, at(time.Minute))
	succeeded  = ann(recovery.AnnotationExternalCreateSucceed, at(time.Minute))
	named      = func(n string) mrOption { return ann(recovery.AnnotationExternalName, n) }
	ready      = cond("Ready", "True", "Available", "")
	notReady   = cond("Ready", "False", "Creating", "")
	paused     = ann(recovery.AnnotationPaused, "true")
	msg409     = "create failed: async create failed: failed to create the resource: [{0 Error creating DNS RecordSet: googleapi: Error 409: The resource 'rs' already exists, alreadyExists  []}]"
	loopSynced = cond("Synced", "False", "ReconcileError", msg409)
	loopAsync  = cond("LastAsyncOperation", "False", "AsyncCreateFailure", strings.TrimPrefix(msg409, "create failed: "))
	timeout    = cond("LastAsyncOperation", "False", "AsyncCreateFailure", "async create failed: failed to create the resource: [{0 context deadline exceeded  []}]")
)

// TestClassify is the classification table of docs/after-a-crash-without-a-rebuild.md.
func TestClassify(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    *unstructured.Unstructured
		facts  Facts
		want   Finding // Evidence is checked apart
	}{
		"NoCrash": {
			reason: "A Ready managed resource bound to its cloud resource is never a candidate; its create's time is kept, for the lookup for copies.",
			obj:    newMR("rs", succeeded, named("rs-0a1b"), ready),
			want:   Finding{Skip: SkipBound, LastCreate: t0.Add(time.Minute)},
		},
		"NoTrace": {
			reason: "A managed resource no create touched yet shows nothing.",
			obj:    newMR("rs"),
		},
		"Pending": {
			reason: "a. A create marked pending with no result: crossplane-runtime holds it.",
			obj:    newMR("rs", pending, notReady),
			want:   Finding{Reasons: []Reason{ReasonCreatePending}, Held: true, LastCreate: t0.Add(time.Minute)},
		},
		"PendingThenSucceeded": {
			reason: "A pending mark older than the succeeded one is a create that returned: bound, it is no candidate.",
			obj:    newMR("rs", ann(recovery.AnnotationExternalCreatePending, at(0)), succeeded, named("rs-0a1b"), notReady),
		},
		"SucceededNoName": {
			reason: "b. Succeeded (for upjet: dispatched) and no external name: the async create never settled.",
			obj:    newMR("rs", succeeded, notReady),
			want:   Finding{Reasons: []Reason{ReasonCreateSucceededUnbound}, LastCreate: t0.Add(time.Minute)},
		},
		"SucceededNameIsMetadataNameCloudAssigned": {
			reason: "b. On a kind whose ID the cloud assigns, an external name equal to metadata.name is crossplane-runtime's initializer's, not the cloud's.",
			obj:    newMR("rs", succeeded, named("rs"), notReady),
			facts:  Facts{CloudAssigned: true},
			want:   Finding{Reasons: []Reason{ReasonCreateSucceededUnbound}, LastCreate: t0.Add(time.Minute)},
		},
		"SucceededNameIsMetadataNameKnownBefore": {
			reason: "On a kind whose ID is known before the create, metadata.name as external name is settled: the provider observes it.",
			obj:    newMR("rs", succeeded, named("rs"), notReady),
		},
		"SucceededReadyNoName": {
			reason: "b needs a managed resource that is not Ready.",
			obj:    newMR("rs", succeeded, ready),
		},
		"LoopOnSynced": {
			reason: "c. Synced False on a create that met 409 alreadyExists: a loop, and the succeeded create that led to it.",
			obj:    newMR("rs", succeeded, notReady, loopSynced),
			want:   Finding{Reasons: []Reason{ReasonAlreadyExistsLoop, ReasonCreateSucceededUnbound}, LastCreate: t0.Add(time.Minute)},
		},
		"LoopOnLastAsyncOperation": {
			reason: "c. upjet reports the async create's 409 in LastAsyncOperation; Synced flips back to True at each new create.",
			obj:    newMR("rs", succeeded, notReady, cond("Synced", "True", "ReconcileSuccess", ""), loopAsync),
			want:   Finding{Reasons: []Reason{ReasonAlreadyExistsLoop, ReasonCreateSucceededUnbound}, LastCreate: t0.Add(time.Minute)},
		},
		"LoopInBothConditionsOnce": {
			reason: "c is named once, with the first condition's evidence.",
			obj:    newMR("rs", notReady, loopSynced, loopAsync),
			want:   Finding{Reasons: []Reason{ReasonAlreadyExistsLoop}},
		},
		"LoopBound": {
			reason: "c. A kind whose external name is set before the create loops on 409 with its name set.",
			obj:    newMR("rs", succeeded, named("rs"), notReady, loopSynced),
			want:   Finding{Reasons: []Reason{ReasonAlreadyExistsLoop}},
		},
		"UpdateConflict": {
			reason: "An update that met already exists is no create's loop.",
			obj:    newMR("rs", succeeded, named("rs-0a1b"), notReady, cond("Synced", "False", "ReconcileError", "update failed: async update failed: already exists")),
		},
		"AsyncCreateFailed": {
			reason: "d. An async create that timed out: the cloud may have acted.",
			obj:    newMR("rs", succeeded, notReady, timeout),
			want:   Finding{Reasons: []Reason{ReasonAsyncCreateFailed, ReasonCreateSucceededUnbound}, LastCreate: t0.Add(time.Minute)},
		},
		"AsyncCreateFailedBare409": {
			reason: "d, not c: a 409 that does not say the key is taken is no loop to pause, but its create may have acted.",
			obj:    newMR("rs", notReady, cond("LastAsyncOperation", "False", "AsyncCreateFailure", "async create failed: StatusCode: 409, OperationAborted: A conflicting conditional operation is currently in progress")),
			want:   Finding{Reasons: []Reason{ReasonAsyncCreateFailed}},
		},
		"AsyncCreateFailedBound": {
			reason: "d needs no external name settled.",
			obj:    newMR("rs", succeeded, named("rs-0a1b"), notReady, timeout),
		},
		"AsyncUpdateFailed": {
			reason: "An update's failure is no create's.",
			obj:    newMR("rs", notReady, cond("LastAsyncOperation", "False", "AsyncUpdateFailure", "async update failed: timeout")),
		},
		"Paused": {
			reason: "A paused managed resource is never a candidate, whatever it shows.",
			obj:    newMR("rs", pending, paused, loopSynced),
			want:   Finding{Skip: SkipPaused},
		},
		"PausedFalse": {
			reason: "Only \"true\" pauses, as crossplane-runtime reads it.",
			obj:    newMR("rs", pending, ann(recovery.AnnotationPaused, "false")),
			want:   Finding{Reasons: []Reason{ReasonCreatePending}, Held: true, LastCreate: t0.Add(time.Minute)},
		},
		"Deleting": {
			reason: "A managed resource being deleted is never a candidate.",
			obj:    newMR("rs", pending, deleting()),
			want:   Finding{Skip: SkipDeleting},
		},
		"ReadyBoundStaleLoop": {
			reason: "A stale 409 on a Ready, bound managed resource is history.",
			obj:    newMR("rs", succeeded, named("rs-0a1b"), ready, loopAsync),
			want:   Finding{Skip: SkipBound, LastCreate: t0.Add(time.Minute)},
		},
		"UnparsablePending": {
			reason: "An unparsable pending mark reads as absent, as crossplane-runtime reads it.",
			obj:    newMR("rs", ann(recovery.AnnotationExternalCreatePending, "yesterday"), notReady),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := tc.obj.DeepCopy()
			got := Classify(tc.obj, tc.facts)
			if len(got.Evidence) != len(got.Reasons) {
				t.Errorf("%s\nClassify: %d reasons, %d evidence sentences: %q", tc.reason, len(got.Reasons), len(got.Evidence), got.Evidence)
			}
			for _, e := range got.Evidence {
				if e == "" {
					t.Errorf("%s\nClassify: empty evidence in %q", tc.reason, got.Evidence)
				}
			}
			got.Evidence = nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nClassify (-want +got):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, tc.obj); diff != "" {
				t.Errorf("Classify changed its argument (-before +after):\n%s", diff)
			}
		})
	}
}

// TestClassifyEvidence checks that the evidence quotes what the reasons
// rest on.
func TestClassifyEvidence(t *testing.T) {
	long := strings.Repeat("é", 400) + " already exists"
	got := Classify(newMR("rs", succeeded, notReady, cond("Synced", "False", "ReconcileError", "create failed: "+long)), Facts{})
	want := []string{
		"Synced is False since 2026-11-30T09:03:00Z (ReconcileError): create failed: " + strings.Repeat("é", (maxQuoted-len("create failed: "))/2) + "…",
		"crossplane.io/external-create-succeeded is 2026-11-30T09:01:00Z, crossplane.io/external-name is absent, and Ready is False",
	}
	if diff := cmp.Diff(want, got.Evidence); diff != "" {
		t.Errorf("evidence, a long message cut on a rune boundary (-want +got):\n%s", diff)
	}
	got = Classify(newMR("rs", pending), Facts{})
	if want := "crossplane.io/external-create-pending is 2026-11-30T09:01:00Z, newer than -succeeded (absent) and -failed (absent): a create began and its result was never recorded"; !slices.Equal(got.Evidence, []string{want}) {
		t.Errorf("evidence of a pending create: %q, want %q", got.Evidence, want)
	}
}

// FuzzClassify checks that any object, however malformed its annotations
// and conditions, classifies without a panic, leaves the object as it
// was, and gives a consistent finding.
func FuzzClassify(f *testing.F) {
	for _, o := range []*unstructured.Unstructured{
		newMR("rs", succeeded, notReady, loopSynced, loopAsync),
		newMR("rs", pending, timeout, paused),
		newMR("rs", succeeded, named("rs"), ready),
	} {
		b, err := json.Marshal(o.Object)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
	}
	f.Add([]byte(`{"metadata":{"annotations":{"crossplane.io/external-create-pending":"2026-01-01T00:00:00Z"}},"status":{"conditions":[7,null,{"type":3},{"type":"Synced","status":"False","message":["create failed"]}]}}`), false)
	f.Add([]byte(`{"metadata":{"annotations":"x","deletionTimestamp":5},"status":"ready"}`), false)
	f.Fuzz(func(t *testing.T, b []byte, cloudAssigned bool) {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || m == nil {
			return
		}
		u := &unstructured.Unstructured{Object: m}
		before := u.DeepCopy()
		got := Classify(u, Facts{CloudAssigned: cloudAssigned})
		if diff := cmp.Diff(before, u); diff != "" {
			t.Fatalf("Classify changed its argument:\n%s", diff)
		}
		if got.Skip != "" && len(got.Reasons) > 0 {
			t.Fatalf("skipped (%s) with reasons %v", got.Skip, got.Reasons)
		}
		if len(got.Evidence) != len(got.Reasons) {
			t.Fatalf("%d reasons, %d evidence", len(got.Reasons), len(got.Evidence))
		}
		last := -1
		for _, r := range got.Reasons {
			i := slices.Index(Reasons, r)
			if i <= last {
				t.Fatalf("reasons %v out of order or repeated", got.Reasons)
			}
			last = i
		}
		if got.Held != got.Has(ReasonCreatePending) {
			t.Fatalf("held %v with reasons %v", got.Held, got.Reasons)
		}
	})
}
