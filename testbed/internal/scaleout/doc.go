// Package scaleout holds the multi-process tests of a scaled-out provider,
// on either crossplane line: real envtest, real provider-fakecloud
// processes (label shards or hash buckets), real SIGKILL, real
// coordination.k8s.io Leases, and the fake cloud. The managed resources
// are driven as unstructured objects through a testbed.Line, so one copy
// serves both lines; each line's module runs them from its
// internal/scaleout, whose tests are named after the functions here. See
// docs/scale-out.md for what they show.
//
//   - ShardDeath: two label shards; one is killed mid-flight; while its
//     Lease is live nothing touches its intents; after expiry its shard's
//     next leader resolves them to the crash matrix's invariants.
//   - Relabel: a managed resource relabelled from one shard to the other
//     mid-create ends with one cloud object and one owner.
//   - RollingRestart: three hash-bucket replicas restarted one by one under
//     load leave no duplicate and no unreported orphan.
//   - TakeoverOfIncompleteCreates: creates left incomplete with no intent
//     after the holders' first passes are resolved by later passes, never
//     too early and never under a live create Lease.
//   - AnnotationOnlyCrash: SIGKILL and recovery from annotations alone.
//   - Roles: each shape's Role is enough, and every verb in it is needed.
//   - Manifests: the deploy/scale-out manifests decode strictly and carry
//     what the guarantees rest on.
//
// On a namespaced line, a test that creates a batch of managed resources
// (ShardDeath, RollingRestart, AnnotationOnlyCrash) spreads it over the
// line's namespace and a twin namespace (Namespace+"-twin"), the same
// names in both and each namespace with its own DNS zone, keeping the
// batch's size; the tests of a few named resources (Relabel,
// TakeoverOfIncompleteCreates) use the line's namespace. Every test but
// Manifests needs envtest and skips under -short (make test-unit); all but
// Roles also build and run the line's provider-fakecloud.
package scaleout
