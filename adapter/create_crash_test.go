//go:build failpoints

package adapter

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
)

// The crash test runs only in a binary built with -tags failpoints:
//
//	go test -tags failpoints -run TestCreateCrash ./adapter/
//
// It re-executes the test binary as a child that runs one Kind.Create
// with a failpoint armed, and reads what the SIGKILL left.

// crashChildEnv names the directory the child works in; unset, the child
// test runs as the in-process control.
const crashChildEnv = "INTENTJOURNAL_CREATE_CRASH_DIR"

// TestCreateCrashChild is the child: one Create, whose dispatch leaves a
// marker file, in the directory crashChildEnv names. Run on its own (the
// variable unset, so nothing is armed), it is the control in process: the
// create journals its intent and dispatches.
func TestCreateCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	standalone := dir == ""
	if standalone {
		dir = t.TempDir()
	}
	mg := newRecord("www")
	h := newHarness(t, harnessConfig{async: true, journalPath: filepath.Join(dir, "intents.db"), objects: []client.Object{mg.DeepCopy()}})
	h.cloud.during = func(context.Context) {
		if err := os.WriteFile(filepath.Join(dir, "dispatched"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.create(context.Background(), mg); err != nil {
		t.Fatalf("Create(): %v", err)
	}
	if !standalone {
		return // the parent reads what was left
	}
	if _, err := os.Stat(filepath.Join(dir, "dispatched")); err != nil {
		t.Errorf("the create was not dispatched: %v", err)
	}
}

// TestCreateCrash: a process killed before Begin leaves nothing; one
// killed after Begin and before the dispatch leaves a pending intent for
// recovery and has dispatched nothing; one not killed has done both.
func TestCreateCrash(t *testing.T) {
	type left struct {
		End        string
		Intent     journal.State
		Dispatched bool
	}
	cases := map[string]struct {
		reason string
		armed  string
		want   left
	}{
		"BeforeBegin": {reason: "Nothing was durable, nothing was dispatched.",
			armed: failpoint.BeforeBegin + "=kill", want: left{End: "killed"}},
		"AfterBegin": {reason: "The intent is durable before the dispatch: recovery finds what a create might have made.",
			armed: failpoint.AfterBegin + "=kill", want: left{End: "killed", Intent: journal.StatePending}},
		"NotKilled": {reason: "The control: the child runs its create to the end.",
			want: left{End: "exit 0", Intent: journal.StatePending, Dispatched: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestCreateCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, failpoint.EnvVar+"="+tc.armed)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			got := left{End: "exit 0"}
			var ee *exec.ExitError
			switch err := cmd.Run(); {
			case err == nil:
			case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
				got.End = ee.Sys().(syscall.WaitStatus).Signal().String()
			default:
				t.Fatalf("the child failed: %v\n%s", err, stderr.String())
			}
			j, err := journal.Open(filepath.Join(dir, "intents.db"), journal.WithReadOnly())
			if err != nil {
				t.Fatalf("cannot open the child's journal: %v", err)
			}
			defer func() { _ = j.Close() }()
			in, err := j.Get(context.Background(), "uid-www")
			switch {
			case err == nil:
				got.Intent = in.State
			case !errors.Is(err, journal.ErrNotFound):
				t.Fatalf("journal Get: %v", err)
			}
			_, err = os.Stat(filepath.Join(dir, "dispatched"))
			got.Dispatched = err == nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nwhat the child left (-want +got):\n%s\nchild stderr:\n%s", tc.reason, diff, stderr.String())
			}
		})
	}
}
