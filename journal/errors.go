package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Sentinel errors. Every error the journal returns wraps one of these (or a
// context error), so callers branch with errors.Is and never on message text.
var (
	// ErrCorrupt reports bytes that fail their CRC or do not parse: a torn
	// write, a flipped bit on disk, or a file that is not a journal. A
	// *CorruptError carries the key of the record.
	ErrCorrupt = errors.New("journal: corrupt")

	// ErrLocked reports that another process holds the journal's file lock
	// and did not release it within the lock timeout. A *LockedError names
	// the holder when it could be read.
	ErrLocked = errors.New("journal: locked by another process")

	// ErrClosed is returned by every operation on a closed Journal.
	ErrClosed = errors.New("journal: closed")

	// ErrNotFound reports that no record exists for a UID.
	ErrNotFound = errors.New("journal: not found")

	// ErrUnsettled is returned by Begin when the UID already has an intent
	// that is not terminal. The earlier intent must be resolved (settled,
	// cleared, adopted or reported) before another create may start: this is
	// what stops a restarted provider from creating a second copy. An
	// *UnsettledError carries the earlier intent.
	ErrUnsettled = errors.New("journal: an unsettled intent exists")

	// ErrStale is returned when an operation names an intent ID that is no
	// longer the current intent for its UID, e.g. a late callback from a
	// create that recovery already resolved.
	ErrStale = errors.New("journal: stale intent")

	// ErrInvalidTransition reports a state change the state machine forbids.
	ErrInvalidTransition = errors.New("journal: invalid state transition")

	// ErrInvalid reports an intent or outcome that is not well formed
	// (missing UID, oversized field, unknown state).
	ErrInvalid = errors.New("journal: invalid intent")

	// ErrUnsupportedVersion reports a record or annotation written by a newer,
	// incompatible major version of intentjournal. It is never silently
	// ignored: the data is kept and the caller is told to upgrade.
	ErrUnsupportedVersion = errors.New("journal: unsupported format version")

	// ErrWrongCluster reports a journal bound to another Kubernetes
	// cluster than the one it is opened for (WithCluster). A
	// *ClusterMismatchError names both clusters.
	ErrWrongCluster = errors.New("journal: bound to another cluster")

	// ErrReadOnly is returned by writes on a journal opened WithReadOnly.
	ErrReadOnly = errors.New("journal: opened read-only")

	// ErrIO reports that the journal file could not be opened, read,
	// written or synced: a missing directory, a path that is a directory,
	// a full or failing disk. The operating system's or bbolt's error stays
	// in the chain, so errors.Is(err, fs.ErrNotExist) and the like still
	// hold. A write that returns it did not commit.
	ErrIO = errors.New("journal: i/o error")
)

// CorruptError reports a record that failed its CRC or did not decode.
type CorruptError struct {
	Key    string `json:"key,omitempty"` // the bbolt key (the resource UID), or "" for the file itself
	Reason string `json:"reason"`
}

func (e *CorruptError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%v: %s", ErrCorrupt, e.Reason)
	}
	return fmt.Sprintf("%v: record %q: %s", ErrCorrupt, e.Key, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// LockedError reports a journal whose flock is held by another process.
type LockedError struct {
	Path string
	// Holder describes the process that holds the lock, as it recorded itself
	// in the holder file beside the journal ("pid 42 on host provider-0 since
	// ..."). Empty when the holder left no record.
	Holder string
}

func (e *LockedError) Error() string {
	if e.Holder == "" {
		return fmt.Sprintf("%v: %s", ErrLocked, e.Path)
	}
	return fmt.Sprintf("%v: %s is held by %s", ErrLocked, e.Path, e.Holder)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// ClusterMismatchError is returned by Open when the journal is bound to
// another cluster than WithCluster names. Nothing in the file was changed.
type ClusterMismatchError struct {
	Path string
	// Journal is the cluster the journal is bound to; Current the cluster
	// it was opened for. Both are kube-system namespace UIDs.
	Journal, Current string
}

func (e *ClusterMismatchError) Error() string {
	return fmt.Sprintf("%v: %s holds the intents of cluster %s (kube-system UID), but this process serves cluster %s; "+
		"nothing was changed. Mount this cluster's own journal, or, if this cluster replaced that one and its "+
		"intents were resolved, move the file aside to start a new journal",
		ErrWrongCluster, e.Path, e.Journal, e.Current)
}

// Unwrap makes errors.Is(err, ErrWrongCluster) hold.
func (e *ClusterMismatchError) Unwrap() error { return ErrWrongCluster }

// UnsettledError is returned by Begin when the UID has an unsettled intent.
type UnsettledError struct {
	Existing Intent
}

func (e *UnsettledError) Error() string {
	return fmt.Sprintf("%v: uid %s has intent %s in state %s (owner %s)",
		ErrUnsettled, e.Existing.Resource.UID, e.Existing.ID, e.Existing.State, e.Existing.Owner)
}

// Unwrap makes errors.Is(err, ErrUnsettled) hold.
func (e *UnsettledError) Unwrap() error { return ErrUnsettled }

// sentinels are the errors every returned error wraps one of.
var sentinels = []error{
	ErrCorrupt, ErrLocked, ErrClosed, ErrNotFound, ErrUnsettled, ErrStale, ErrInvalidTransition,
	ErrInvalid, ErrUnsupportedVersion, ErrWrongCluster, ErrReadOnly, ErrIO,
	context.Canceled, context.DeadlineExceeded,
}

// opError is the failure of one operation of the exported API, e.g.
// "settle <uid>". Its message says "journal:" once, however deep the
// sentinel it wraps: "journal: settle u1: not found: uid u1".
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string {
	return "journal: " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "journal: ")
}

func (e *opError) Unwrap() error { return e.err }

// wrapOp returns err, the failure of op, naming op. An error that wraps no
// sentinel (bbolt's or the operating system's, from the file itself) is
// wrapped in ErrIO as well, keeping it reachable with errors.Is and
// errors.As. wrapOp returns nil for nil.
func wrapOp(op string, err error) error {
	if err == nil {
		return nil
	}
	if !slices.ContainsFunc(sentinels, func(s error) bool { return errors.Is(err, s) }) {
		err = fmt.Errorf("%w: %w", ErrIO, err)
	}
	return &opError{op: op, err: err}
}
