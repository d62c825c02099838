package main

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

// trackPriorityQueue is the providercmd.QueueWrapper of this line's
// controller-runtime: its controllers' priority queue, which holds one item
// per object, reports to t; a controller without one (UsePriorityQueue
// off) gets providercmd.TrackStandardQueue.
func trackPriorityQueue(t *providercmd.QueueTracker, controller string, rl providercmd.RateLimiter, inner providercmd.WorkQueue) providercmd.WorkQueue {
	pq, ok := inner.(priorityqueue.PriorityQueue[reconcile.Request])
	if !ok {
		return providercmd.TrackStandardQueue(t, controller, rl, inner)
	}
	return &trackedPriorityQueue{PriorityQueue: pq, q: t.Queue(controller, true)}
}

// trackedPriorityQueue is a priority queue that reports to a TrackedQueue.
// It stays a priorityqueue.PriorityQueue, so that controller-runtime and
// its event handlers keep passing priorities.
type trackedPriorityQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	q *providercmd.TrackedQueue
}

func (p *trackedPriorityQueue) Add(r reconcile.Request) {
	p.q.Added(r.NamespacedName)
	p.PriorityQueue.Add(r)
}

func (p *trackedPriorityQueue) AddAfter(r reconcile.Request, d time.Duration) {
	p.q.AddedAfter(r.NamespacedName, d)
	p.PriorityQueue.AddAfter(r, d)
}

func (p *trackedPriorityQueue) AddRateLimited(r reconcile.Request) {
	p.q.AddedRateLimited(r.NamespacedName)
	p.PriorityQueue.AddRateLimited(r)
}

// AddWithOpts records each item as the queue takes it: rate limited, after
// a delay, or now.
func (p *trackedPriorityQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	for _, r := range items {
		switch {
		case o.RateLimited:
			p.q.AddedRateLimited(r.NamespacedName)
		case o.After > 0:
			p.q.AddedAfter(r.NamespacedName, o.After)
		default:
			p.q.Added(r.NamespacedName)
		}
	}
	p.PriorityQueue.AddWithOpts(o, items...)
}

func (p *trackedPriorityQueue) Get() (reconcile.Request, bool) {
	r, _, shutdown := p.GetWithPriority()
	return r, shutdown
}

func (p *trackedPriorityQueue) GetWithPriority() (reconcile.Request, int, bool) {
	r, priority, shutdown := p.PriorityQueue.GetWithPriority()
	if !shutdown {
		p.q.HandedOut(r.NamespacedName)
	}
	return r, priority, shutdown
}

func (p *trackedPriorityQueue) Done(r reconcile.Request) {
	p.q.Done(r.NamespacedName)
	p.PriorityQueue.Done(r)
}
