package azure_test

import (
	"context"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/inventory/azure"
)

// The provider builds the Resource Graph client with the credential its
// provider config resolves (an azidentity credential), with retries that
// wait out Resource Graph's throttling, and lists one subscription.
func ExampleNew() {
	var cred azcore.TokenCredential // the provider config's credential
	client, err := armresourcegraph.NewClient(cred, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Retry: policy.RetryOptions{
				MaxRetries:    4,
				MaxRetryDelay: 60 * time.Second,
				TryTimeout:    30 * time.Second,
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	lister := azure.New(client)
	found, err := lister.List(context.Background(), inventory.Query{
		TerraformResource: "azurerm_virtual_network",
		Tags:              map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", "crossplane-name": "net"},
		Scope:             inventory.Scope{Subscription: "00000000-0000-0000-0000-000000000000"},
	})
	if err != nil {
		fmt.Println(err) // the intent stays unresolved
		return
	}
	for _, r := range found {
		fmt.Println(r.Identifier, inventory.Candidates(r.Identifier))
	}
}
