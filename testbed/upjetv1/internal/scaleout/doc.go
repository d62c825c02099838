// Package scaleout runs the scale-out tests (internal/scaleout) on the v1
// line: the legacy provider-fakecloud, cluster-scoped managed resources.
// See internal/scaleout for what each shows, and docs/scale-out.md.
package scaleout
