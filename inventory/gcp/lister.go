package gcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	asset "cloud.google.com/go/asset/apiv1"
	"cloud.google.com/go/asset/apiv1/assetpb"
	"google.golang.org/api/iterator"

	"github.com/intentjournal/intentjournal/inventory"
)

// pageSize is the searchAllResources page size asked for: its maximum
// ("Page size is capped at 500 even if a larger value is given").
const pageSize = 500

// Lister lists GCP resources by labels through Cloud Asset Inventory's
// searchAllResources (inventory.Lister).
type Lister struct {
	client *asset.Client

	attempts   int
	maxBackoff time.Duration
	lag        time.Duration
	now        func() time.Time
	listings   inventory.Listings
	// err is why the listings cannot be used: every listing fails.
	err error
}

// New returns a Lister that searches through client. The caller builds
// client with the credentials of the provider config (asset.NewClient
// for gRPC, asset.NewRESTClient for REST; both work) and closes it when
// done; the Lister never closes it. The credentials need
// cloudasset.assets.searchAllResources on each project listed (roles/
// cloudasset.viewer grants it).
func New(client *asset.Client, opts ...Option) *Lister {
	l := &Lister{
		client:     client,
		attempts:   DefaultAttempts,
		maxBackoff: DefaultMaxBackoff,
		lag:        DefaultLag,
		now:        time.Now,
		listings:   shipped,
		err:        shippedErr,
	}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Consistency says Cloud Asset Inventory is an index, not read after
// write. Its documentation gives no figure for how soon a new resource is
// searchable: "Cloud Asset Inventory provides eventual consistency on
// current data", and "unless noted [per asset type], almost all asset
// updates are available in minutes"
// (https://cloud.google.com/asset-inventory/docs/asset-types); its best
// practices warn that "newly provisioned or modified resources might not
// be immediately queryable" and that updates can be dropped
// (https://cloud.google.com/asset-inventory/docs/best-practice). Lag is
// therefore a conservative DefaultLag of 10 minutes (WithLag changes it):
// a listing that finds nothing clears an intent only once Lag has passed
// since the latest moment its create can have reached GCP. Some asset types are documented as hours behind; none
// of those is in AssetTypes' table.
func (l *Lister) Consistency() inventory.Consistency {
	return inventory.Consistency{ReadAfterWrite: false, Lag: l.lag}
}

// Listing says what Cloud Asset Inventory lists of the
// terraform-provider-google resource type tfResource: the shipped
// listings (Listings) with WithListing's rows. A type they do not name is
// not listed.
func (l *Lister) Listing(tfResource string) inventory.Listing {
	if l.err != nil {
		return inventory.Listing{TerraformResource: tfResource, Evidence: "the listings cannot be read: " + l.err.Error()}
	}
	return l.listings.Of(tfResource)
}

// List returns the resources of q.Scope.Project that carry every tag of
// q.Tags as a label, narrowed to the asset types of q.TerraformResource
// where its Listing gives them, every page of them. A type Cloud Asset
// Inventory does not list is refused (inventory.ErrNotListed): its empty
// answer would prove nothing. Each carries its full
// resource name (//compute.googleapis.com/projects/p/global/networks/n)
// as its Identifier, its asset type as its Type, its labels as its Tags,
// and its createTime, where the index has one, as its CreatedAt.
//
// The search asks the service for every tag as a label whose value is
// encoded with recovery.GCPLabelValue (the form a tagger writes to GCP),
// and List checks every result again, accepting a label value that is
// the tag's value or its encoding: a search the service answers loosely
// never returns a stranger.
//
// A scope without a project is an error wrapping inventory.ErrScope.
// Throttling and unavailability are retried within WithRetry's bound;
// what is left, and any other failure, is an error naming the project
// and the Terraform type, never an empty or partial listing.
func (l *Lister) List(ctx context.Context, q inventory.Query) ([]inventory.Resource, error) {
	what := q.TerraformResource
	if what == "" {
		what = "resources of any type"
	}
	if q.Scope.Project == "" {
		return nil, fmt.Errorf("%w: cannot list %s by labels: no GCP project", inventory.ErrScope, what)
	}
	if len(q.Tags) == 0 {
		return nil, fmt.Errorf("cannot list %s by labels in project %q: no tags to look for", what, q.Scope.Project)
	}
	x := l.Listing(q.TerraformResource)
	if !x.Listed {
		return nil, fmt.Errorf("cannot list %s by labels in project %q: %w (%s)", what, q.Scope.Project, inventory.ErrNotListed, x.Evidence)
	}
	if l.client == nil {
		return nil, fmt.Errorf("cannot list %s by labels in project %q: no Cloud Asset Inventory client", what, q.Scope.Project)
	}
	req := &assetpb.SearchAllResourcesRequest{
		Scope:      "projects/" + q.Scope.Project,
		Query:      searchQuery(q.Tags),
		AssetTypes: append([]string(nil), x.IndexTypes...),
		PageSize:   pageSize,
	}
	var out []inventory.Resource
	it := l.client.SearchAllResources(ctx, req, l.callOptions()...)
	for read := 0; ; read++ {
		r, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot list %s by labels in project %q after %d search results: %w", what, q.Scope.Project, read, err)
		}
		if r.GetName() == "" || !carries(r.GetLabels(), q.Tags) {
			continue
		}
		out = append(out, resource(r))
	}
}

// resource maps a search result to what the Lister returns.
func resource(r *assetpb.ResourceSearchResult) inventory.Resource {
	res := inventory.Resource{Identifier: r.GetName(), Type: r.GetAssetType(), Tags: r.GetLabels()}
	if ct := r.GetCreateTime(); ct != nil && ct.IsValid() && (ct.GetSeconds() != 0 || ct.GetNanos() != 0) {
		res.CreatedAt = ct.AsTime()
	}
	return res
}

var _ inventory.Lister = (*Lister)(nil)
