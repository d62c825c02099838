// Package adapter is the crash-safe create path of an upjet provider, the
// part both crossplane lines share: everything of the adapters that names
// no crossplane-runtime or upjet type, written once over client.Object and
// unstructured. It owns
//
//   - Setup and the Adapter: the journal (or annotation-only mode), the
//     recovery.Recoverer with its Gate and Resolver, the owner of this
//     process's intents, the metrics, HoldUntilRecovered and Requeue;
//   - a Kind's create path: the Gate check, the resolution (never the
//     repetition) of an earlier create's intent, the intent built, probed
//     and begun durably, the intent annotation, the in-flight tracking,
//     and, when the async create ends, the settle and the external-name
//     patch (bind) or the conflict handed to the Resolver; Observe's late
//     settle; the scale-out hooks (create lock, hand-back, Reconciler);
//   - the error classes of a failed create (Classifier);
//   - the line-independent half of the derived finders (DeriveFinders): the
//     strategy of each kind, the observe-by-name and observe-by-template
//     finders over a kind's ObserveFunc, the key probe, the list-by-tags
//     finders over the cloud's Inventory; ExternalNameFacts; the UID tag
//     (Tag).
//
// Each line's package, adapter/upjetv2 (crossplane-runtime v2.2, upjet
// v2.3) or adapter/upjetv1 (v1.20, v1.11), keeps only what names its
// types: the managed.ExternalConnector wrapper, which converts crossplane's
// types and calls Kind.Create, Kind.Observed and Kind.Deleting; upjet's
// create callback, which calls Kind.Created; the Terraform ID read from
// upjet's operation tracker; the tags a create sends and the other answers
// of its Line; the kind facts read from upjet's config.Resource; the
// tagger; the event recorder. A provider imports its line's package, not
// this one.
//
// crossplane-runtime's annotations (external-name, external-create-pending,
// -succeeded and -failed) are read and written here as the plain
// annotations they are, under the keys package recovery names. The package
// is in the crossplane-free root module and compiles against either line's
// controller-runtime.
package adapter
