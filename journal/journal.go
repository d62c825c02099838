package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/zap"
)

// Bucket names and the meta keys. Changing them is a format change.
var (
	bucketMeta       = []byte("meta")
	bucketIntents    = []byte("intents")
	bucketQuarantine = []byte("quarantine")
	keyFormat        = []byte("format")
	keyCluster       = []byte("cluster")
)

// fileFormat is the journal file format recorded in the meta bucket.
const fileFormat = "intentjournal/v1"

// scanPage is how many keys one read transaction visits while iterating.
// Short read transactions keep bbolt free to remap the file for writers,
// and bound the memory an iterator holds to one page.
const scanPage = 512

// Journal is a durable store of create intents in one bbolt file. It is safe
// for concurrent use. Writes from concurrent goroutines share fsyncs through
// a group commit (see commit.go); every write has reached stable storage when
// its method returns nil.
type Journal struct {
	db   *bolt.DB
	path string
	opts options
	log  *zap.Logger

	// Group commit state (see commit.go). qmu guards pending and leading;
	// inflight counts queued writes not yet answered, so Close can wait.
	qmu      sync.Mutex
	pending  []*request
	leading  bool
	inflight sync.WaitGroup
	closed   atomic.Bool
	once     sync.Once
	errCl    error

	// testHookBeforeCommit, when set, runs inside every write transaction
	// after its writes and before bbolt commits it. Tests use it to inject
	// a failure at the last moment.
	testHookBeforeCommit func() error
}

// Open opens or creates the journal at path and takes its exclusive file
// lock. If another process holds the lock, Open waits at most the lock
// timeout (WithLockTimeout) and then returns a *LockedError. A file that is
// not a journal, or whose bbolt meta pages are both damaged, gives a
// *CorruptError; the file is left untouched. Close releases the lock.
func Open(path string, opts ...Option) (*Journal, error) {
	o := defaultOptions()
	for _, fn := range opts {
		fn(&o)
	}
	if path == "" {
		return nil, fmt.Errorf("%w: journal path is empty", ErrInvalid)
	}
	start := time.Now()
	if o.readOnly {
		// bbolt initialises an empty file even when asked for read-only
		// access, and fails obscurely: say what is wrong instead.
		if fi, err := os.Stat(path); err == nil && fi.Size() == 0 {
			return nil, &CorruptError{Reason: fmt.Sprintf("open %s: the file is empty: not a journal", path)}
		}
	}
	var db *bolt.DB
	err := guard(path, func() error {
		var err error
		db, err = bolt.Open(path, o.fileMode, &bolt.Options{
			Timeout:  o.lockTimeout,
			ReadOnly: o.readOnly,
		})
		return err
	})
	if err != nil {
		return nil, openError(path, err)
	}
	j := &Journal{
		db:   db,
		path: path,
		opts: o,
		log:  o.logger.With(zap.String("journal", path)),
	}
	records, quarantined, err := j.init()
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if !o.readOnly {
		j.writeHolder()
	}
	j.log.Info("journal opened",
		zap.Bool("read-only", o.readOnly),
		zap.Int("records", records),
		zap.Int("quarantined", quarantined),
		zap.Duration("took", time.Since(start)))
	return j, nil
}

// openError maps bbolt's open errors to the journal's sentinels.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return &LockedError{Path: path, Holder: readHolder(path)}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, ErrCorrupt):
		return &CorruptError{Reason: fmt.Sprintf("open %s: %v (the file is not a usable journal; it was not modified)", path, err)}
	case strings.Contains(err.Error(), "file size too small"):
		return &CorruptError{Reason: fmt.Sprintf("open %s: %v (truncated file; it was not modified)", path, err)}
	}
	return wrapOp("open "+path, err)
}

