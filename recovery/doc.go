// Package recovery resolves the creates a provider left unsettled when it
// died: on restart, before any reconciler may create again, every unsettled
// create intent is looked up in the cloud and decided once.
//
//   - A resource that is provably ours is adopted: crossplane.io/external-name
//     is patched (guarded by resourceVersion) and the pending marks cleared,
//     so crossplane-runtime's "cannot determine creation result" does not trap
//     it and no second copy is created.
//   - An intent under which nothing was created is cleared, so the create may
//     run again.
//   - A resource with the natural key that is not ours is a conflict: never
//     adopted; the managed resource is paused and an Event says what to do.
//   - Anything that cannot be decided is reported and kept: the Gate keeps
//     its create blocked and the Recoverer retries.
//
// Nothing loops on 409. The decision table is Decide, documented with its
// tests in docs/recovery.md. Candidates are the union, merged by UID, of the
// journal's unsettled intents (streamed), managed resources with an
// unsettled intentjournal.io/create-intent annotation, and managed resources
// where crossplane-runtime's ExternalCreateIncomplete holds.
//
// Run performs one pass; Recoverer is the controller-runtime Runnable that
// runs passes until nothing is unresolved, needs leader election, and owns
// the Gate that the create path consults. Resolver.ResolveObject resolves a
// single resource for the create path (a 409, or an intent left by an
// earlier process).
//
// The package works on unstructured objects and Crossplane's annotation
// keys, which are the same in crossplane-runtime v1 and v2, so it imports
// neither. Every pass writes a report.Report (package recovery/report), a
// versioned JSON document that never holds secret values.
package recovery
