package aws

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	tagging "github.com/aws/aws-sdk-go-v2/service/resourcegroupstaggingapi"
	"github.com/aws/aws-sdk-go-v2/service/resourcegroupstaggingapi/types"
	"github.com/aws/smithy-go"

	"github.com/intentjournal/intentjournal/inventory"
)

// Client is what the Lister calls: the Resource Groups Tagging API's
// GetResources, as *resourcegroupstaggingapi.Client serves it.
type Client interface {
	GetResources(ctx context.Context, in *tagging.GetResourcesInput, optFns ...func(*tagging.Options)) (*tagging.GetResourcesOutput, error)
}

// ClientFor returns the Tagging API client of a scope: its region, with
// the credentials of its account. A provider builds it from the provider
// config the managed resource names, as provider-upjet-aws resolves its
// credentials.
type ClientFor func(ctx context.Context, scope inventory.Scope) (Client, error)

// Static returns a ClientFor that answers every scope of region with c: a
// provider with one account and region. A global service's kinds are
// listed in their home region (Listing.Region: us-east-1 or us-west-2),
// which Static refuses unless it is region: their lookups then fail,
// naming the region, and their creates are reported, never cleared. A
// provider that creates such kinds gives a ClientFor that serves their
// home regions too.
func Static(region string, c Client) ClientFor {
	return func(_ context.Context, s inventory.Scope) (Client, error) {
		if s.Region != "" && s.Region != region {
			return nil, fmt.Errorf("%w: region %q, but the Tagging API client is for %q", inventory.ErrScope, s.Region, region)
		}
		return c, nil
	}
}

// DefaultLag is how far behind a tag the Tagging API is taken to be. AWS
// documents the API as reading each service's tags but gives no figure
// for how soon a new resource's tags are listed; until one is measured,
// the API is treated as an index, and an intent younger than this whose
// listing finds nothing is reported, never cleared.
const DefaultLag = 5 * time.Minute

// pageSize is GetResources' ResourcesPerPage, its maximum.
const pageSize = 100

// Lister lists AWS resources by tags through the Resource Groups Tagging
// API (inventory.Lister).
type Lister struct {
	clients  ClientFor
	lag      time.Duration
	listings inventory.Listings
	// err is why the listings cannot be used: every listing fails.
	err error
}

// Option configures a Lister.
type Option func(*Lister)

// WithLag sets Consistency's Lag (DefaultLag).
func WithLag(d time.Duration) Option { return func(l *Lister) { l.lag = d } }

// WithListing adds x to the shipped listings (Listings), or replaces the
// row of its type: a type the provider knows the Tagging API lists, or
// does not, with its evidence. A listing without a type or evidence makes
// every List fail, saying so.
func WithListing(x inventory.Listing) Option {
	return func(l *Lister) {
		if l.err != nil {
			return
		}
		l.listings, l.err = l.listings.With(x)
	}
}

// New returns a Lister that lists through the clients clients returns.
// Throttling (ThrottledException) is retried by the client's own retryer,
// which a provider sets in the client's options (the SDK's standard
// retryer retries it by default); what is left after the retries is an
// error, never an empty listing.
func New(clients ClientFor, opts ...Option) *Lister {
	l := &Lister{clients: clients, lag: DefaultLag, listings: shipped, err: shippedErr}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Consistency says the Tagging API is taken as an index, DefaultLag
// behind (see DefaultLag).
func (l *Lister) Consistency() inventory.Consistency {
	return inventory.Consistency{ReadAfterWrite: false, Lag: l.lag}
}

// Listing says what the Tagging API lists of the terraform-provider-aws
// resource type tfResource: the shipped listings (Listings) with
// WithListing's rows. A type they do not name is not listed.
func (l *Lister) Listing(tfResource string) inventory.Listing {
	if l.err != nil {
		return inventory.Listing{TerraformResource: tfResource, Evidence: "the listings cannot be read: " + l.err.Error()}
	}
	return l.listings.Of(tfResource)
}

// List returns the resources that carry every tag of q.Tags, every page
// of them, in q's scope: its account, and its region or, for a global
// service's type, the type's home region (Listing.Region), narrowed to
// the type's ResourceTypeFilters where its Listing gives them. Each
// carries its ARN as its Identifier and the service and resource type of
// the ARN as its Type; the Tagging API reports no creation time. A type
// the Tagging API does not list is refused (inventory.ErrNotListed): its
// empty answer would prove nothing.
func (l *Lister) List(ctx context.Context, q inventory.Query) ([]inventory.Resource, error) {
	if len(q.Tags) == 0 {
		return nil, fmt.Errorf("cannot list %s by tags: no tags to look for", q.TerraformResource)
	}
	x := l.Listing(q.TerraformResource)
	if !x.Listed {
		return nil, fmt.Errorf("cannot list %s by tags: %w (%s)", q.TerraformResource, inventory.ErrNotListed, x.Evidence)
	}
	if x.Region != "" {
		q.Scope.Region = x.Region
	}
	c, err := l.clients(ctx, q.Scope)
	if err != nil {
		return nil, fmt.Errorf("cannot list %s in region %q: %w", q.TerraformResource, q.Scope.Region, err)
	}
	in := &tagging.GetResourcesInput{ResourcesPerPage: aws.Int32(pageSize), ResourceTypeFilters: x.IndexTypes}
	for _, k := range slices.Sorted(maps.Keys(q.Tags)) {
		in.TagFilters = append(in.TagFilters, types.TagFilter{Key: aws.String(k), Values: []string{q.Tags[k]}})
	}
	var out []inventory.Resource
	p := tagging.NewGetResourcesPaginator(c, in)
	for page := 1; p.HasMorePages(); page++ {
		res, err := p.NextPage(ctx)
		if err != nil {
			if denied(err) {
				return nil, fmt.Errorf("cannot list %s by tags in region %q, page %d: %w (grant the provider's role tag:GetResources): %w", q.TerraformResource, q.Scope.Region, page, inventory.ErrDenied, err)
			}
			return nil, fmt.Errorf("cannot list %s by tags in region %q, page %d: %w", q.TerraformResource, q.Scope.Region, page, err)
		}
		for _, m := range res.ResourceTagMappingList {
			r := inventory.Resource{Identifier: aws.ToString(m.ResourceARN), Type: arnType(aws.ToString(m.ResourceARN)), Tags: map[string]string{}}
			for _, t := range m.Tags {
				r.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
			// The filters are the API's; a stranger must not pass
			// even if they are loosened.
			if r.Identifier != "" && carries(r.Tags, q.Tags) {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// denied reports whether err is the Tagging API refusing the caller's
// permissions: an AccessDeniedException (which the JSON protocol answers
// with status 400, and a gateway may with 403), or a bare 403.
func denied(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "AccessDeniedException" || ae.ErrorCode() == "AccessDenied") {
		return true
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusForbidden
}

// carries reports whether have holds every tag of want with its value.
func carries(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// arnType returns the "service:resource-type" of an ARN, the form of
// GetResources' ResourceTypeFilters, or "" for what is not an ARN.
func arnType(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return ""
	}
	res := parts[5]
	if i := strings.IndexAny(res, "/:"); i >= 0 {
		res = res[:i]
	} else {
		return parts[2]
	}
	return parts[2] + ":" + res
}

var _ inventory.Lister = (*Lister)(nil)
