// Package scan finds, in a cluster that runs a stock upjet provider (no
// intentjournal inside it, no journal), the managed resources whose create
// may have leaked a cloud resource, and reports them in the recovery pass's
// report format (docs/report.md), each entry with sources ["scan"]. It is
// `intentjournal scan` (docs/after-a-crash-without-a-rebuild.md).
//
// A stock provider leaves traces, and only traces: crossplane-runtime's
// create annotations with their times, the external name, the Synced and
// Ready conditions, upjet's LastAsyncOperation condition. Classify reads
// them, a pure function, and names each reason (Reason):
//
//	AlreadyExistsLoop       Synced or LastAsyncOperation False on a create that met "already exists" (AlreadyExists)
//	AsyncCreateFailed       LastAsyncOperation False, AsyncCreateFailure, and no external name settled
//	CreatePending           crossplane.io/external-create-pending newer than -succeeded and -failed
//	CreateSucceededUnbound  crossplane.io/external-create-succeeded, no external name settled, not Ready
//
// A managed resource that is paused, being deleted, or Ready with its
// external name settled is never a candidate.
//
// Each candidate is looked up through its kind's recovery.Finder and
// decided by the recovery pass's own Decide, under the same proofs and
// absence rules, so that an orphan found by scan reads like one found in a
// provider. The scan's policy then says what is done (policy.go): nothing
// is written without Options.Apply; under it, a managed resource that
// needs an operator is paused (a loop stops), and a cloud resource is
// adopted only on a strong proof (IntentID, RecordedID, UIDTag), which a
// stock provider never leaves, so by default nothing is adopted. Nothing
// is ever deleted. Every entry that needs an operator carries the exact
// kubectl commands that adopt what was found or pause the managed
// resource (report.Scan).
//
// What Classify cannot see: once a provider restarted after the crash and
// created a second copy of a resource whose ID the cloud assigns, its
// managed resource is Ready and bound to the second copy, and the first
// is a leak no trace on the managed resource points at. Options.Copies
// looks such managed resources up too, and reports what their lookup
// finds that no managed resource names (copies.go); or run scan before
// the provider restarts (scaled to 0).
package scan
