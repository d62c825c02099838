// Package fcrecovery holds the recovery Finders and Deleters of the fake
// cloud: the reference implementations of a natural-key finder (RecordSet,
// unique by zone and name, like a GCP DNS RecordSet) and a tag finder
// (Network, ID-keyed with tags, like an AWS VPC).
package fcrecovery

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/internal/fakecloud/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/recovery"
)

// GroupKinds of the fake cloud's managed resources.
var (
	RecordSet = schema.GroupKind{Group: v1alpha1.CRDGroup, Kind: v1alpha1.RecordSet_Kind}
	Network   = schema.GroupKind{Group: v1alpha1.CRDGroup, Kind: v1alpha1.Network_Kind}
)

// Kinds returns the managed kinds to scan.
func Kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{
		v1alpha1.CRDGroupVersion.WithKind(v1alpha1.RecordSet_Kind),
		v1alpha1.CRDGroupVersion.WithKind(v1alpha1.Network_Kind),
	}
}

// Finders returns a Finder per kind: RecordSets by their natural key (zone
// and name, from spec.forProvider or the intent's lookup keys), Networks by
// the crossplane external tags.
func Finders(c *fakecloud.Client) map[schema.GroupKind]recovery.Finder {
	return map[schema.GroupKind]recovery.Finder{
		RecordSet: recovery.NewKeyFinder(recovery.SpecFields("zone", "name"),
			func(ctx context.Context, key map[string]string) ([]recovery.ExternalResource, error) {
				rs, err := c.ListRecordSets(ctx, fakecloud.RecordSetFilter{Zone: key["zone"], Name: key["name"]})
				if err != nil {
					return nil, err
				}
				out := make([]recovery.ExternalResource, 0, len(rs))
				for _, r := range rs {
					out = append(out, recovery.ExternalResource{ID: r.ID, Tags: r.Tags, CreatedAt: r.CreatedAt})
				}
				return out, nil
			}, "zone", "name"),
		Network: recovery.NewTagFinder(func(ctx context.Context, tags map[string]string) ([]recovery.ExternalResource, error) {
			ns, err := c.ListNetworks(ctx, fakecloud.NetworkFilter{Tags: tags})
			if err != nil {
				return nil, err
			}
			out := make([]recovery.ExternalResource, 0, len(ns))
			for _, n := range ns {
				out = append(out, recovery.ExternalResource{ID: n.ID, Tags: n.Tags, CreatedAt: n.CreatedAt})
			}
			return out, nil
		}),
	}
}

// Deleters returns a Deleter per kind, for the delete-orphans policy.
func Deleters(c *fakecloud.Client) map[schema.GroupKind]recovery.Deleter {
	return map[schema.GroupKind]recovery.Deleter{
		RecordSet: recovery.DeleterFn(func(ctx context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
			return c.DeleteRecordSet(ctx, r.ID)
		}),
		Network: recovery.DeleterFn(func(ctx context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
			return c.DeleteNetwork(ctx, r.ID)
		}),
	}
}