// init creates the buckets of a new journal, checks the format of an
// existing one and counts its records.
func (j *Journal) init() (records, quarantined int, err error) {
	check := func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			if !tx.Writable() {
				return &CorruptError{Reason: fmt.Sprintf("%s has no %q bucket: not an intentjournal journal", j.path, bucketMeta)}
			}
			var err error
			if meta, err = tx.CreateBucket(bucketMeta); err != nil {
				return err
			}
			if err := meta.Put(keyFormat, []byte(fileFormat)); err != nil {
				return err
			}
		}
		if f := string(meta.Get(keyFormat)); f != fileFormat {
			if strings.HasPrefix(f, "intentjournal/") {
				return fmt.Errorf("%w: %s has file format %q, this build reads %q", ErrUnsupportedVersion, j.path, f, fileFormat)
			}
			return &CorruptError{Reason: fmt.Sprintf("%s has file format %q: not an intentjournal journal", j.path, f)}
		}
		if err := j.bindCluster(meta); err != nil {
			return err
		}
		for _, name := range [][]byte{bucketIntents, bucketQuarantine} {
			b := tx.Bucket(name)
			if b == nil && tx.Writable() {
				var err error
				if b, err = tx.CreateBucket(name); err != nil {
					return err
				}
			}
			if b == nil {
				return &CorruptError{Reason: fmt.Sprintf("%s has no %q bucket", j.path, name)}
			}
		}
		records = tx.Bucket(bucketIntents).Stats().KeyN
		quarantined = tx.Bucket(bucketQuarantine).Stats().KeyN
		return nil
	}
	err = guard(j.path, func() error {
		if j.opts.readOnly {
			return j.db.View(check)
		}
		return j.db.Update(check)
	})
	// Errors that name the file already are returned as they are, so the
	// message does not stutter ("journal: initialise ...: journal: ...").
	var mismatch *ClusterMismatchError
	if errors.As(err, &mismatch) {
		return 0, 0, mismatch
	}
	var corrupt *CorruptError
	if errors.As(err, &corrupt) {
		return 0, 0, corrupt
	}
	if err != nil {
		return 0, 0, wrapOp("initialise "+j.path, err)
	}
	return records, quarantined, nil
}

// bindCluster checks the journal's cluster against WithCluster's, and
// records it in a journal that has none yet (when writable). A mismatch
// fails the open's transaction, so nothing is written.
func (j *Journal) bindCluster(meta *bolt.Bucket) error {
	want := j.opts.cluster
	if want == "" {
		return nil
	}
	have := string(meta.Get(keyCluster))
	switch {
	case have == want:
		return nil
	case have != "":
		return &ClusterMismatchError{Path: j.path, Journal: have, Current: want}
	case !meta.Tx().Writable():
		return nil
	}
	if len(want) > maxFieldSize {
		return fmt.Errorf("%w: cluster identity is %d bytes, at most %d", ErrInvalid, len(want), maxFieldSize)
	}
	j.log.Info("journal bound to cluster", zap.String("cluster", want))
	return meta.Put(keyCluster, []byte(want))
}

// Cluster returns the cluster the journal is bound to (see WithCluster),
// or "" when it is bound to none.
func (j *Journal) Cluster() (string, error) {
	if j.closed.Load() {
		return "", ErrClosed
	}
	var id string
	err := j.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketMeta); b != nil {
			id = string(b.Get(keyCluster))
		}
		return nil
	})
	if err != nil {
		return "", wrapOp("read cluster of "+j.path, err)
	}
	return id, nil
}

// holderPath is the file beside the journal naming the process that holds it.
func holderPath(path string) string { return path + ".holder" }

func (j *Journal) writeHolder() {
	h := j.opts.holder
	if h == "" {
		host, _ := os.Hostname()
		h = fmt.Sprintf("pid %d on host %s", os.Getpid(), host)
	}
	h = fmt.Sprintf("%s since %s", h, j.opts.now().UTC().Format(time.RFC3339))
	// Best effort: the holder file only improves an error message.
	if err := os.WriteFile(holderPath(j.path), []byte(h+"\n"), 0o600); err != nil {
		j.log.Warn("cannot write journal holder file", zap.Error(err))
	}
}

func readHolder(path string) string {
	b, err := os.ReadFile(holderPath(path))
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 256 {
		s = s[:256]
	}
	return s
}

// Path returns the journal's file path.
func (j *Journal) Path() string { return j.path }

