package clients

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/v1alpha1"
)

// kinds are the fake cloud's managed kinds that RecoveryDeleters serves,
// cluster-scoped and namespaced.
var kinds = []schema.GroupKind{fcrecovery.RecordSet, fcrecovery.Network, fcrecovery.RecordSetNamespaced, fcrecovery.NetworkNamespaced, fcrecovery.AddressNamespaced}

// RecoveryInventory is the fake cloud's upjetv2.Inventory, the one piece
// of the derived finders (upjetv2.NewFinders) a provider writes per
// cloud: it lists the query's Terraform resource type by tags
// (fcrecovery.TagLister) in the fake cloud of the candidate's provider
// config, read through kube: the manager's cached client, as upjet's own
// Terraform setup reads it. A live read would add an API request to every
// lookup of a recovery pass.
func RecoveryInventory(kube client.Reader) upjetv2.Inventory {
	return upjetv2.InventoryFn(func(ctx context.Context, q upjetv2.TagQuery) ([]recovery.ExternalResource, error) {
		fc, err := cloudFor(ctx, kube, q.Candidate)
		if err != nil {
			return nil, err
		}
		list, err := fcrecovery.TagLister(fc, q.TerraformResource)
		if err != nil {
			return nil, err
		}
		return list(ctx, q.Tags)
	})
}

// RecoveryDeleters returns the Deleter of each managed kind, for
// recovery's delete-orphans policy, against the fake cloud of each
// candidate's provider config.
func RecoveryDeleters(kube client.Reader) map[schema.GroupKind]recovery.Deleter {
	out := map[schema.GroupKind]recovery.Deleter{}
	for _, gk := range kinds {
		out[gk] = recovery.DeleterFn(func(ctx context.Context, c *recovery.Candidate, r recovery.ExternalResource) error {
			fc, err := cloudFor(ctx, kube, c)
			if err != nil {
				return err
			}
			return fcrecovery.Deleters(fc)[gk].Delete(ctx, c, r)
		})
	}
	return out
}

// cloudFor returns a fake cloud client for the provider config of c: the
// intent's recorded reference, else the managed resource's. A namespaced
// managed resource names a ProviderConfig in its own namespace or a
// ClusterProviderConfig; a cluster-scoped one the legacy ProviderConfig.
func cloudFor(ctx context.Context, kube client.Reader, c *recovery.Candidate) (*fakecloud.Client, error) {
	kind, name := c.Intent.ProviderConfig.Kind, c.Intent.ProviderConfig.Name
	if name == "" && c.Object != nil {
		name, _, _ = unstructured.NestedString(c.Object.Object, "spec", "providerConfigRef", "name")
		kind, _, _ = unstructured.NestedString(c.Object.Object, "spec", "providerConfigRef", "kind")
	}
	if name == "" {
		name = "default"
	}
	ns := c.Intent.Resource.Namespace
	var pc client.Object
	key := types.NamespacedName{Name: name}
	switch {
	case ns == "":
		pc = &clusterv1alpha1.ProviderConfig{}
	case kind == namespacedv1alpha1.ClusterProviderConfigKind:
		pc = &namespacedv1alpha1.ClusterProviderConfig{}
	default:
		pc, key.Namespace = &namespacedv1alpha1.ProviderConfig{}, ns
	}
	if err := kube.Get(ctx, key, pc); err != nil {
		return nil, fmt.Errorf("cannot get the provider config %s of %s: %w", key, c.Intent.Resource.Name, err)
	}
	endpoint, err := EndpointOf(pc)
	if err != nil {
		return nil, err
	}
	if endpoint == "" {
		return nil, fmt.Errorf("provider config %q of %s has no endpoint", name, c.Intent.Resource.Name)
	}
	return fakecloud.NewClient(endpoint), nil
}
