package aws

import (
	"github.com/intentjournal/intentjournal/inventory"
)

// shipped is what the Tagging API lists, as intentjournal ships it
// (inventory/listings/aws.tsv); shippedErr, where that file does not
// parse, makes every type unlisted (a test parses it).
var shipped, shippedErr = inventory.ShippedListings("aws")

// Listings returns what the Tagging API lists of each
// terraform-provider-aws resource type, as shipped: the types it lists
// (EC2's, EFS's, Route 53's ...), with their ResourceTypeFilters where a
// filter is certain, the home region of a global service's types
// (CloudFront, IAM, WAF classic, Organizations and Route 53 in us-east-1;
// Global Accelerator and Network Manager in us-west-2), and the types it
// does not (S3 objects; aws_inspector_resource_group, whose tags select
// instances; aws_sqs_queue, whose ID is its URL). A type it does not name
// is not listed.
func Listings() (inventory.Listings, error) { return shipped, shippedErr }

// ResourceTypes returns the Tagging API's ResourceTypeFilters for the
// terraform-provider-aws resource type tfResource, or nil (every type)
// where the shipped listings give none.
func ResourceTypes(tfResource string) []string {
	return shipped.Of(tfResource).IndexTypes
}
