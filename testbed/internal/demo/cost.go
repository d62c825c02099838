package demo

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// Cost is what a run with no kill (ModeNoKill, ModeUnwrappedNoKill) cost,
// from the provider's start to convergence: issue #34's cost of safety,
// the wrapped provider against unwrapped upjet when nothing crashes.
//
// CPU and PeakRSS are the provider process's, read in /proc the moment the
// run sees convergence, before the provider is stopped. CPU counts the
// children the provider waited for (a tofu per create on the v2-generated
// line); PeakRSS counts the provider alone.
//
// Requests are the API server's apiserver_request_total, by verb, between
// a scrape just before the provider starts (after the demo created the
// provider config and every MR, so the demo's own creates are not counted)
// and a scrape at convergence. The window also holds, the same in both
// modes: the demo's own confirmation LIST at convergence (one page per 500
// MRs of each kind, once more for each time the watch said converged and
// the list disagreed), and the API server's own requests, such as its
// lease renewals. Requests the provider makes through another server (the
// fake cloud) are not counted. The API server counts a WATCH when it ends,
// not when it starts: most of a provider's watches end after the window
// (the few in it are watches that restarted), so the WATCH count means
// little.
type Cost struct {
	// PerKind is how many MRs of each kind the run created, as
	// Result.PerKind.
	PerKind int
	// CPU is the provider's user and system CPU time, its waited-for
	// children's included.
	CPU time.Duration
	// PeakRSS is the provider's peak resident set (VmHWM), in bytes.
	PeakRSS int64
	// Requests counts the API server's requests in the window by API verb,
	// as RBAC names them but in upper case: GET, LIST, WATCH, CREATE,
	// UPDATE, PATCH, APPLY (a server-side apply), DELETE, DELETECOLLECTION,
	// ... The metric's verb label is the HTTP method (POST, PUT); the demo
	// names the API verb instead.
	Requests map[string]int64
	// RequestsByResource counts them by verb, then by resource as kubectl
	// names it ("recordsets.fakecloud.m.intentjournal.io/status", "events",
	// "leases.coordination.k8s.io"), so that writes to the managed
	// resources can be told apart from Events and leases.
	RequestsByResource map[string]map[string]int64
}

// WriteVerbs are the verbs of apiserver_request_total that change state.
var WriteVerbs = []string{"CREATE", "UPDATE", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION"}

// Creates returns how many MRs the run created, one external create each:
// 2×PerKind.
func (c Cost) Creates() int { return 2 * c.PerKind }

// CPUPerCreate returns CPU per MR created; zero when none was.
func (c Cost) CPUPerCreate() time.Duration {
	if c.Creates() <= 0 {
		return 0
	}
	return c.CPU / time.Duration(c.Creates())
}

// AllRequests returns the requests of every verb, WATCH included.
func (c Cost) AllRequests() int64 {
	var n int64
	for _, v := range c.Requests {
		n += v
	}
	return n
}

// Writes returns the requests of WriteVerbs.
func (c Cost) Writes() int64 {
	var n int64
	for _, v := range WriteVerbs {
		n += c.Requests[v]
	}
	return n
}

// RequestsPerCreate returns the requests of verb per MR created.
func (c Cost) RequestsPerCreate(verb string) float64 { return c.perCreate(c.Requests[verb]) }

// AllRequestsPerCreate returns AllRequests per MR created.
func (c Cost) AllRequestsPerCreate() float64 { return c.perCreate(c.AllRequests()) }

// WritesPerCreate returns Writes per MR created.
func (c Cost) WritesPerCreate() float64 { return c.perCreate(c.Writes()) }

func (c Cost) perCreate(n int64) float64 {
	if c.Creates() <= 0 {
		return 0
	}
	return float64(n) / float64(c.Creates())
}

// CostRatio is the wrapped provider's cost as a multiple of the unwrapped
// one's, both never killed. Issue #34's goals: ConvergeTime at most 1.05,
// CPUPerCreate at most 1.10, WritesPerCreate 1. They are figures to
// print, never to assert on: the machine's load moves them.
type CostRatio struct {
	ConvergeTime      float64
	CPUPerCreate      float64
	PeakRSS           float64
	RequestsPerCreate float64
	WritesPerCreate   float64
}

// CostRatios returns wrapped's cost as a multiple of unwrapped's. It is
// false unless both runs converged and have a Cost, and every figure of
// unwrapped's is positive.
func CostRatios(wrapped, unwrapped Result) (CostRatio, bool) {
	w, u := wrapped.Cost, unwrapped.Cost
	if w == nil || u == nil || !wrapped.Converged || !unwrapped.Converged {
		return CostRatio{}, false
	}
	if unwrapped.ConvergeTime <= 0 || u.CPUPerCreate() <= 0 || u.PeakRSS <= 0 || u.AllRequestsPerCreate() <= 0 || u.WritesPerCreate() <= 0 {
		return CostRatio{}, false
	}
	return CostRatio{
		ConvergeTime:      float64(wrapped.ConvergeTime) / float64(unwrapped.ConvergeTime),
		CPUPerCreate:      float64(w.CPUPerCreate()) / float64(u.CPUPerCreate()),
		PeakRSS:           float64(w.PeakRSS) / float64(u.PeakRSS),
		RequestsPerCreate: w.AllRequestsPerCreate() / u.AllRequestsPerCreate(),
		WritesPerCreate:   w.WritesPerCreate() / u.WritesPerCreate(),
	}, true
}

// sampleCost reads the provider's CPU and peak RSS and the API server's
// requests since r.requestsBefore, at convergence. The provider must still
// run: a provider that exited before the sample is an error of the run.
func (r *run) sampleCost(ctx context.Context) (*Cost, error) {
	exitErr := func(err error) error {
		return fmt.Errorf("the provider exited (%v) before its CPU and memory were sampled; the end of its log is logged above", err)
	}
	if exited, err := r.provider.exited(); exited {
		return nil, exitErr(err)
	}
	s, err := readProc(r.provider.pid())
	if err != nil {
		// A provider exiting as it was read leaves a /proc entry with no
		// memory, then none: that is the exit's error, not /proc's.
		if exited, werr := r.provider.exitedWithin(time.Second); exited {
			return nil, exitErr(werr)
		}
		return nil, fmt.Errorf("cannot sample the provider's cost: %w", err)
	}
	after, err := r.scrapeRequests(ctx)
	if err != nil {
		return nil, err
	}
	byVerb, byResource, err := requestDelta(r.requestsBefore, after)
	if err != nil {
		return nil, fmt.Errorf("cannot count the API requests since the provider's start: %w", err)
	}
	c := &Cost{PerKind: r.o.PerKind, CPU: s.CPU, PeakRSS: s.PeakRSS, Requests: byVerb, RequestsByResource: byResource}
	r.log.Info("Cost of the run with no kill",
		zap.Duration("cpu", c.CPU), zap.Int64("peak-rss", c.PeakRSS), zap.Any("requests", c.Requests),
		zap.Any("requests-by-resource", c.RequestsByResource))
	return c, nil
}
