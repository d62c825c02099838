package azure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph"

	"github.com/intentjournal/intentjournal/inventory"
)

// DefaultLag is how far behind a create Resource Graph is taken to be.
// Microsoft documents Resource Graph as an asynchronous, eventually
// consistent index that "lags behind the source of truth by a brief
// period, occasionally longer in case there are any backend disruptions",
// kept in sync by change notifications and a periodic consistency check
// that catches the notifications it missed
// (https://learn.microsoft.com/azure/governance/resource-graph/choose-query-strategy),
// but it states no figure. A figure quoted in Azure/azure-dev#540 (95% of
// changes within 30 s, no upper bound) is not documentation. Until the
// delay is measured, an hour: an intent younger than this whose listing
// finds nothing is reported, never cleared. WithLag sets another.
const DefaultLag = time.Hour

var (
	// ErrThrottled reports a query Resource Graph still refused with 429
	// Too Many Requests when the client's retry policy gave up.
	ErrThrottled = errors.New("azure: Resource Graph throttled the query past the client's retries")
	// ErrTruncated reports a result Resource Graph marked truncated with no
	// $skipToken to read the rest by: the listing is incomplete.
	ErrTruncated = errors.New("azure: Resource Graph truncated the result and gave no $skipToken")
)

// headerQuotaResetsAfter is the Resource Graph response header that says
// (hh:mm:ss) when the caller's query quota is restored.
const headerQuotaResetsAfter = "x-ms-user-quota-resets-after"

// Lister lists Azure resources by tags through Azure Resource Graph
// (inventory.Lister), one subscription at a time.
type Lister struct {
	client   *armresourcegraph.Client
	lag      time.Duration
	listings inventory.Listings
	// err is why the listings cannot be used: every listing fails.
	err error
}

// Option configures a Lister.
type Option func(*Lister)

// WithLag sets Consistency's Lag (DefaultLag), once Resource Graph's delay
// behind a create has been measured.
func WithLag(d time.Duration) Option { return func(l *Lister) { l.lag = d } }

// WithListing adds x to the shipped listings (Listings), or replaces the
// row of its type: a type the provider knows Resource Graph lists, or
// does not, with its evidence (its index type TABLE:type or TABLE). A
// listing without a type or evidence makes every List fail, saying so.
func WithListing(x inventory.Listing) Option {
	return func(l *Lister) {
		if l.err != nil {
			return
		}
		l.listings, l.err = l.listings.With(x)
	}
}