// Close waits for queued writes to commit, then releases the file lock.
// Writes that arrive after Close began return ErrClosed. Close is
// idempotent.
func (j *Journal) Close() error {
	j.once.Do(func() {
		j.qmu.Lock()
		j.closed.Store(true)
		j.qmu.Unlock()
		j.inflight.Wait()
		if !j.opts.readOnly {
			_ = os.Remove(holderPath(j.path))
		}
		if err := j.db.Close(); err != nil {
			j.errCl = wrapOp("close "+j.path, err)
			return
		}
		j.log.Info("journal closed")
	})
	return j.errCl
}

// Begin durably records that an external create for in.Resource is about to
// start. When Begin returns nil the intent is committed and fsynced: a crash
// at any later moment leaves it for recovery to find. Call Begin before
// dispatching the create, never after; if it returns an error, dispatch
// nothing.
//
// Begin fills in the ID (when zero), State (pending), Attempt and the
// timestamps, and returns the intent as stored. It refuses with an
// *UnsettledError when the UID already has an unsettled intent, and with a
// *CorruptError when the UID's record is corrupt or quarantined: in both
// cases what the earlier create did is unknown, so creating again could
// duplicate it.
func (j *Journal) Begin(ctx context.Context, in Intent) (Intent, error) {
	now := j.opts.now()
	in = Stamp(in, now, 0)
	if err := in.validate(); err != nil {
		return Intent{}, err
	}
	key := []byte(in.Resource.UID)
	// Encode on the caller's goroutine for the common case, a UID with no
	// record yet, so the commit leader only checks and Puts: encoding in
	// the commit path would serialise it across every concurrent writer.
	fresh, err := EncodeRecord(in)
	if err != nil {
		return Intent{}, wrapOp(fmt.Sprintf("begin %s", in.Resource), err)
	}
	err = j.write(ctx, func(tx *bolt.Tx) error {
		if raw := tx.Bucket(bucketQuarantine).Get(key); raw != nil {
			return reject(&CorruptError{Key: in.Resource.UID, Reason: "the uid has a quarantined record; resolve it before creating again"})
		}
		raw := tx.Bucket(bucketIntents).Get(key)
		if raw == nil {
			return tx.Bucket(bucketIntents).Put(key, fresh)
		}
		prev, err := DecodeRecord(key, raw)
		if err != nil {
			return reject(err)
		}
		if prev.Unsettled() {
			return reject(&UnsettledError{Existing: prev})
		}
		in = Stamp(in, now, prev.Attempt)
		return putRecord(tx, in)
	})
	if err != nil {
		return Intent{}, wrapOp(fmt.Sprintf("begin %s", in.Resource), err)
	}
	j.log.Debug("intent begun", zap.Stringer("intent-id", in.ID), zap.Stringer("resource", in.Resource), zap.Int("attempt", in.Attempt))
	return in, nil
}

// MarkDispatched durably records that the create of intent id has been
// handed to the cloud (or to the goroutine that calls it). After a crash,
// a dispatched intent may have created something; a pending one was at most
// about to. Marking an already dispatched intent again is a no-op.
//
// The adapter does not call it: upjet's async Create hands the create to
// its goroutine at once, so its intents go from pending to settled, and
// recovery treats a pending intent as possibly created. It is for a caller
// whose create is handed off in a step of its own.
func (j *Journal) MarkDispatched(ctx context.Context, uid string, id ID) error {
	_, err := j.update(ctx, uid, id, func(cur *Intent, now time.Time) (bool, error) {
		switch cur.State {
		case StateDispatched:
			return false, nil
		case StatePending:
			cur.State = StateDispatched
			cur.DispatchedAt = now
			return true, nil
		}
		return false, fmt.Errorf("%w: %s -> %s", ErrInvalidTransition, cur.State, StateDispatched)
	})
	if err != nil {
		return wrapOp("mark dispatched "+uid, err)
	}
	return nil
}

