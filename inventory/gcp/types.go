package gcp

import (
	"github.com/intentjournal/intentjournal/inventory"
)

// shipped is what Cloud Asset Inventory lists, as intentjournal ships it
// (inventory/listings/gcp.tsv); shippedErr, where that file does not
// parse, makes every type unlisted (a test parses it).
var shipped, shippedErr = inventory.ShippedListings("gcp")

// Listings returns what Cloud Asset Inventory's project-scoped search
// lists of each terraform-provider-google resource type, as shipped: the
// types it lists, with their asset types, and the types it does not
// (google_project and google_folder, outside a project's scope;
// google_compute_instance_template, whose labels are its instances'). A
// type it does not name is not listed.
func Listings() (inventory.Listings, error) { return shipped, shippedErr }

// AssetTypes returns the Cloud Asset Inventory asset types of the
// terraform-provider-google resource type tfResource, or nil (every type)
// where the shipped listings give none. The slice is a copy.
func AssetTypes(tfResource string) []string {
	t := shipped.Of(tfResource).IndexTypes
	if t == nil {
		return nil
	}
	return append([]string(nil), t...)
}
