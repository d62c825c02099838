// Package upjetv2 makes the create path of a crossplane-runtime v2 (v2.2)
// and upjet v2 (v2.3) provider crash-safe with intentjournal: what
// provider-upjet-aws, -gcp and -azure run. It serves namespaced managed
// resources (ModernManaged, whose provider config reference names a
// ProviderConfig or a ClusterProviderConfig) and cluster-scoped ones
// (LegacyManaged) alike: every key, lookup, tag and report entry carries
// the namespace.
//
// It wraps a kind's managed.ExternalConnector (upjet's async connectors
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
// crossplane-runtime v2's WithDeterministicExternalName lets a reconcile go
// ahead with a create whose last attempt is incomplete, where v1 stops the
// resource with "cannot determine creation result". With it, the Gate and
// the intent are the only thing between a crash and a repeat create.
//
// This package is the v2 line's shim over the crossplane-free package
// adapter, which holds the create path itself: it converts crossplane's
// and upjet's types (the connector, the callback, the Terraform ID in
// upjet's operation tracker, the tags a create sends, the kind facts read
// from upjet's config.Resource, the tagger, the event recorder) and
// delegates. Config, the options and the derived finders' types are
// adapter's, named here too so that a provider imports this package
// alone. It lives in its own module, on the v2 line's dependency set
// (crossplane-runtime/v2 cannot share a module with v1).
//
// The legacy line's adapter/upjetv1 shares most of this package: its
// files named zz_generated.* are generated from the files hack/shimgen's
// Shared names (go run ./hack/shimgen after changing one). What only
// this line does lives in line.go, kindfor.go, and the files of the
// generator path (template.go), the Terraform CLI kinds (workspace.go,
// clifinder.go) and the listers' scope (listscope.go).
package upjetv2
