// Package azurecli adds the Azure tag lister to the operator CLI, for a
// cluster that runs a stock provider-upjet-azure: `intentjournal-azure
// scan --provider azure --finder '*=azure-graph'` looks every managed kind
// up through Azure Resource Graph, with no per-kind flag. It lives apart
// from package azure so that a provider linking the lister does not link
// the CLI.
package azurecli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/inventory/azure"
	"github.com/intentjournal/intentjournal/recovery"
)

// Name is the finder type's name on the command line.
const Name = "azure-graph"

// NewClient returns the Resource Graph client the lister queries with.
type NewClient func(ctx context.Context) (*armresourcegraph.Client, error)

// DefaultClient is a Resource Graph client with azidentity's
// DefaultAzureCredential, as the Azure SDKs find it: the environment
// (AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_CLIENT_SECRET, ...), a pod's
// workload identity, a managed identity, or `az login`. Its retries are
// those the azure package documents: 429s waited out for up to a minute
// each, four times.
func DefaultClient(context.Context) (*armresourcegraph.Client, error) {
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return nil, fmt.Errorf("cannot build the default Azure credential: %w", err)
	}
	return armresourcegraph.NewClient(cred, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Retry: policy.RetryOptions{MaxRetries: 4, MaxRetryDelay: 60 * time.Second, TryTimeout: 30 * time.Second},
		},
	})
}

// DefaultSubscription returns the subscription the lister lists in:
// AZURE_SUBSCRIPTION_ID, as the Azure CLI's and azurerm's environment
// name it, else "".
func DefaultSubscription() string { return os.Getenv("AZURE_SUBSCRIPTION_ID") }

// FinderType returns the azure-graph finder type (cli.ListerFinderType):
// each candidate is listed in subscription, the operator's, through one
// Resource Graph client that newClient builds when the first kind's
// finder is. A managed resource of provider-upjet-azure names no
// subscription (its provider config does), so none is read from its
// spec; with subscription empty every lookup fails with an error wrapping
// inventory.ErrScope. opts configure the lister (a listing of a type the
// shipped listings do not name: azure.WithListing).
func FinderType(newClient NewClient, subscription string, opts ...azure.Option) cli.FinderType {
	newLister := func() (inventory.Lister, error) {
		c, err := newClient(context.Background())
		if err != nil {
			return nil, fmt.Errorf("cannot build the Resource Graph client: %w", err)
		}
		return azure.New(c, opts...), nil
	}
	scope := func(context.Context, *recovery.Candidate) (inventory.Scope, error) {
		if subscription == "" {
			return inventory.Scope{}, fmt.Errorf("%w: no Azure subscription: set AZURE_SUBSCRIPTION_ID to the subscription the provider config names", inventory.ErrScope)
		}
		return inventory.Scope{Subscription: subscription}, nil
	}
	return cli.ListerFinderType("azure", newLister, scope)
}

// Option adds the finder type to cli.Main, with DefaultClient and
// DefaultSubscription.
func Option() cli.Option {
	return cli.WithFinderType(Name, FinderType(DefaultClient, DefaultSubscription()))
}
