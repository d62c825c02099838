package fakeclouddns

import (
	"time"

	"go.uber.org/zap"
)

// DefaultPageSize is how many record sets (or zones) a list answers when
// the request has no maxResults. Cloud DNS documents only that "the server
// decides"; the fake's choice is a constant, so that a test can put a
// record set on the second page on purpose (WithDefaultPageSize).
const DefaultPageSize = 100

// DefaultChangeDelay is how long a change stays "pending" unless
// WithChangeDelay says otherwise.
const DefaultChangeDelay time.Duration = 0

// Option configures a Server.
type Option func(*Server)

// WithLogger sets the server's logger. A nil logger becomes zap.NewNop().
func WithLogger(l *zap.Logger) Option {
	return func(s *Server) {
		if l == nil {
			l = zap.NewNop()
		}
		s.log = l
	}
}

// WithDefaultPageSize sets how many items a list answers when the request
// has no maxResults (or maxResults=0). It must be positive.
func WithDefaultPageSize(n int) Option {
	return func(s *Server) { s.pageSize = n }
}

// WithChangeDelay sets how long a change's status stays "pending" after
// the change was accepted; then it is "done". The change's record sets are
// visible to lists at once either way. It must not be negative.
func WithChangeDelay(d time.Duration) Option {
	return func(s *Server) { s.changeDelay = d }
}

// WithFaults sets the faults the server starts with.
func WithFaults(f Faults) Option {
	return func(s *Server) { s.initial = f }
}

// WithSeed seeds the random sources that decide which requests fail and
// which IDs zones get, so that a run can be repeated.
func WithSeed(seed uint64) Option {
	return func(s *Server) { s.seed = seed }
}

// WithClock sets the clock that stamps zones and changes and decides when
// a change is done. Nil means time.Now.
func WithClock(now func() time.Time) Option {
	return func(s *Server) {
		if now == nil {
			now = time.Now
		}
		s.now = now
	}
}
