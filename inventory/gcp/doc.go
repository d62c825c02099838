// Package gcp is the GCP inventory.Lister: it lists the resources of a
// project that carry a set of labels through Cloud Asset Inventory's
// searchAllResources, so that the recovery pass can find a resource whose
// create was dispatched before a crash and whose ID was never recorded.
//
// It lives in a module of its own (github.com/intentjournal/intentjournal/inventory/gcp)
// so that the Cloud Asset Inventory SDK, gRPC and genproto reach only the
// providers that import it, never journal/ or recovery/.
//
// # Usage
//
// A provider author builds the SDK's client with the credentials of the
// provider config, as provider-upjet-gcp resolves them (here a service
// account key from the ProviderConfig's secret), hands it to New, and
// lists with the Lister:
//
//	c, err := asset.NewRESTClient(ctx, option.WithAuthCredentialsJSON(option.ServiceAccount, creds))
//	if err != nil {
//		return nil, fmt.Errorf("cannot build the Cloud Asset Inventory client: %w", err)
//	}
//	defer c.Close()
//	lister := gcp.New(c, gcp.WithRetry(5, 10*time.Second))
//	return lister.List(ctx, inventory.Query{
//		TerraformResource: "google_dns_managed_zone",
//		Tags:              tags, // the crossplane and intentjournal tags of the intent
//		Scope:             inventory.Scope{Project: project},
//	})
//
// A client is safe for concurrent use: a provider builds one per provider
// config and keeps it, rather than one per listing as this short example
// does. With Application Default Credentials, asset.NewRESTClient(ctx) (or
// asset.NewClient(ctx) for gRPC) needs no option. The credentials need
// cloudasset.assets.searchAllResources on the project.
//
// # What a listing proves
//
// Cloud Asset Inventory is an index that lags behind a create
// (Lister.Consistency): a listing that finds nothing proves the create
// made nothing only once the lag has passed since the latest moment the
// create can have reached GCP (recovery.IndexLag); until then the intent
// waits, its create held, and a later pass lists again. A listing that fails (denied,
// throttled past WithRetry's bound, unreachable) is an error, never an
// empty result.
//
// # Labels
//
// GCP label values admit only [a-z0-9_-], so a tagger writes each tag
// value encoded with recovery.GCPLabelValue (encoding "gcp-v1"): the
// crossplane-kind recordset.dns.gcp.upbound.io is stored as
// recordset_dns_gcp_upbound_io. List asks for the encoded values, and
// accepts a label whose value is either the tag's value or its encoding.
package gcp
