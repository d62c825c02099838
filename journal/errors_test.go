package journal

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestErrorsWrapSentinels pins the promise of errors.go: every error an
// exported operation returns wraps one of the journal's sentinels (or a
// context error), keeps its cause reachable, and says "journal:" once. Each
// row makes one real failure on a real bbolt file.
func TestErrorsWrapSentinels(t *testing.T) {
	ctx := context.Background()
	uid := "6d3b0c2e-8a57-4c1b-9b0e-3f1d2a4c5b6e"
	// closed returns a journal holding one dispatched intent, closed.
	closed := func(t *testing.T) (*Journal, Intent) {
		j, _ := openTemp(t)
		in, err := j.Begin(ctx, intentFor(uid))
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		return j, in
	}
	// readOnly returns a read-only journal holding one pending intent.
	readOnly := func(t *testing.T) (*Journal, Intent) {
		j, path := openTemp(t)
		in, err := j.Begin(ctx, intentFor(uid))
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		ro, err := Open(path, WithReadOnly())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ro.Close() })
		return ro, in
	}
	// failingCommit returns a journal whose next commit fails the way a
	// disk does (EIO from the transaction), holding one pending intent.
	failingCommit := func(t *testing.T) (*Journal, Intent) {
		j, _ := openTemp(t)
		in, err := j.Begin(ctx, intentFor(uid))
		if err != nil {
			t.Fatal(err)
		}
		j.testHookBeforeCommit = func() error { return &fs.PathError{Op: "fdatasync", Path: j.path, Err: syscall.EIO} }
		return j, in
	}
	// file writes a journal file at a new path with content.
	file := func(t *testing.T, content []byte) string {
		path := filepath.Join(t.TempDir(), "journal.db")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// boltFile writes a bbolt file whose meta bucket says format.
	boltFile := func(t *testing.T, format string) string {
		path := filepath.Join(t.TempDir(), "journal.db")
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket(bucketMeta)
			if err != nil {
				return err
			}
			return b.Put(keyFormat, []byte(format))
		}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	firstErr := func(seq func(yield func(Intent, error) bool)) error {
		var got error
		for _, err := range seq {
			if err != nil {
				got = err
				break
			}
		}
		return got
	}

	cases := map[string]struct {
		reason string
		op     func(t *testing.T) error
		want   error // the sentinel
		cause  error // a cause that must stay reachable, when the row has one
	}{
		"OpenEmptyPath": {
			reason: "an empty path is invalid",
			op:     func(*testing.T) error { _, err := Open(""); return err },
			want:   ErrInvalid,
		},
		"OpenMissingDirectory": {
			reason: "a path whose directory is missing is an I/O failure that keeps fs.ErrNotExist",
			op: func(t *testing.T) error {
				_, err := Open(filepath.Join(t.TempDir(), "missing", "journal.db"))
				return err
			},
			want: ErrIO, cause: fs.ErrNotExist,
		},
		"OpenDirectory": {
			reason: "a directory is not a journal file: an I/O failure that keeps EISDIR",
			op:     func(t *testing.T) error { _, err := Open(t.TempDir()); return err },
			want:   ErrIO, cause: syscall.EISDIR,
		},
		"OpenReadOnlyMissing": {
			reason: "a read-only open of a missing file keeps fs.ErrNotExist",
			op: func(t *testing.T) error {
				_, err := Open(filepath.Join(t.TempDir(), "journal.db"), WithReadOnly())
				return err
			},
			want: ErrIO, cause: fs.ErrNotExist,
		},
		"OpenLocked": {
			reason: "a journal another handle holds is locked",
			op: func(t *testing.T) error {
				_, path := openTemp(t)
				_, err := Open(path, WithLockTimeout(50*time.Millisecond))
				return err
			},
			want: ErrLocked,
		},
		"OpenGarbage": {
			reason: "a file that is not a bbolt file is corrupt",
			op: func(t *testing.T) error {
				_, err := Open(file(t, []byte(strings.Repeat("not a journal ", 1000))))
				return err
			},
			want: ErrCorrupt,
		},
		"OpenForeignBolt": {
			reason: "a bbolt file of another format is corrupt",
			op:     func(t *testing.T) error { _, err := Open(boltFile(t, "someone-else/1")); return err },
			want:   ErrCorrupt,
		},
		"OpenNewerFormat": {
			reason: "a journal of a newer format version is unsupported",
			op:     func(t *testing.T) error { _, err := Open(boltFile(t, "intentjournal/99")); return err },
			want:   ErrUnsupportedVersion,
		},
		"OpenWrongCluster": {
			reason: "a journal bound to another cluster is refused",
			op: func(t *testing.T) error {
				j, path := openTemp(t, WithCluster("cluster-a"))
				if err := j.Close(); err != nil {
					t.Fatal(err)
				}
				_, err := Open(path, WithCluster("cluster-b"))
				return err
			},
			want: ErrWrongCluster,
		},
		"BeginInvalid": {
			reason: "an intent without a UID is invalid",
			op: func(t *testing.T) error {
				j, _ := openTemp(t)
				_, err := j.Begin(ctx, Intent{})
				return err
			},
			want: ErrInvalid,
		},
		"BeginUnsettled": {
			reason: "a second Begin for an unsettled UID is refused",
			op: func(t *testing.T) error {
				j, _ := failingCommit(t)
				j.testHookBeforeCommit = nil
				_, err := j.Begin(ctx, intentFor(uid))
				return err
			},
			want: ErrUnsettled,
		},
		"BeginClosed": {
			reason: "Begin on a closed journal",
			op:     func(t *testing.T) error { j, _ := closed(t); _, err := j.Begin(ctx, intentFor("u2")); return err },
			want:   ErrClosed,
		},
		"BeginReadOnly": {
			reason: "Begin on a read-only journal",
			op:     func(t *testing.T) error { j, _ := readOnly(t); _, err := j.Begin(ctx, intentFor("u2")); return err },
			want:   ErrReadOnly,
		},
		"BeginCommitFails": {
			reason: "a commit the disk fails is an I/O failure that keeps EIO",
			op: func(t *testing.T) error {
				j, _ := failingCommit(t)
				_, err := j.Begin(ctx, intentFor("u2"))
				return err
			},
			want: ErrIO, cause: syscall.EIO,
		},
		"MarkDispatchedNotFound": {
			reason: "MarkDispatched of a UID with no record",
			op: func(t *testing.T) error {
				j, _ := openTemp(t)
				return j.MarkDispatched(ctx, "u2", NewID())
			},
			want: ErrNotFound,
		},
		"MarkDispatchedStale": {
			reason: "MarkDispatched of an intent that is no longer current",
			op: func(t *testing.T) error {
				j, _ := failingCommit(t)
				j.testHookBeforeCommit = nil
				return j.MarkDispatched(ctx, uid, NewID())
			},
			want: ErrStale,
		},
		"MarkDispatchedClosed": {
			reason: "MarkDispatched on a closed journal",
			op:     func(t *testing.T) error { j, in := closed(t); return j.MarkDispatched(ctx, uid, in.ID) },
			want:   ErrClosed,
		},
		"MarkDispatchedCommitFails": {
			reason: "MarkDispatched whose commit the disk fails",
			op:     func(t *testing.T) error { j, in := failingCommit(t); return j.MarkDispatched(ctx, uid, in.ID) },
			want:   ErrIO, cause: syscall.EIO,
		},
		"SettleToPending": {
			reason: "settling to a non-terminal state is an invalid transition",
			op: func(t *testing.T) error {
				j, in := failingCommit(t)
				_, err := j.Settle(ctx, uid, in.ID, Settlement{State: StatePending})
				return err
			},
			want: ErrInvalidTransition,
		},
		"SettleClosed": {
			reason: "Settle on a closed journal",
			op: func(t *testing.T) error {
				j, in := closed(t)
				_, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateCleared})
				return err
			},
			want: ErrClosed,
		},
		"SettleReadOnly": {
			reason: "Settle on a read-only journal",
			op: func(t *testing.T) error {
				j, in := readOnly(t)
				_, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateCleared})
				return err
			},
			want: ErrReadOnly,
		},
		"SettleCommitFails": {
			reason: "Settle whose commit the disk fails",
			op: func(t *testing.T) error {
				j, in := failingCommit(t)
				_, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateCleared})
				return err
			},
			want: ErrIO, cause: syscall.EIO,
		},
		"GetNotFound": {
			reason: "Get of a UID with no record",
			op:     func(t *testing.T) error { j, _ := openTemp(t); _, err := j.Get(ctx, "u2"); return err },
			want:   ErrNotFound,
		},
		"GetCorruptRecord": {
			reason: "Get of a record whose bytes were damaged on disk",
			op: func(t *testing.T) error {
				j, path := openTemp(t)
				if _, err := j.Begin(ctx, intentFor(uid)); err != nil {
					t.Fatal(err)
				}
				if err := j.Close(); err != nil {
					t.Fatal(err)
				}
				db, err := bolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Update(func(tx *bolt.Tx) error {
					b := tx.Bucket(bucketIntents)
					v := slices.Clone(b.Get([]byte(uid)))
					v[len(v)/2] ^= 0xff
					return b.Put([]byte(uid), v)
				}); err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				j, err = Open(path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = j.Close() })
				_, err = j.Get(ctx, uid)
				return err
			},
			want: ErrCorrupt,
		},
		"GetClosed": {
			reason: "Get on a closed journal",
			op:     func(t *testing.T) error { j, _ := closed(t); _, err := j.Get(ctx, uid); return err },
			want:   ErrClosed,
		},
		"ClusterClosed": {
			reason: "Cluster on a closed journal",
			op:     func(t *testing.T) error { j, _ := closed(t); _, err := j.Cluster(); return err },
			want:   ErrClosed,
		},
		"UnsettledClosed": {
			reason: "Unsettled on a closed journal yields the error",
			op:     func(t *testing.T) error { j, _ := closed(t); return firstErr(j.Unsettled(ctx)) },
			want:   ErrClosed,
		},
		"AllClosed": {
			reason: "All on a closed journal yields the error",
			op:     func(t *testing.T) error { j, _ := closed(t); return firstErr(j.All(ctx)) },
			want:   ErrClosed,
		},
		"ReleaseClosed": {
			reason: "Release on a closed journal",
			op:     func(t *testing.T) error { j, _ := closed(t); return j.Release(ctx, uid) },
			want:   ErrClosed,
		},
		"ReleaseReadOnly": {
			reason: "Release on a read-only journal",
			op:     func(t *testing.T) error { j, _ := readOnly(t); return j.Release(ctx, uid) },
			want:   ErrReadOnly,
		},
		"ReleaseCommitFails": {
			reason: "Release whose commit the disk fails",
			op:     func(t *testing.T) error { j, _ := failingCommit(t); return j.Release(ctx, uid) },
			want:   ErrIO, cause: syscall.EIO,
		},
		"CompactClosed": {
			reason: "Compact on a closed journal",
			op:     func(t *testing.T) error { j, _ := closed(t); _, err := j.Compact(ctx, 0); return err },
			want:   ErrClosed,
		},
		"CompactCommitFails": {
			reason: "Compact whose commit the disk fails",
			op: func(t *testing.T) error {
				j, in := failingCommit(t)
				j.testHookBeforeCommit = nil
				if _, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateCleared}); err != nil {
					t.Fatal(err)
				}
				j.testHookBeforeCommit = func() error { return &fs.PathError{Op: "fdatasync", Path: j.path, Err: syscall.EIO} }
				_, err := j.Compact(ctx, -time.Hour)
				return err
			},
			want: ErrIO, cause: syscall.EIO,
		},
		"VerifyClosed": {
			reason: "Verify on a closed journal",
			op:     func(t *testing.T) error { j, _ := closed(t); _, err := j.Verify(ctx); return err },
			want:   ErrClosed,
		},
		"VerifyCommitFails": {
			reason: "Verify takes a write turn; a commit the disk fails is an I/O failure",
			op:     func(t *testing.T) error { j, _ := failingCommit(t); _, err := j.Verify(ctx); return err },
			want:   ErrIO, cause: syscall.EIO,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.op(t)
			if !errors.Is(err, tc.want) {
				t.Fatalf("%s: got %v, want an error wrapping %v", tc.reason, err, tc.want)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Errorf("%s: %v does not keep its cause %v reachable", tc.reason, err, tc.cause)
			}
			if n := strings.Count(err.Error(), "journal:"); n != 1 {
				t.Errorf("%s: %q says \"journal:\" %d times, want once", tc.reason, err, n)
			}
		})
	}
}