// Settle durably records the outcome of intent id and moves it to
// o.State. Settling again with the same state and external name is a no-op
// that returns the stored intent, so retries after a crash are safe. An
// empty o.ExternalName keeps the external name recorded earlier.
func (j *Journal) Settle(ctx context.Context, uid string, id ID, o Settlement) (Intent, error) {
	o.Message = truncateMessage(o.Message)
	if !o.State.Valid() || o.State == StatePending || o.State == StateDispatched {
		return Intent{}, wrapOp("settle "+uid, fmt.Errorf("%w: cannot settle to %q", ErrInvalidTransition, o.State))
	}
	out, err := j.update(ctx, uid, id, func(cur *Intent, _ time.Time) (bool, error) {
		en := o.ExternalName
		if en == "" {
			en = cur.Outcome.ExternalName
		}
		if cur.State == o.State && cur.Outcome.ExternalName == en {
			return false, nil
		}
		if !canTransition(cur.State, o.State) {
			return false, fmt.Errorf("%w: %s -> %s", ErrInvalidTransition, cur.State, o.State)
		}
		cur.State = o.State
		cur.Outcome = Settlement{ExternalName: en, ErrorClass: o.ErrorClass, Message: o.Message, Reason: o.Reason}
		return true, nil
	})
	if err != nil {
		return Intent{}, wrapOp("settle "+uid, err)
	}
	j.log.Debug("intent settled", zap.Stringer("intent-id", id), zap.String("uid", uid), zap.String("state", string(out.State)))
	return out, nil
}

// update applies change to the current intent for uid, which must have ID
// id, and commits it when change reports a modification.
func (j *Journal) update(ctx context.Context, uid string, id ID, change func(cur *Intent, now time.Time) (bool, error)) (Intent, error) {
	key := []byte(uid)
	// apply decodes raw, checks it is intent id, applies change and
	// returns the new value to store (nil when nothing changed).
	apply := func(raw []byte) (Intent, []byte, error) {
		if raw == nil {
			return Intent{}, nil, fmt.Errorf("%w: uid %s", ErrNotFound, uid)
		}
		cur, err := DecodeRecord(key, raw)
		if err != nil {
			return Intent{}, nil, err
		}
		if cur.ID != id {
			return Intent{}, nil, fmt.Errorf("%w: uid %s has intent %s, not %s", ErrStale, uid, cur.ID, id)
		}
		now := j.opts.now().UTC()
		changed, err := change(&cur, now)
		if err != nil || !changed {
			return cur, nil, err
		}
		cur.UpdatedAt = now
		v, err := EncodeRecord(cur)
		return cur, v, err
	}
	// Optimistically decode, change and encode on the caller's goroutine,
	// from a short read transaction; the commit leader then only compares
	// the stored bytes with what was read and Puts. If another write got
	// there first, the change is recomputed inside the transaction.
	var seen []byte
	if err := j.view(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketIntents).Get(key); v != nil {
			seen = append([]byte(nil), v...)
		}
		return nil
	}); err != nil {
		return Intent{}, err
	}
	guess, guessVal, guessErr := apply(seen)
	var out Intent
	err := j.write(ctx, func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketIntents).Get(key)
		in, v, err := guess, guessVal, guessErr
		if !bytes.Equal(raw, seen) || (raw == nil) != (seen == nil) {
			in, v, err = apply(raw)
		}
		if err != nil {
			return reject(err)
		}
		out = in
		if v == nil {
			return nil
		}
		return tx.Bucket(bucketIntents).Put(key, v)
	})
	return out, err
}

func putRecord(tx *bolt.Tx, in Intent) error {
	v, err := EncodeRecord(in)
	if err != nil {
		return reject(err)
	}
	return tx.Bucket(bucketIntents).Put([]byte(in.Resource.UID), v)
}

