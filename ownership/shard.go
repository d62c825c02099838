package ownership

import (
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultShardLabel is the label that assigns a managed resource to a shard.
const DefaultShardLabel = "intentjournal.io/shard"

// LabelShard is a label shard: the managed resources whose Label equals
// Name. One controller process (one elected leader) serves each shard.
type LabelShard struct {
	// Label is the label key (default DefaultShardLabel).
	Label string
	// Name is this shard's value of the label.
	Name string
}

func (s LabelShard) key() string {
	if s.Label == "" {
		return DefaultShardLabel
	}
	return s.Label
}

// Selector selects the shard's managed resources.
func (s LabelShard) Selector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{s.key(): s.Name})
}

// Owns reports whether a resource with these labels belongs to the shard.
func (s LabelShard) Owns(l map[string]string) bool {
	v, ok := l[s.key()]
	return ok && v == s.Name
}

// ByObject returns the cache options that filter every one of objs (the
// managed kinds) to the shard at the informer: the process neither lists
// nor watches another shard's resources, so its reconcilers never see
// them.
func (s LabelShard) ByObject(objs ...client.Object) map[client.Object]cache.ByObject {
	out := make(map[client.Object]cache.ByObject, len(objs))
	for _, o := range objs {
		out[o] = cache.ByObject{Label: s.Selector()}
	}
	return out
}

// LeaseName is the name of the shard's leader-election Lease, given the
// provider's leader-election ID prefix: "<prefix>-shard-<name>".
func (s LabelShard) LeaseName(prefix string) string { return ShardLeaseName(prefix, s.Name) }

// ShardLeaseName is LabelShard{Name: shard}.LeaseName(prefix).
func ShardLeaseName(prefix, shard string) string { return prefix + "-shard-" + shard }
