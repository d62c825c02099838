// Package scaleout holds the multi-process tests of a scaled-out provider:
// real envtest, real provider-fakecloud processes (label shards or hash
// buckets), real SIGKILL, real coordination.k8s.io Leases, and the fake
// cloud. See docs/scale-out.md for what they show.
//
//   - TestShardDeath: two label shards; one is killed mid-flight; while its
//     Lease is live nothing touches its intents; after expiry its shard's
//     next leader resolves them to the crash matrix's invariants.
//   - TestRelabel: a managed resource relabelled from one shard to the
//     other mid-create ends with one cloud object and one owner.
//   - TestRollingRestart: three hash-bucket replicas restarted one by one
//     under load leave no duplicate and no unreported orphan.
//   - TestTakeoverOfIncompleteCreates: creates left incomplete with no
//     intent after the holders' first passes are resolved by later passes,
//     never too early and never under a live create Lease.
//   - TestAnnotationOnlyCrash: SIGKILL and recovery from annotations alone.
//   - TestScaleOutRoles: each shape's Role is enough, and every verb in it
//     is needed.
//   - TestScaleOutManifests: the deploy/scale-out manifests decode strictly
//     and carry what the guarantees rest on.
package scaleout
