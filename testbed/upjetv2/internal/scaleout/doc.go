// Package scaleout runs the scale-out tests (internal/scaleout) on the v2
// line: provider-fakecloud on upjet v2, namespaced managed resources by
// default, in two namespaces with the same names
// (-scaleout.scope=cluster for the cluster-scoped group). See
// internal/scaleout for what each shows, and docs/scale-out.md.
package scaleout
