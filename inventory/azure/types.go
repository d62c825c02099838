package azure

import (
	"strings"

	"github.com/intentjournal/intentjournal/inventory"
)

// The Resource Graph tables a listing reads. Resources holds the tracked
// resources of every resource provider; ResourceContainers holds
// subscriptions, resource groups and management groups, which Resources
// does not.
const (
	TableResources          = "Resources"
	TableResourceContainers = "ResourceContainers"
)

// shipped is what Resource Graph lists, as intentjournal ships it
// (inventory/listings/azure.tsv); shippedErr, where that file does not
// parse, makes every type unlisted (a test parses it).
var shipped, shippedErr = inventory.ShippedListings("azure")

// Listings returns what Resource Graph lists of each
// terraform-provider-azurerm resource type, as shipped: the tracked ARM
// resources it lists, with their table and, where it is certain, their
// ARM type (TABLE:type; a wrong type would hide a resource, so a bare
// TABLE lists every type of it), and the types it does not (Key Vault
// keys, secrets and certificates and App Configuration keys, data-plane
// objects that are not ARM resources). A type it does not name is not
// listed.
func Listings() (inventory.Listings, error) { return shipped, shippedErr }

// ResourceType returns the Resource Graph table that holds the resources
// of the terraform-provider-azurerm resource type tfResource and their
// ARM type (microsoft.network/virtualnetworks), as the shipped listings
// give them, or TableResources and "" (every type) where they give none.
func ResourceType(tfResource string) (table, armType string) {
	return tableAndType(shipped.Of(tfResource))
}

// tableAndType returns the table and ARM type of a listing's first index
// type (TABLE:type or TABLE), or TableResources and "" for none.
func tableAndType(x inventory.Listing) (table, armType string) {
	if len(x.IndexTypes) == 0 {
		return TableResources, ""
	}
	table, armType, _ = strings.Cut(x.IndexTypes[0], ":")
	return table, armType
}
