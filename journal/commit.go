package journal

import (
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// Group commit.
//
// Writes queue in arrival order. The writer at the front of the queue is the
// leader: on its own goroutine it takes every write queued behind it (up to
// MaxBatch), applies them all in one bbolt read-write transaction and commits
// it, one pair of fdatasyncs for the whole group, then answers each writer
// and hands leadership to the writer now at the front, if any. This is the
// writer queue of LevelDB's DBImpl::Write. It never waits on a timer: a lone
// writer becomes leader at once and commits its own write on its own
// goroutine, costing what a plain db.Update costs; while one group's fsync
// is in flight, the next group gathers, and its leader commits the moment
// the previous commit returns.
//
// A write function may refuse its own write by returning reject(err) before
// it writes anything: only that caller gets the error and the group
// commits. Any other error aborts the transaction; the failing write gets
// its error and the others are retried one by one, so one bad write never
// sinks its neighbours. A failed commit (e.g. ENOSPC) fails every write in
// the group; bbolt has rolled the transaction back, so nothing of it is on
// disk.

// writeFn applies one write inside a read-write transaction.
type writeFn func(*bolt.Tx) error

// request is one queued write.
type request struct {
	fn   writeFn
	done chan result // buffered: holds the one message the writer gets next
}

// result answers a request: either its outcome, or the lead token that
// makes its writer the leader of the next group.
type result struct {
	err  error
	lead bool
}

// rejection marks an error returned by a writeFn that wrote nothing.
type rejection struct{ err error }

func (r *rejection) Error() string { return r.err.Error() }
func (r *rejection) Unwrap() error { return r.err }

// reject wraps err so the committer fails only this write.
func reject(err error) error { return &rejection{err: err} }

// write queues fn and waits until its group has committed and fsynced.
// If ctx ends first, write returns an error saying the write may still
// commit: callers must then treat the outcome as unknown (and so dispatch
// nothing).
func (j *Journal) write(ctx context.Context, fn writeFn) error {
	if j.opts.readOnly {
		return ErrReadOnly
	}
	r := &request{fn: fn, done: make(chan result, 1)}
	j.qmu.Lock()
	if j.closed.Load() {
		j.qmu.Unlock()
		return ErrClosed
	}
	j.inflight.Add(1)
	j.pending = append(j.pending, r)
	lead := !j.leading
	j.leading = true
	j.qmu.Unlock()
	if lead {
		j.lead()
	}
	for {
		select {
		case res := <-r.done:
			if res.lead {
				j.lead()
				continue
			}
			return res.err
		case <-ctx.Done():
			// The write stays queued. Someone must still take the lead
			// token if it comes this way, or the queue would stall.
			go func() {
				for res := range r.done {
					if !res.lead {
						return
					}
					j.lead()
				}
			}()
			return fmt.Errorf("gave up waiting for the commit, which may still happen: %w", ctx.Err())
		}
	}
}

// lead commits the group at the front of the queue and passes the lead on.
func (j *Journal) lead() {
	j.qmu.Lock()
	n := min(len(j.pending), j.opts.maxBatch)
	batch := make([]*request, n)
	copy(batch, j.pending)
	j.pending = append(j.pending[:0], j.pending[n:]...)
	j.qmu.Unlock()

	j.commit(batch)

	j.qmu.Lock()
	if len(j.pending) == 0 {
		j.leading = false
		j.qmu.Unlock()
		return
	}
	next := j.pending[0]
	j.qmu.Unlock()
	next.done <- result{lead: true}
}

// answer sends r its outcome.
func (j *Journal) answer(r *request, err error) {
	r.done <- result{err: err}
	j.inflight.Done()
}

// commit applies batch in one transaction and answers every request.
func (j *Journal) commit(batch []*request) {
	results := make([]error, len(batch))
	failed := -1
	start := time.Now()
	err := guard(j.path, func() error {
		return j.db.Update(func(tx *bolt.Tx) error {
			for i, r := range batch {
				err := r.fn(tx)
				var rej *rejection
				switch {
				case err == nil:
				case errors.As(err, &rej):
					results[i] = rej.err
				default:
					failed = i
					return err
				}
			}
			if j.testHookBeforeCommit != nil {
				return j.testHookBeforeCommit()
			}
			return nil
		})
	})
	took := time.Since(start)
	j.opts.observer(took, len(batch), err)
	if took > j.opts.slowCommit {
		j.log.Warn("slow journal commit", zap.Duration("took", took), zap.Int("writes", len(batch)), zap.Error(err))
	}
	switch {
	case err == nil:
		for i, r := range batch {
			j.answer(r, results[i])
		}
	case failed >= 0 && len(batch) > 1:
		// One write failed mid-transaction: everything was rolled back.
		// Fail that one and retry the others alone.
		j.answer(batch[failed], fmt.Errorf("commit: %w", err))
		for i, r := range batch {
			if i != failed {
				j.commit([]*request{r})
			}
		}
	default:
		err = fmt.Errorf("commit: %w", err)
		for _, r := range batch {
			j.answer(r, err)
		}
	}
}
