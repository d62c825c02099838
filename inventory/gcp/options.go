package gcp

import (
	"time"

	"github.com/intentjournal/intentjournal/inventory"
)

// Defaults of a Lister's retries and pages.
const (
	// DefaultAttempts is how many times one page of a search is tried,
	// the first try included, while it is throttled or unavailable.
	DefaultAttempts = 5
	// DefaultMaxBackoff is the most a page of a search waits, in total,
	// between its attempts.
	DefaultMaxBackoff = 10 * time.Second
	// DefaultLag is Consistency's Lag; see Lister.Consistency.
	DefaultLag = 10 * time.Minute
)

// Option configures a Lister.
type Option func(*Lister)

// WithRetry sets how many times one page of a search is tried (attempts,
// the first try included; less than 1 counts as 1) and the most it waits
// in total between those tries (maxBackoff; zero or less waits never,
// so never retries), while the service answers ResourceExhausted (HTTP
// 429) or Unavailable (HTTP 503). The defaults are DefaultAttempts and
// DefaultMaxBackoff. What fails past the bound is an error, never an
// empty listing.
func WithRetry(attempts int, maxBackoff time.Duration) Option {
	return func(l *Lister) {
		l.attempts = max(attempts, 1)
		l.maxBackoff = max(maxBackoff, 0)
	}
}

// WithLag sets Consistency's Lag (DefaultLag): how far behind a create
// Cloud Asset Inventory is taken to be.
func WithLag(d time.Duration) Option {
	return func(l *Lister) { l.lag = d }
}

// WithListing adds x to the shipped listings (Listings), or replaces the
// row of its type: a type the provider knows Cloud Asset Inventory lists,
// or does not, with its evidence. A listing without a type or evidence
// makes every List fail, saying so.
func WithListing(x inventory.Listing) Option {
	return func(l *Lister) {
		if l.err != nil {
			return
		}
		l.listings, l.err = l.listings.With(x)
	}
}
