// Package journal is intentjournal's durable record of external creates: a
// create intent is written and fsynced before an asynchronous create is
// dispatched, its outcome is recorded when the create ends, and a restarted
// provider finds every intent that never reached a terminal state.
//
// The package owns the on-disk records and the managed-resource annotation
// codec. It imports only bbolt, zap and the standard library, so adapters for
// any crossplane-runtime or upjet major version can sit beside it.
//
// # Durability contract
//
// Every write (Begin, MarkDispatched, Settle, Release, Compact) returns nil
// only after its bbolt transaction has committed, which on Linux means the
// data pages and then the meta page were written and fdatasync'd. There is
// no option to skip fsync. Concurrent writes share commits (see commit.go):
// sharing changes how many fsyncs happen, never what is on disk when a call
// returns.
//
// What a crash leaves, for a provider that calls Begin, then dispatches the
// create, then MarkDispatched, then Settle:
//
//	crash during Begin              no intent, or a pending one; nothing was dispatched
//	crash after Begin returned      a pending intent; the create may or may not have started
//	crash after MarkDispatched      a dispatched intent; the create may have happened
//	crash after Settle(succeeded)   a succeeded intent with the external name
//	crash after Settle(settled)     nothing to do
//
// bbolt never exposes a half-committed transaction: a torn write leaves the
// previous meta page in force. A write whose commit failed (ENOSPC, EIO) is
// rolled back and its caller gets the error, so a failed Begin leaves no
// record and the caller must dispatch nothing.
//
// # Record format
//
// A journal is one bbolt file with three buckets:
//
//	meta        "format" -> "intentjournal/v1"
//	intents     resource UID -> record value (the current intent for that UID)
//	quarantine  resource UID -> raw bytes of a record that failed to decode
//
// A record value is a frame:
//
//	offset 0     1 byte   frame version (1)
//	offset 1     4 bytes  CRC-32C (Castagnoli), big-endian, over byte 0 and the payload
//	offset 5     n bytes  payload: the Intent as JSON, with "schemaVersion": 1
//
// bbolt checksums only its meta pages, so the frame CRC is what detects a
// damaged value. A value that fails its CRC, does not parse, or names a UID
// other than its key is corrupt: reads report a *CorruptError with the key
// and move the bytes to the quarantine bucket, and every other record stays
// readable. A value with a valid CRC but an unknown frame or schema version
// is not corrupt: it is reported with ErrUnsupportedVersion and left alone.
// Decoders ignore unknown JSON fields, so minor versions add fields freely.
//
// # State machine
//
//	pending -> dispatched -> succeeded(external name) -> settled
//	                      \-> failed(error class, message) -> settled
//
// Pending, dispatched, succeeded and failed are unsettled. Recovery ends any
// unsettled intent in one of its terminal outcomes: cleared (nothing was
// created), adopted (the resource was found and proven ours) or reported
// (undecidable, or not ours). Settled, cleared, adopted and reported are
// terminal. Begin refuses a UID whose intent is unsettled or quarantined:
// what the earlier create did is unknown, and creating again is exactly how
// duplicates happen.
//
// # Annotation
//
// EncodeAnnotation and DecodeAnnotation convert an intent to and from the
// value of the intentjournal.io/create-intent annotation: compact JSON with
// a major version "v", at most MaxAnnotationSize bytes, holding no error
// messages and no secret values. Without a journal (annotation-only mode)
// the annotation is the record; its guarantee is weaker because it is
// written after the create is dispatched (see docs/design.md).
//
// # Caveats
//
//   - One process at a time: bbolt takes an exclusive flock. Open waits at
//     most the lock timeout, then returns a *LockedError naming the holder.
//   - Reads of a damaged file are guarded: bbolt panics and memory faults
//     (a truncated mmap) become a *CorruptError, never a crash.
//   - Records are small (at most MaxRecordSize); error messages are cut at
//     MaxMessageSize. Callers must not put secret values in any field.
package journal
