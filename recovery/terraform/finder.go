package terraform

import (
	"context"
	"sync"
	"time"

	"github.com/intentjournal/intentjournal/recovery"
)

// Finder is a recovery.Finder over an Importer: concurrent Find calls are
// queued and resolved together, one batch per plan/apply, so a recovery pass
// with Concurrency 16 or more costs a few CLI runs instead of one per
// candidate. A batch runs when it reaches the batch size or when the linger
// time has passed since its first candidate.
type Finder struct {
	im *Importer

	mu    sync.Mutex
	queue *pendingBatch
}

var _ recovery.Finder = (*Finder)(nil)

// pendingBatch collects candidates until it runs.
type pendingBatch struct {
	cands   []*recovery.Candidate
	waiters []chan findResult
	// live counts waiters whose context is not done; the batch's context
	// is cancelled when it reaches zero.
	live   int
	cancel context.CancelFunc
	ctx    context.Context
	timer  *time.Timer
}

type findResult struct {
	res Result
	err error
}

// Finder returns the Importer's batching recovery.Finder.
func (im *Importer) Finder() *Finder {
	im.finderOnce.Do(func() { im.finder = &Finder{im: im} })
	return im.finder
}

// Find queues c and waits for its batch. It returns the resource found
// (imported when proven ours, never when foreign: recovery.Decide then
// reports the conflict), nothing when no object has the import ID, and an
// error when the lookup failed.
func (f *Finder) Find(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
	ch := make(chan findResult, 1)
	f.mu.Lock()
	b := f.queue
	if b == nil {
		bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		b = &pendingBatch{ctx: bctx, cancel: cancel}
		f.queue = b
		b.timer = time.AfterFunc(f.im.o.linger, func() { f.run(b) })
	}
	b.cands = append(b.cands, c)
	b.waiters = append(b.waiters, ch)
	b.live++
	full := len(b.cands) >= f.im.o.batchSize
	f.mu.Unlock()
	if full && b.timer.Stop() {
		go f.run(b)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return resultResources(r.res)
	case <-ctx.Done():
		f.mu.Lock()
		b.live--
		if b.live == 0 {
			b.cancel()
		}
		f.mu.Unlock()
		return nil, ctx.Err()
	}
}

// run detaches b from the queue and resolves it.
func (f *Finder) run(b *pendingBatch) {
	f.mu.Lock()
	if f.queue == b {
		f.queue = nil
	}
	f.mu.Unlock()
	defer b.cancel()
	results, err := f.im.ImportBatch(b.ctx, b.cands)
	for i, ch := range b.waiters {
		if err != nil {
			ch <- findResult{err: err}
			continue
		}
		ch <- findResult{res: results[i]}
	}
}

// resultResources converts a Result to a Finder's answer.
func resultResources(r Result) ([]recovery.ExternalResource, error) {
	switch r.Status {
	case StatusNotFound:
		return nil, nil
	case StatusError:
		return nil, r.Err
	default:
		if r.Resource == nil {
			return nil, nil
		}
		return []recovery.ExternalResource{*r.Resource}, nil
	}
}
