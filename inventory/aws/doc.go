// Package aws lists AWS resources by tags through the Resource Groups
// Tagging API's GetResources (inventory.Lister), for the recovery pass of
// a provider-upjet-aws-like provider: the kinds whose ID the cloud assigns
// and that carry the crossplane tags (list-by-tags).
//
// A provider builds the lister from the credentials its provider config
// resolves, one Tagging API client per account and region:
//
//	cfg, _ := config.LoadDefaultConfig(ctx, config.WithRegion(region))
//	l := aws.New(aws.Static(region, resourcegroupstaggingapi.NewFromConfig(cfg)))
//
// or, with several provider configs, a ClientFor that resolves each
// Scope's credentials. The lister lists only the Terraform types its
// listings say the Tagging API lists (Listings, inventory/listings/aws.tsv;
// WithListing adds a row with its evidence), and a global service's type
// in its home region (CloudFront in us-east-1): a type outside them is
// refused with inventory.ErrNotListed, so that recovery reports its kind
// rather than take an empty answer for an absence. Every expected tag is
// a TagFilter with its one value; ResourceTypes narrows the listing to the
// kind's resource types where the listings give them; every page is read; a resource the API
// returned that does not carry every expected tag is dropped. Throttling
// is retried by the client's retryer (the SDK's standard retryer retries
// ThrottledException); what is left after it is an error, never an empty
// listing. The Tagging API reports no creation time, so crossplane tags
// alone are at most a weak proof; the UID tag is the strong one.
//
// The module requires resourcegroupstaggingapi v1.41.12, whose client
// speaks the API's JSON 1.1 protocol; v1.42.0 moved to Smithy RPC v2 CBOR.
// AWS serves both; the tests' endpoint speaks JSON 1.1.
package aws
