// Package azure lists Azure resources by tags through Azure Resource Graph:
// the inventory.Lister a provider built on provider-upjet-azure gives the
// recovery pass, so that a create interrupted by a crash is found by the
// tags it carried instead of being made a second time.
//
// # Building it
//
// The provider builds the Resource Graph client with its own credential
// (the one its provider config resolves, an azidentity credential) and
// hands it to New:
//
//	client, err := armresourcegraph.NewClient(cred, &arm.ClientOptions{
//		ClientOptions: policy.ClientOptions{
//			Retry: policy.RetryOptions{
//				MaxRetries:    4,                // azcore's default is 3
//				MaxRetryDelay: 60 * time.Second, // the longest Retry-After to wait for
//				TryTimeout:    30 * time.Second,
//				// StatusCodes nil: azcore's defaults, which include 429.
//			},
//		},
//	})
//	if err != nil {
//		return err
//	}
//	lister := azure.New(client)
//
// and lists one subscription per query, the one the managed resource's
// provider config names:
//
//	found, err := lister.List(ctx, inventory.Query{
//		TerraformResource: "azurerm_virtual_network",
//		Tags:              map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", ...},
//		Scope:             inventory.Scope{Subscription: subscriptionID},
//	})
//
// The identity needs read access (Reader) on the subscription: Resource
// Graph returns only what the caller may read, so a role that cannot see a
// resource group hides its resources. Grant it on the whole subscription.
//
// # Throttling
//
// Resource Graph gives each user a quota of queries per window (15 in 5 s
// in Microsoft's example) and answers 429 Too Many Requests past it, with
// Retry-After and x-ms-user-quota-resets-after headers. The retries are
// the client's: azcore's retry policy retries 429 (when StatusCodes is nil
// or lists it) up to MaxRetries times and waits the Retry-After the answer
// gives. It does not wait for a Retry-After longer than MaxRetryDelay: it
// gives up at once. Set MaxRetryDelay to the longest wait a recovery pass
// may spend on one query, and MaxRetries so that MaxRetries waits of a
// quota window (5 s) fit in it. What is left after the retries is an error
// wrapping ErrThrottled that says when the quota resets; the intent stays
// unresolved and a later pass lists again.
//
// # What a listing proves
//
// Resource Graph is an index, not the resource providers: a resource
// created a moment ago may be missing from it. Consistency reports
// ReadAfterWrite false and DefaultLag (see its documentation for the
// source): a listing that finds nothing proves the create made nothing
// only once that lag has passed since the latest moment the create can
// have reached Azure (recovery.IndexLag); until then the intent waits,
// its create held, and a later pass lists again.
//
// The listing queries Resources (ResourceContainers for resource groups),
// narrowed by the ARM type ResourceType maps from the Terraform type, for
// resources whose tags match every expected tag: keys in any case (Azure
// tag keys are case-insensitive), values compared again exactly in Go, so
// a stranger whose tags differ in one value is never returned. Values are
// written into the KQL as string literals escaped by quote, never spliced
// raw. An identifier is the resource's ARM ID, which is its Terraform ID
// for most azurerm kinds (inventory.Candidates).
package azure
