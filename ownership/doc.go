// Package ownership decides which process may act on which managed
// resource and on which create intent when a provider is scaled out.
//
// Two shapes are supported, and one predicate of each shape serves both
// the reconciler's setup and the recovery pass, so they can never
// disagree:
//
//   - LabelShard: one controller process per shard, selected by a label
//     (like provider-terraform's sharding). The manager's cache is
//     filtered at the informer (ByObject) and the shard elects one
//     leader on a Lease named after the shard.
//   - HashBuckets: FNV-32a of namespace/name into N buckets, each owned
//     through a coordination.k8s.io/v1 Lease (like knative's bucketed
//     leader election). BucketLeases acquires and renews them.
//
// Every Lease's holderIdentity is Holder(owner): "<replica>/<epoch>", so
// a Lease tells not only which pod holds it but which boot of that pod.
//
// Scope builds the recovery scope, a func(journal.Intent) bool for
// recovery.Options.Scope: an intent is in scope when this process began
// it, when its owner is a previous boot of this replica, or when its
// owner is provably dead: its Lease has expired, is gone, or is held by
// another epoch. An intent whose owner's Lease is live, or whose Lease
// cannot be read, is never in scope: recovery never resolves a live
// peer's in-flight create.
//
// CreateLeases is an upjetv1.CreateLocker: a Lease per managed resource,
// held from before a create's intent is begun until its callback, so two
// replicas never create the same resource at once (during a relabel or a
// bucket rebalance).
package ownership