// New returns a Lister that queries Resource Graph with client, which the
// provider builds with its own credential and options (see the package
// documentation). Throttling (429 with Retry-After) is retried by the
// client's retry policy, as its arm.ClientOptions configure it; what is
// left after the retries is an error wrapping ErrThrottled, never an
// empty listing.
func New(client *armresourcegraph.Client, opts ...Option) *Lister {
	l := &Lister{client: client, lag: DefaultLag, listings: shipped, err: shippedErr}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Consistency says Resource Graph is an index, DefaultLag (or WithLag's)
// behind a create: its "nothing found" proves nothing for a younger
// intent.
func (l *Lister) Consistency() inventory.Consistency {
	return inventory.Consistency{ReadAfterWrite: false, Lag: l.lag}
}

// Listing says what Resource Graph lists of the terraform-provider-azurerm
// resource type tfResource: the shipped listings (Listings) with
// WithListing's rows. A type they do not name is not listed.
func (l *Lister) Listing(tfResource string) inventory.Listing {
	if l.err != nil {
		return inventory.Listing{TerraformResource: tfResource, Evidence: "the listings cannot be read: " + l.err.Error()}
	}
	return l.listings.Of(tfResource)
}

// List returns the resources of q's subscription (q.Scope.Subscription,
// else an error wrapping inventory.ErrScope) that carry every tag of
// q.Tags, narrowed to q.TerraformResource's table and ARM type where its
// Listing gives them, every page of them ($skipToken). A type Resource
// Graph does not list is refused (inventory.ErrNotListed): its empty
// answer would prove nothing. Each carries its
// ARM ID as its Identifier, its ARM type as Resource Graph reports it (in
// lower case), its tags, and systemData.createdAt as its CreatedAt where
// Resource Graph has it.
//
// The query matches loosely (see query); List keeps a resource only where
// each tag of q.Tags is carried with a key equal in any case and exactly
// the value. Any failure is an error naming the subscription, the type
// and the page: a denied, throttled, truncated or undecodable answer is
// never an empty listing.
func (l *Lister) List(ctx context.Context, q inventory.Query) ([]inventory.Resource, error) {
	sub := q.Scope.Subscription
	if sub == "" {
		return nil, fmt.Errorf("cannot list %s by tags: %w: no Azure subscription", q.TerraformResource, inventory.ErrScope)
	}
	where := fmt.Sprintf("cannot list %s by tags in subscription %q", q.TerraformResource, sub)
	if len(q.Tags) == 0 {
		return nil, fmt.Errorf("%s: no tags to look for", where)
	}
	for k, v := range q.Tags {
		// Azure's tags are JSON strings: no resource can carry one
		// that is not UTF-8, and the request would carry it altered.
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("%s: tag %q=%q is not UTF-8", where, k, v)
		}
	}
	x := l.Listing(q.TerraformResource)
	if !x.Listed {
		return nil, fmt.Errorf("%s: %w (%s)", where, inventory.ErrNotListed, x.Evidence)
	}
	if l.client == nil {
		return nil, fmt.Errorf("%s: no Resource Graph client", where)
	}
	table, armType := tableAndType(x)
	format := armresourcegraph.ResultFormatObjectArray
	req := armresourcegraph.QueryRequest{
		Query:         new(query(table, armType, q.Tags)),
		Subscriptions: []*string{&sub},
		Options:       &armresourcegraph.QueryRequestOptions{ResultFormat: &format},
	}
	var out []inventory.Resource
	tokens := map[string]bool{}
	for page := 1; ; page++ {
		resp, err := l.client.Resources(ctx, req, nil)
		if err != nil {
			return nil, queryError(where, page, err)
		}
		rows, err := rowsOf(resp.QueryResponse)
		if err != nil {
			return nil, fmt.Errorf("%s, page %d: %w", where, page, err)
		}
		for _, r := range rows {
			if !carries(r.Tags, q.Tags) {
				continue
			}
			res, err := r.resource()
			if err != nil {
				return nil, fmt.Errorf("%s, page %d: %w", where, page, err)
			}
			out = append(out, res)
		}
		token := ""
		if resp.SkipToken != nil {
			token = *resp.SkipToken
		}
		if token == "" {
			if resp.ResultTruncated != nil && *resp.ResultTruncated == armresourcegraph.ResultTruncatedTrue {
				return nil, fmt.Errorf("%s, page %d: %w", where, page, ErrTruncated)
			}
			return out, nil
		}
		if tokens[token] {
			return nil, fmt.Errorf("%s, page %d: Resource Graph answered a $skipToken it had answered before", where, page)
		}
		tokens[token] = true
		req.Options.SkipToken = &token
	}
}

// queryError wraps err, the failure of the query for page, with where and,
// for a 429 left after the client's retries, ErrThrottled and when the
// quota resets.
func queryError(where string, page int, err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.StatusCode == http.StatusTooManyRequests {
		reset := "an unstated time"
		if re.RawResponse != nil && re.RawResponse.Header.Get(headerQuotaResetsAfter) != "" {
			reset = re.RawResponse.Header.Get(headerQuotaResetsAfter)
		}
		return fmt.Errorf("%s, page %d: %w (the quota resets after %s): %w", where, page, ErrThrottled, reset, err)
	}
	return fmt.Errorf("%s, page %d: %w", where, page, err)
}

// row is one object of a result's data, as the query projects it.
type row struct {
	ID         string            `json:"id"`
	Type       string            `json:"type"`
	Tags       map[string]string `json:"tags"`
	SystemData *struct {
		CreatedAt string `json:"createdAt"`
	} `json:"systemData"`
}

// rowsOf decodes the data of an objectArray result, checking that it holds
// as many records as the result counts.
func rowsOf(r armresourcegraph.QueryResponse) ([]row, error) {
	if r.Data == nil {
		return nil, errors.New("the result holds no data")
	}
	raw, err := json.Marshal(r.Data)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the result's data: %w", err)
	}
	var rows []row
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, fmt.Errorf("cannot decode the result's data as an array of resources: %w", err)
	}
	if r.Count != nil && *r.Count != int64(len(rows)) {
		return nil, fmt.Errorf("the result counts %d records but holds %d", *r.Count, len(rows))
	}
	return rows, nil
}

// resource returns r as an inventory.Resource.
func (r row) resource() (inventory.Resource, error) {
	if r.ID == "" {
		return inventory.Resource{}, fmt.Errorf("a resource carrying the tags %v has no id", r.Tags)
	}
	res := inventory.Resource{Identifier: r.ID, Type: r.Type, Tags: r.Tags}
	if r.SystemData != nil && r.SystemData.CreatedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, r.SystemData.CreatedAt)
		if err != nil {
			return inventory.Resource{}, fmt.Errorf("cannot parse the systemData.createdAt of %s: %w", r.ID, err)
		}
		res.CreatedAt = t
	}
	return res, nil
}

var _ inventory.Lister = (*Lister)(nil)
