package recovery

import (
	"sync"
	"time"
)

// Sightings remembers when recovery first took up each unsettled intent:
// the moment by which the process that ran its create was known to be
// stopped (recovery resolves only intents whose owner is gone). That is
// the latest moment the create can have reached the cloud
// (Candidate.DeadBy), and a lagging index proves the create made nothing
// only once its lag has passed since then (AbsenceWaiter). The first
// sighting is kept across passes, so the lag runs out however often a
// pass retries; the intent's Begin, or its managed resource's age, would
// be the earliest moment instead, and a create that retried for minutes
// would be proven absent before its resource could have been listed.
//
// A Recoverer keeps one for the life of the process (Options.Sightings),
// shared with the create path's Resolver; a one-off pass (the CLI) starts
// with an empty one, so its first sighting is its own start. The zero
// value is empty and ready to use. Safe for concurrent use.
type Sightings struct {
	mu sync.Mutex
	at map[string]time.Time
}

// NewSightings returns an empty Sightings.
func NewSightings() *Sightings { return &Sightings{} }

// First returns when the intent of c was first taken up, recording now if
// it never was.
func (s *Sightings) First(c *Candidate, now time.Time) time.Time {
	key := c.Intent.Resource.UID + "/" + c.Intent.ID.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	if t, ok := s.at[key]; ok {
		return t
	}
	s.at[key] = now
	return now
}

// Forget drops what is remembered of c's intent, once it is resolved.
func (s *Sightings) Forget(c *Candidate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.at, c.Intent.Resource.UID+"/"+c.Intent.ID.String())
}
