package gcp_test

import (
	"context"
	"fmt"
	"os"
	"time"

	asset "cloud.google.com/go/asset/apiv1"
	"google.golang.org/api/option"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/inventory/gcp"
)

// listZones is the package documentation's usage, compiled: a provider
// builds the client from its provider config's credentials and lists
// with it. TestDocShowsExample keeps the two the same.
func listZones(ctx context.Context, creds []byte, project string, tags map[string]string) ([]inventory.Resource, error) {
	c, err := asset.NewRESTClient(ctx, option.WithAuthCredentialsJSON(option.ServiceAccount, creds))
	if err != nil {
		return nil, fmt.Errorf("cannot build the Cloud Asset Inventory client: %w", err)
	}
	defer c.Close()
	lister := gcp.New(c, gcp.WithRetry(5, 10*time.Second))
	return lister.List(ctx, inventory.Query{
		TerraformResource: "google_dns_managed_zone",
		Tags:              tags, // the crossplane and intentjournal tags of the intent
		Scope:             inventory.Scope{Project: project},
	})
}

// A provider author builds the lister from the ProviderConfig's service
// account key and lists the managed zones that carry an intent's tags.
// (Not run: it needs GCP credentials.)
func Example() {
	ctx := context.Background()
	creds, err := os.ReadFile("/var/run/secrets/provider/credentials.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	found, err := listZones(ctx, creds, "my-project", map[string]string{
		"crossplane-kind": "managedzone.dns.gcp.upbound.io",
		"crossplane-name": "zone-a",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range found {
		fmt.Println(r.Identifier, r.CreatedAt)
	}
}
