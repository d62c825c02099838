package recovery

import (
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/recovery/report"
)

// timingFields are t as log fields, for the log line that ends a pass.
func timingFields(t report.Timings) []zap.Field {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return []zap.Field{
		zap.Duration("wall", r(t.Wall)), zap.Duration("discover", r(t.Discover)),
		zap.Duration("reads", r(t.Reads)), zap.Duration("lookups", r(t.Lookups)),
		zap.Duration("patches", r(t.Patches)), zap.Duration("settles", r(t.Settles)),
		zap.Int("read-count", t.ReadCount), zap.Int("lookup-count", t.LookupCount),
		zap.Int("patch-count", t.PatchCount), zap.Int("settle-count", t.SettleCount),
		zap.Int("cache-read-count", t.CacheReadCount), zap.Int("reread-count", t.RereadCount),
	}
}

// phase is one timed phase of a pass.
type phase int

const (
	phaseDiscover phase = iota
	phaseRead
	phaseLookup
	phasePatch
	phaseSettle
	numPhases
)

// counter is a count a pass keeps beside its phases.
type counter int

const (
	counterCacheRead counter = iota
	counterReread
	numCounters
)

// stopwatch sums the time a Resolver spends in each phase, across its
// workers. Its clock is Options.Now, so a test with a fixed clock sees
// zero times and the counts alone.
type stopwatch struct {
	now   func() time.Time
	nanos [numPhases]atomic.Int64
	count [numPhases]atomic.Int64
	other [numCounters]atomic.Int64
}

// tally counts one c.
func (s *stopwatch) tally(c counter) { s.other[c].Add(1) }

// since adds the time since start to p and counts one operation. A clock
// that stepped back counts as no time.
func (s *stopwatch) since(p phase, start time.Time) {
	s.add(p, s.now().Sub(start))
	s.count[p].Add(1)
}

// add adds d (when positive) to p without counting an operation.
func (s *stopwatch) add(p phase, d time.Duration) {
	if d > 0 {
		s.nanos[p].Add(int64(d))
	}
}

// snapshot returns the totals so far, with wall as Wall.
func (s *stopwatch) snapshot(wall time.Duration) report.Timings {
	get := func(p phase) time.Duration { return time.Duration(s.nanos[p].Load()) }
	n := func(p phase) int { return int(s.count[p].Load()) }
	return report.Timings{
		Wall: max(0, wall), Discover: get(phaseDiscover),
		Reads: get(phaseRead), ReadCount: n(phaseRead),
		Lookups: get(phaseLookup), LookupCount: n(phaseLookup),
		Patches: get(phasePatch), PatchCount: n(phasePatch),
		Settles: get(phaseSettle), SettleCount: n(phaseSettle),
		CacheReadCount: int(s.other[counterCacheRead].Load()), RereadCount: int(s.other[counterReread].Load()),
	}
}

// timingsSince returns t less an earlier snapshot of the same stopwatch:
// what happened between the two.
func timingsSince(t, before report.Timings) report.Timings {
	return report.Timings{
		Wall: t.Wall, Discover: t.Discover - before.Discover,
		Reads: t.Reads - before.Reads, ReadCount: t.ReadCount - before.ReadCount,
		Lookups: t.Lookups - before.Lookups, LookupCount: t.LookupCount - before.LookupCount,
		Patches: t.Patches - before.Patches, PatchCount: t.PatchCount - before.PatchCount,
		Settles: t.Settles - before.Settles, SettleCount: t.SettleCount - before.SettleCount,
		CacheReadCount: t.CacheReadCount - before.CacheReadCount, RereadCount: t.RereadCount - before.RereadCount,
	}
}
