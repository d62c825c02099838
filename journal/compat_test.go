package journal

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
)

// v1Journal is a journal file written by the v1 format, one intent per
// state, kept under the repository's testdata/ so that every later build
// proves it still reads what earlier builds wrote.
var v1Journal = filepath.Join("..", "testdata", "journal-v1.db")

// v1Fixture is what the v1 journal file holds: uid -> state.
var v1Fixture = map[string]State{
	"uid-pending": StatePending, "uid-dispatched": StateDispatched, "uid-succeeded": StateSucceeded,
	"uid-failed": StateFailed, "uid-settled": StateSettled, "uid-cleared": StateCleared,
	"uid-adopted": StateAdopted, "uid-reported": StateReported,
}

func writeV1Journal(t *testing.T) {
	ctx := context.Background()
	_ = os.Remove(v1Journal)
	j, err := Open(v1Journal, WithClock(func() time.Time { return t0 }))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for uid, s := range v1Fixture {
		in, err := j.Begin(ctx, intentFor(uid))
		if err != nil {
			t.Fatal(err)
		}
		if s == StatePending {
			continue
		}
		if err := j.MarkDispatched(ctx, uid, in.ID); err != nil {
			t.Fatal(err)
		}
		var path []Settlement
		switch s {
		case StateSucceeded:
			path = []Settlement{{State: StateSucceeded, ExternalName: "rs-1"}}
		case StateFailed:
			path = []Settlement{{State: StateFailed, ErrorClass: ErrorClassConflict, Message: "already exists"}}
		case StateSettled:
			path = []Settlement{{State: StateSucceeded, ExternalName: "rs-2"}, {State: StateSettled}}
		case StateCleared, StateAdopted, StateReported:
			path = []Settlement{{State: s, ExternalName: "rs-3", Reason: "Fixture"}}
		}
		for _, o := range path {
			if _, err := j.Settle(ctx, uid, in.ID, o); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestV1JournalStillReadable(t *testing.T) {
	if golden.Update() {
		writeV1Journal(t)
	}
	path := copyFile(t, v1Journal)
	j, err := Open(path, WithReadOnly())
	if err != nil {
		t.Fatalf("this build cannot open a v1 journal: %v", err)
	}
	defer j.Close()
	got := map[string]State{}
	for in, err := range j.All(context.Background()) {
		if err != nil {
			t.Fatalf("reading the v1 journal: %v", err)
		}
		got[in.Resource.UID] = in.State
	}
	if diff := cmp.Diff(v1Fixture, got); diff != "" {
		t.Errorf("v1 journal contents (-want +got):\n%s", diff)
	}
	r, err := j.Verify(context.Background())
	if err != nil || !r.OK() {
		t.Errorf("v1 journal does not verify: %+v, %v", r, err)
	}
}
