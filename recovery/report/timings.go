package report

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Timings say where a recovery pass spent its time, so that a slow pass
// explains itself (a pass that adopts 8 intents a second where the
// benchmark resolves 300 is slow somewhere; these name where).
//
// Wall is the pass's elapsed time. Discover is spent by the one goroutine
// that scans; the other phases are spent by the Policy.Concurrency workers
// at once, and each is summed over them: with several workers a phase may
// exceed Wall, and a phase's time divided by Wall is about how many workers
// were in it on average. Each phase time includes its retries and their
// backoff. Events and orphan deletions are not timed.
//
// A report carries Timings when a pass made it (Resolver.Run); a report
// built otherwise, or by a build before timings, has none.
type Timings struct {
	// Wall runs from the start of the pass to its report.
	Wall time.Duration
	// Discover is the time spent scanning the journal and listing the
	// managed kinds for candidates, without the time spent waiting for a
	// free worker to take one.
	Discover time.Duration
	// Reads is the time spent reading the managed resources of journal
	// candidates, and ReadCount how many were read: from the API server
	// (a GET), or from the provider's cache (Options.Reader).
	Reads     time.Duration
	ReadCount int
	// CacheReadCount is how many of the reads the cache served, and
	// RereadCount how many decisions were made again from a live read
	// because the cached copy they were made from proved stale.
	CacheReadCount, RereadCount int
	// Lookups is the time spent in Finder calls, rate-limiter waits
	// included, and LookupCount how many candidates were looked up.
	Lookups     time.Duration
	LookupCount int
	// Patches is the time spent writing decisions to managed resources
	// (adopt, clear, pause: a PATCH, re-read and retried on a conflict),
	// and PatchCount how many were written.
	Patches    time.Duration
	PatchCount int
	// Settles is the time spent recording outcomes in the journal (a read
	// and a group-committed write, fsync included), and SettleCount how
	// many were recorded.
	Settles     time.Duration
	SettleCount int
}

// timingsJSON is the JSON form of Timings: whole milliseconds, and counts.
type timingsJSON struct {
	WallMs     int64 `json:"wallMs"`
	DiscoverMs int64 `json:"discoverMs"`
	ReadsMs    int64 `json:"readsMs"`
	Reads      int   `json:"reads"`
	LookupsMs  int64 `json:"lookupsMs"`
	Lookups    int   `json:"lookups"`
	PatchesMs  int64 `json:"patchesMs"`
	Patches    int   `json:"patches"`
	SettlesMs  int64 `json:"settlesMs"`
	Settles    int   `json:"settles"`
	// Added later in v1alpha1, optional: absent when zero.
	CacheReads int `json:"cacheReads,omitempty"`
	Rereads    int `json:"rereads,omitempty"`
}

// maxMs is the largest millisecond count a time.Duration holds.
const maxMs = math.MaxInt64 / int64(time.Millisecond)

// MarshalJSON writes the times in whole milliseconds, rounded.
func (t Timings) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) int64 { return d.Round(time.Millisecond).Milliseconds() }
	return json.Marshal(timingsJSON{
		WallMs: ms(t.Wall), DiscoverMs: ms(t.Discover),
		ReadsMs: ms(t.Reads), Reads: t.ReadCount,
		LookupsMs: ms(t.Lookups), Lookups: t.LookupCount,
		PatchesMs: ms(t.Patches), Patches: t.PatchCount,
		SettlesMs: ms(t.Settles), Settles: t.SettleCount,
		CacheReads: t.CacheReadCount, Rereads: t.RereadCount,
	})
}

// UnmarshalJSON reads the millisecond form. A time beyond what a
// time.Duration holds is an error; a negative one is left for check to
// refuse.
func (t *Timings) UnmarshalJSON(b []byte) error {
	var j timingsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := func(ms int64) (time.Duration, error) {
		if ms > maxMs || ms < -maxMs {
			return 0, fmt.Errorf("timings: %d ms is out of range", ms)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	var err error
	out := Timings{ReadCount: j.Reads, LookupCount: j.Lookups, PatchCount: j.Patches, SettleCount: j.Settles,
		CacheReadCount: j.CacheReads, RereadCount: j.Rereads}
	for _, f := range []struct {
		dst *time.Duration
		ms  int64
	}{{&out.Wall, j.WallMs}, {&out.Discover, j.DiscoverMs}, {&out.Reads, j.ReadsMs}, {&out.Lookups, j.LookupsMs}, {&out.Patches, j.PatchesMs}, {&out.Settles, j.SettlesMs}} {
		if *f.dst, err = d(f.ms); err != nil {
			return err
		}
	}
	*t = out
	return nil
}

// check refuses negative times and counts, which the schema refuses too.
func (t *Timings) check() error {
	for _, d := range []time.Duration{t.Wall, t.Discover, t.Reads, t.Lookups, t.Patches, t.Settles} {
		if d < 0 {
			return fmt.Errorf("%w: summary.timings: negative time %s", ErrMalformed, d)
		}
	}
	for _, n := range []int{t.ReadCount, t.LookupCount, t.PatchCount, t.SettleCount, t.CacheReadCount, t.RereadCount} {
		if n < 0 {
			return fmt.Errorf("%w: summary.timings: negative count %d", ErrMalformed, n)
		}
	}
	return nil
}

// String gives the wall time, then each phase's time and count, e.g.
// "wall 5.432s: discover 41ms, reads 230ms/5 (4 cached, 0 rereads),
// lookups 8.12s/6, patches 912ms/4, settles 77ms/5 (summed over
// workers)", so that a summary
// printed with %+v shows them rather than a pointer.
func (t Timings) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	cached := ""
	if t.CacheReadCount > 0 || t.RereadCount > 0 {
		cached = fmt.Sprintf(" (%d cached, %d rereads)", t.CacheReadCount, t.RereadCount)
	}
	return fmt.Sprintf("wall %s: discover %s, reads %s/%d%s, lookups %s/%d, patches %s/%d, settles %s/%d (summed over workers)",
		r(t.Wall), r(t.Discover), r(t.Reads), t.ReadCount, cached, r(t.Lookups), t.LookupCount, r(t.Patches), t.PatchCount, r(t.Settles), t.SettleCount)
}
