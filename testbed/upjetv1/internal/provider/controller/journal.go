package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
)

// RecoveryInventory is the fake cloud's upjetv1.Inventory, the one piece
// of the derived finders (upjetv1.NewFinders) a provider writes per cloud:
// it lists the query's Terraform resource type by tags
// (fcrecovery.TagLister) in the fake cloud of the candidate's
// ProviderConfig, read through kube: the manager's cached client, as upjet's own
// Terraform setup reads it. A live read would add an API request to every
// lookup of a recovery pass.
func RecoveryInventory(kube client.Reader) upjetv1.Inventory {
	return upjetv1.InventoryFn(func(ctx context.Context, q upjetv1.TagQuery) ([]recovery.ExternalResource, error) {
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

// RecoveryDeleters returns the Deleter of each kind, for recovery's
// delete-orphans policy, against the fake cloud of each candidate's
// ProviderConfig.
func RecoveryDeleters(kube client.Reader) map[schema.GroupKind]recovery.Deleter {
	out := map[schema.GroupKind]recovery.Deleter{}
	for _, gk := range []schema.GroupKind{fcrecovery.RecordSet, fcrecovery.Network} {
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

// cloudFor returns a fake cloud client for the ProviderConfig of c.
func cloudFor(ctx context.Context, kube client.Reader, c *recovery.Candidate) (*fakecloud.Client, error) {
	name := c.Intent.ProviderConfig.Name
	if name == "" && c.Object != nil {
		name, _, _ = unstructured.NestedString(c.Object.Object, "spec", "providerConfigRef", "name")
	}
	if name == "" {
		name = "default"
	}
	pc := &v1alpha1.ProviderConfig{}
	if err := kube.Get(ctx, types.NamespacedName{Name: name}, pc); err != nil {
		return nil, fmt.Errorf("cannot get ProviderConfig %q: %w", name, err)
	}
	if pc.Spec.Endpoint == "" {
		return nil, fmt.Errorf("ProviderConfig %q has no endpoint", name)
	}
	return fakecloud.NewClient(pc.Spec.Endpoint), nil
}