// Get returns the current intent for uid, or ErrNotFound. A corrupt record
// is moved to quarantine (on a writable journal) and reported as a
// *CorruptError.
func (j *Journal) Get(ctx context.Context, uid string) (Intent, error) {
	if j.closed.Load() {
		return Intent{}, ErrClosed
	}
	key := []byte(uid)
	var (
		in  Intent
		raw []byte
	)
	err := j.view(func(tx *bolt.Tx) error {
		if q := tx.Bucket(bucketQuarantine).Get(key); q != nil {
			return quarantinedError(key, q)
		}
		v := tx.Bucket(bucketIntents).Get(key)
		if v == nil {
			return fmt.Errorf("%w: uid %s", ErrNotFound, uid)
		}
		var err error
		if in, err = DecodeRecord(key, v); err != nil {
			raw = append([]byte(nil), v...)
		}
		return err
	})
	if errors.Is(err, ErrCorrupt) && raw != nil {
		j.quarantine(ctx, key, raw, err)
	}
	if err != nil {
		return Intent{}, wrapOp("get "+uid, err)
	}
	return in, nil
}

// Unsettled returns an iterator over every intent that is not terminal, in
// UID order. It first yields a *CorruptError for each quarantined record:
// what those creates did is unknown, so recovery must treat them as
// unresolved. A corrupt record met during the scan is quarantined (on a
// writable journal) and yielded as a *CorruptError; iteration goes on.
//
// The iterator streams: it holds no transaction while the caller's loop body
// runs, and at most one page of records in memory, so the loop body may call
// Settle and other writes. Records written during iteration may or may not
// be seen. A context error ends the iteration with that error.
func (j *Journal) Unsettled(ctx context.Context) iter.Seq2[Intent, error] {
	return func(yield func(Intent, error) bool) {
		if !j.scan(ctx, bucketQuarantine, nil, true, yield) {
			return
		}
		j.scan(ctx, bucketIntents, Intent.Unsettled, true, yield)
	}
}

// All returns an iterator over every record, quarantined ones first (as
// *CorruptError), then the rest in UID order. It streams like Unsettled.
func (j *Journal) All(ctx context.Context) iter.Seq2[Intent, error] {
	return func(yield func(Intent, error) bool) {
		if !j.scan(ctx, bucketQuarantine, nil, true, yield) {
			return
		}
		j.scan(ctx, bucketIntents, nil, true, yield)
	}
}

type scanned struct {
	key []byte
	in  Intent
	err error
	raw []byte // the raw value of a corrupt record, to quarantine
}

// scan visits bucket page by page and yields the records that match keep,
// quarantining corrupt ones when move is set. It returns false when the
// caller stopped or the scan failed.
func (j *Journal) scan(ctx context.Context, bucket []byte, keep func(Intent) bool, move bool, yield func(Intent, error) bool) bool {
	var after []byte
	for {
		if j.closed.Load() {
			yield(Intent{}, ErrClosed)
			return false
		}
		if err := ctx.Err(); err != nil {
			yield(Intent{}, wrapOp("scan", err))
			return false
		}
		page := make([]scanned, 0, 64)
		var visited int
		err := j.view(func(tx *bolt.Tx) error {
			c := tx.Bucket(bucket).Cursor()
			k, v := c.First()
			if after != nil {
				k, v = c.Seek(after)
				if k != nil && string(k) == string(after) {
					k, v = c.Next()
				}
			}
			for ; k != nil && visited < scanPage; k, v = c.Next() {
				visited++
				key := append([]byte(nil), k...)
				after = key
				if string(bucket) == string(bucketQuarantine) {
					page = append(page, scanned{key: key, err: quarantinedError(key, v)})
					continue
				}
				in, err := DecodeRecord(k, v)
				switch {
				case errors.Is(err, ErrCorrupt):
					page = append(page, scanned{key: key, err: err, raw: append([]byte(nil), v...)})
				case err != nil:
					page = append(page, scanned{key: key, err: err})
				case keep == nil || keep(in):
					page = append(page, scanned{key: key, in: in})
				}
			}
			return nil
		})
		if err != nil {
			yield(Intent{}, wrapOp("scan", err))
			return false
		}
		for _, s := range page {
			if s.raw != nil && move {
				j.quarantine(ctx, s.key, s.raw, s.err)
			}
			if !yield(s.in, s.err) {
				return false
			}
		}
		if visited < scanPage {
			return true
		}
	}
}

