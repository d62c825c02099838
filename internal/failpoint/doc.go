// Package failpoint puts named crash points into the create and recovery
// paths, for the crash matrix (internal/crashmatrix).
//
// A point is a one-line hook, failpoint.Hit(name), at a place where a
// SIGKILL leaves a distinct state behind: before the intent is begun, after
// it is begun but before the create is dispatched, after the cloud answered
// but before the callback ran, after the journal settled but before the
// external name was persisted, and in the middle of a recovery pass.
//
// Points are armed in a process through the environment variable
// INTENTJOURNAL_FAILPOINTS, a list of terms separated by ";":
//
//	INTENTJOURNAL_FAILPOINTS="after-begin=kill@3"
//
// kill sends SIGKILL to the process itself on the Nth hit of the point (N
// defaults to 1; hits are counted across goroutines). Nothing is flushed or
// cleaned up: the process dies as it would on an OOM kill or a node loss.
// Before the signal it writes one line to stderr,
//
//	failpoint: after-begin fired on hit 3: SIGKILL
//
// so that a harness can tell its kill from any other death. Unknown point
// names and malformed terms are refused, so a misspelt point never silently
// stays unarmed.
//
// Like etcd's gofail, the points cost nothing in production: unless the
// binary is built with -tags failpoints, Hit is an empty function that the
// compiler inlines away, and the environment is never read. Parse is always
// compiled, so that it can be tested and fuzzed without the tag.
package failpoint
