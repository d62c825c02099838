package upjetv2

import (
	"context"
	"fmt"

	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/recovery"
)

// SetupListScope returns the ListScopeFunc of WithLister that reads where
// a candidate's create would have made its resource from the provider's
// own SetupFn, the one its generated controllers run: the Terraform
// provider configuration it builds from the provider config the managed
// resource names, resolving its credentials as the provider does
// (provider-upjet-aws's assumed roles and regions among them). Region is
// the configuration's region, Account client_metadata's account_id (AWS),
// Project the configuration's project (GCP), Subscription its
// subscription_id (Azure): a lister reads those it needs. scheme must know
// the candidate's kind. A candidate whose managed resource was deleted has
// no provider config to read: an error, and the lookup is reported.
func SetupListScope(kube client.Client, scheme *runtime.Scheme, setup terraform.SetupFn) ListScopeFunc {
	return func(ctx context.Context, c *recovery.Candidate) (inventory.Scope, error) {
		if c.Object == nil {
			return inventory.Scope{}, fmt.Errorf("cannot read the provider config of %s: the managed resource was deleted", c.Intent.Resource)
		}
		obj, err := scheme.New(c.GVK)
		if err != nil {
			return inventory.Scope{}, fmt.Errorf("cannot read the provider config of %s: %w", c.Intent.Resource, err)
		}
		mg, ok := obj.(xpresource.Managed)
		if !ok {
			return inventory.Scope{}, fmt.Errorf("cannot read the provider config of %s: %T is not a managed resource", c.Intent.Resource, obj)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(c.Object.UnstructuredContent(), mg); err != nil {
			return inventory.Scope{}, fmt.Errorf("cannot convert %s: %w", c.Intent.Resource, err)
		}
		ts, err := setup(ctx, kube, mg)
		if err != nil {
			return inventory.Scope{}, fmt.Errorf("cannot build the Terraform setup of %s: %w", c.Intent.Resource, err)
		}
		str := func(v any) string { s, _ := v.(string); return s }
		return inventory.Scope{
			Region:       str(ts.Configuration["region"]),
			Account:      ts.ClientMetadata["account_id"],
			Project:      str(ts.Configuration["project"]),
			Subscription: str(ts.Configuration["subscription_id"]),
		}, nil
	}
}
