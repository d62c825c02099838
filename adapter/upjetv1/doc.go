// Package upjetv1 makes the create path of a crossplane-runtime v1 (v1.20)
// and upjet v1 (v1.11) provider crash-safe with intentjournal: the legacy
// line, whose managed resources are cluster-scoped.
//
// It wraps a kind's managed.ExternalConnecter (upjet's async connectors
// included) and upjet's CallbackProvider:
//
//	Create    consult the recovery Gate; resolve, never repeat, an unsettled
//	          intent from an earlier process; journal.Begin durably (fail
//	          closed); put the intent annotation on the object, which
//	          crossplane-runtime's critical annotation update persists with
//	          no extra API write; then dispatch the inner Create.
//	callback  on success read the ID from upjet's OperationTrackerStore,
//	          settle the intent and patch crossplane.io/external-name at
//	          once (one merge patch that also drops the intent annotation,
//	          in place of upjet's late-init Update at the next Observe); on
//	          an "already exists" failure hand the resource to the recovery
//	          Resolver (adopt if proven ours, else pause and report), never
//	          into a retry loop; other failures settle failed(class).
//	Observe   settle an intent whose resource exists with a known external
//	          name (e.g. when the callback's patch failed).
//	Delete    leave an unsettled intent for recovery as an orphan candidate.
//
// What a SIGKILL leaves, and what the next start does about it: an intent
// begun but not settled is found by the recovery.Recoverer that Setup adds
// to the manager. Until its pass has scanned every candidate the Gate keeps
// every create blocked, and candidates stay blocked until resolved.
//
// This package is the v1 line's shim over the crossplane-free package
// adapter, which holds the create path itself: it converts crossplane's
// and upjet's types (the connecter, the callback, the Terraform ID in
// upjet's operation tracker, the tags a create sends, the kind facts read
// from upjet's config.Resource, the tagger, the event recorder) and
// delegates. It is adapter/upjetv2, the line providers run today, on the
// legacy line's modules, with the same API but for what
// adapter.TestLinesExportTheSameAPI lists: the files named
// zz_generated.* are generated from upjetv2's by hack/shimgen (go run
// ./hack/shimgen), which rewrites the import paths and crossplane-runtime
// v1's spelling of the connector, and TestSharedUpToDate fails when they
// are stale; line.go and kindfor.go hold what the legacy line does
// differently. Config, the options and the derived finders' types are
// adapter's, named here too so that a provider imports this package
// alone. It lives in its own module, on the v1 line's dependency set.
package upjetv1
