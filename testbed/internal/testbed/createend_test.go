package testbed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Lines of a provider log as the v2 line writes them for a cluster-scoped
// RecordSet "rs" (request and requeue names as objects); v1 writes names
// as strings (v1Requeue).
const (
	evCreate    = `{"msg":"Calling the inner handler for Create event.","name":"rs","namespace":""}`
	evUpdate    = `{"msg":"Calling the inner handler for Update event.","name":"rs","namespace":""}`
	reconciling = `{"msg":"Reconciling","request":{"name":"rs"}}`
	created     = `{"msg":"Successfully requested creation of external resource","request":{"name":"rs"}}`
	upToDate    = `{"msg":"External resource is up to date","request":{"name":"rs"}}`
	putOK       = `{"msg":"API write","verb":"PUT","path":"/apis/fakecloud.intentjournal.io/v1alpha1/recordsets/rs","status":200}`
	putConflict = `{"msg":"API write","verb":"PUT","path":"/apis/fakecloud.intentjournal.io/v1alpha1/recordsets/rs","status":409}`
	statusOK    = `{"msg":"API write","verb":"PUT","path":"/apis/fakecloud.intentjournal.io/v1alpha1/recordsets/rs/status","status":200}`
	statusLost  = `{"msg":"API write","verb":"PUT","path":"/apis/fakecloud.intentjournal.io/v1alpha1/recordsets/rs/status","status":409}`
	patchOK     = `{"msg":"API write","verb":"PATCH","path":"/apis/fakecloud.intentjournal.io/v1alpha1/recordsets/rs","status":200}`
	callback    = `{"msg":"Reconcile request has been requeued.","name":{"name":"rs"},"rateLimiterName":"","when":0}`
	v1Requeue   = `{"msg":"Reconcile request has been requeued.","name":"rs","rateLimiterName":"","when":0}`
	retry       = `{"msg":"Reconcile request has been requeued.","name":{"name":"rs"},"rateLimiterName":"callback","when":1000000000}`
	succeeded   = `{"msg":"intent settled","resource":"rs","state":"succeeded"}`
	settled     = `{"msg":"intent settled","resource":"rs","state":"settled"}`
	otherMR     = `{"msg":"Reconciling","request":{"name":"rs-2","namespace":"team-a"}}`
)

// createPath is a create up to its async callback: the reconcile that
// dispatches it, one that meets a stale cache and one while it runs.
var createPath = []string{evCreate, reconciling, putOK, putOK, created, statusOK,
	evUpdate, reconciling, putConflict, reconciling, upToDate, statusOK, statusOK, callback}

func TestCreateEnds(t *testing.T) {
	cases := map[string]struct {
		reason    string
		log       []string
		journaled bool
		want      []string
	}{
		"Ended": {
			reason: "A reconcile after the callback's request ended up to date and its status update landed.",
			log:    append(createPath[:len(createPath):len(createPath)], reconciling, putOK, upToDate, statusOK),
		},
		"NoCallback": {
			reason: "Up to date while the async create runs is no end: upjet reports it so.",
			log:    createPath[:12],
			want:   []string{"rs: the async create's callback"},
		},
		"RequestedAfterCallback": {
			reason: "The reconcile the callback requests has not started.",
			log:    createPath,
			want:   []string{"rs: a reconcile after the request at log line 14"},
		},
		"WatchEventAfterLastReconcile": {
			reason: "A watch event after the reconcile started makes the work queue run it again.",
			log:    append(createPath[:len(createPath):len(createPath)], reconciling, putOK, evUpdate, upToDate, statusOK),
			want:   []string{"rs: a reconcile after the request at log line 17"},
		},
		"ReconcileRunning": {
			reason: "The last reconcile has not ended.",
			log:    append(createPath[:len(createPath):len(createPath)], reconciling, putOK),
			want:   []string{"rs: the reconcile started at log line 15 to end up to date"},
		},
		"ReconcileRetried": {
			reason: "A reconcile that met a 409 ends in a rate-limited retry, not up to date.",
			log:    append(createPath[:len(createPath):len(createPath)], reconciling, putConflict),
			want:   []string{"rs: the reconcile started at log line 15 to end up to date"},
		},
		"StatusUpdateLost": {
			reason: "A status update that met a 409 is retried.",
			log:    append(createPath[:len(createPath):len(createPath)], reconciling, upToDate, statusLost),
			want:   []string{"rs: the status update of the reconcile ended at log line 16"},
		},
		"FailedCallbackIsNoEnd": {
			reason: "A failed create's callback asks for a rate-limited reconcile: the create is retried.",
			log:    append(createPath[:13:13], retry, reconciling, upToDate, statusOK),
			want:   []string{"rs: the async create's callback"},
		},
		"JournalNotSettled": {
			reason:    "With the journal, the intent must reach settled: succeeded comes before the external-name patch.",
			log:       append(createPath[:len(createPath):len(createPath)], succeeded, reconciling, upToDate, statusOK),
			journaled: true,
			want:      []string{"rs: its intent to settle in the journal"},
		},
		"JournalSettled": {
			reason:    "The callback's patch made and the intent settled.",
			log:       append(createPath[:13:13], succeeded, patchOK, settled, callback, reconciling, upToDate, statusOK),
			journaled: true,
		},
		"V1Names": {
			reason: "The v1 line logs the requeued name as a string.",
			log:    append(createPath[:13:13], v1Requeue, reconciling, upToDate, statusOK),
		},
		"OtherResourcesIgnored": {
			reason: "Lines of other resources change nothing.",
			log:    append(createPath[:len(createPath):len(createPath)], reconciling, upToDate, statusOK, otherMR, "not json"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "provider.log")
			if err := os.WriteFile(path, []byte(strings.Join(tc.log, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			got := NewCreateEnds(path, []string{"rs"}, tc.journaled).Pending(t)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nPending(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCreateEndsReadsOnlyWholeLines checks that a line the provider is
// still writing is read once it is whole, and lines are read once.
func TestCreateEndsReadsOnlyWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "provider.log")
	head := strings.Join(createPath, "\n") + "\n" + reconciling + "\n" + upToDate + "\n"
	if err := os.WriteFile(path, []byte(head+statusOK[:20]), 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewCreateEnds(path, []string{"rs"}, false)
	if diff := cmp.Diff([]string{"rs: the status update of the reconcile ended at log line 16"}, c.Pending(t)); diff != "" {
		t.Errorf("a half-written status update must not count; -want, +got:\n%s", diff)
	}
	if err := os.WriteFile(path, []byte(head+statusOK+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := c.Pending(t); len(got) != 0 {
		t.Errorf("once the line is whole the create has ended; Pending() = %v", got)
	}
}