func quarantinedError(key, raw []byte) error {
	_, err := DecodeRecord(key, raw)
	reason := "quarantined"
	if err != nil {
		reason = "quarantined: " + strings.TrimPrefix(err.Error(), ErrCorrupt.Error()+": ")
	}
	return &CorruptError{Key: string(key), Reason: reason}
}

// quarantine moves a corrupt record's bytes out of the intents bucket so it
// stops failing every scan, keeping them for inspection and for Begin to
// refuse the UID. Failure to quarantine is logged, not returned: the record
// stays where it was and is reported again next time.
func (j *Journal) quarantine(ctx context.Context, key, raw []byte, cause error) {
	if j.opts.readOnly {
		return
	}
	err := j.write(ctx, func(tx *bolt.Tx) error {
		cur := tx.Bucket(bucketIntents).Get(key)
		if cur == nil || string(cur) != string(raw) {
			return nil // rewritten or removed meanwhile
		}
		if err := tx.Bucket(bucketQuarantine).Put(key, raw); err != nil {
			return err
		}
		return tx.Bucket(bucketIntents).Delete(key)
	})
	if err != nil {
		j.log.Warn("cannot quarantine corrupt record", zap.String("uid", string(key)), zap.Error(err))
		return
	}
	j.log.Warn("corrupt record quarantined", zap.String("uid", string(key)), zap.NamedError("cause", cause))
}

// Release removes the quarantined record of uid, once recovery or an
// operator has resolved what its create did. It is a no-op when there is
// none.
func (j *Journal) Release(ctx context.Context, uid string) error {
	err := j.write(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket(bucketQuarantine).Delete([]byte(uid))
	})
	if err != nil {
		return wrapOp("release "+uid, err)
	}
	j.log.Info("quarantined record released", zap.String("uid", uid))
	return nil
}

// Compact deletes terminal records last updated before now minus
// retention, and returns how many it deleted. Unsettled records are never
// deleted. Deletes are committed in batches, so Compact may be interrupted
// at any point and run again.
func (j *Journal) Compact(ctx context.Context, retention time.Duration) (int, error) {
	cutoff := j.opts.now().Add(-retention)
	var (
		keys    [][]byte
		deleted int
	)
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		batch := keys
		keys = nil
		n := 0
		err := j.write(ctx, func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketIntents)
			for _, k := range batch {
				// Re-check under the write transaction: the record may
				// have been begun again since the scan.
				in, err := DecodeRecord(k, b.Get(k))
				if err != nil || !in.State.Terminal() || !in.UpdatedAt.Before(cutoff) {
					continue
				}
				if err := b.Delete(k); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		deleted += n
		return err
	}
	for in, err := range j.scanAll(ctx) {
		if err != nil {
			if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupportedVersion) {
				continue
			}
			return deleted, wrapOp("compact", err)
		}
		if in.State.Terminal() && in.UpdatedAt.Before(cutoff) {
			keys = append(keys, []byte(in.Resource.UID))
			if len(keys) >= scanPage {
				if err := flush(); err != nil {
					return deleted, wrapOp("compact", err)
				}
			}
		}
	}
	if err := flush(); err != nil {
		return deleted, wrapOp("compact", err)
	}
	j.log.Info("journal compacted", zap.Int("deleted", deleted), zap.Duration("retention", retention))
	return deleted, nil
}

// scanAll iterates the intents bucket only.
func (j *Journal) scanAll(ctx context.Context) iter.Seq2[Intent, error] {
	return func(yield func(Intent, error) bool) { j.scan(ctx, bucketIntents, nil, true, yield) }
}

// view runs fn in a read transaction, turning a bbolt panic or memory fault
// on a damaged file into a *CorruptError.
func (j *Journal) view(fn func(*bolt.Tx) error) error {
	err := guard(j.path, func() error { return j.db.View(fn) })
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// guard runs fn, converting a panic or a memory fault (SIGBUS on a
// truncated mmap) inside bbolt into a *CorruptError so that bad bytes on
// disk are an error, never a crash.
func guard(path string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = &CorruptError{Reason: fmt.Sprintf("bbolt failed reading %s: %v", path, r)}
		}
	}()
	return fn()
}
