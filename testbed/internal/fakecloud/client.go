package fakecloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultClientTimeout bounds every request of a Client made without
// WithTimeout or WithHTTPClient.
const DefaultClientTimeout = 30 * time.Second

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithHTTPClient makes the client send requests with hc.
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithTimeout bounds every request, including reading the answer. Zero
// means no bound other than the context's.
func WithTimeout(d time.Duration) ClientOption {
	return func(c *Client) {
		hc := *c.hc
		hc.Timeout = d
		c.hc = &hc
	}
}

// Client talks to a fake cloud server. Its methods are safe for concurrent
// use. Error answers are *APIError values, which match ErrNotFound,
// ErrConflict and ErrInvalid with errors.Is. Any other error, such as a
// dropped connection or a deadline, leaves the outcome of a mutation
// unknown: it may or may not have been committed.
type Client struct {
	endpoint string
	hc       *http.Client
}

// defaultTransport keeps as many idle connections to the one fake cloud host
// as callers run requests concurrently. http.DefaultTransport keeps two, so
// a provider or recovery pass with 32 workers would dial (and garbage
// collect the buffers of) a new connection for most requests.
var defaultTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 128
	t.MaxIdleConns = 128
	return t
}()

// NewClient returns a client for the server at endpoint, e.g.
// "http://127.0.0.1:41234".
func NewClient(endpoint string, opts ...ClientOption) *Client {
	c := &Client{
		endpoint: strings.TrimRight(endpoint, "/"),
		hc:       &http.Client{Timeout: DefaultClientTimeout, Transport: defaultTransport},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Endpoint returns the base URL the client talks to.
func (c *Client) Endpoint() string { return c.endpoint }

// do sends a request with an optional JSON body and decodes a 2xx answer
// into out when out is not nil.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("fakecloud: %s %s: cannot encode request: %w", method, path, err)
		}
		body = bytes.NewReader(data)
	}
	u := c.endpoint + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("fakecloud: %s %s: %w", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("fakecloud: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("fakecloud: %s %s: cannot read answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := &APIError{Method: method, Path: path, StatusCode: resp.StatusCode}
		var eb errorBody
		if json.Unmarshal(data, &eb) == nil && eb.Error.Message != "" {
			apiErr.Message = eb.Error.Message
		} else {
			apiErr.Message = truncate(strings.TrimSpace(string(data)), 200)
		}
		return apiErr
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("fakecloud: %s %s: cannot decode answer: %w", method, path, err)
	}
	return nil
}

func escapeID(id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("%w: empty ID", ErrInvalid)
	}
	return url.PathEscape(id), nil
}

// CreateRecordSet creates a record set; rs.ID and rs.CreatedAt are ignored.
// A record set with the same zone and name yields an error matching
// ErrConflict whose text contains "already exists".
func (c *Client) CreateRecordSet(ctx context.Context, rs RecordSet) (RecordSet, error) {
	var out RecordSet
	err := c.do(ctx, http.MethodPost, "/v1/recordsets", nil, recordSetBodyOf(rs), &out)
	return out, err
}

func recordSetBodyOf(rs RecordSet) recordSetBody {
	ttl := rs.TTL
	return recordSetBody{Zone: rs.Zone, Name: rs.Name, Type: rs.Type, TTL: &ttl, RRDatas: rs.RRDatas, Tags: rs.Tags}
}

// GetRecordSet returns the record set with id, or an error matching
// ErrNotFound.
func (c *Client) GetRecordSet(ctx context.Context, id string) (RecordSet, error) {
	var out RecordSet
	p, err := escapeID(id)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodGet, "/v1/recordsets/"+p, nil, nil, &out)
	return out, err
}

// UpdateRecordSet replaces the type, TTL, rrdatas and tags of the record set
// rs.ID. Zone and name are immutable; leave them empty or unchanged.
func (c *Client) UpdateRecordSet(ctx context.Context, rs RecordSet) (RecordSet, error) {
	var out RecordSet
	p, err := escapeID(rs.ID)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodPut, "/v1/recordsets/"+p, nil, recordSetBodyOf(rs), &out)
	return out, err
}

// DeleteRecordSet deletes the record set with id, or returns an error
// matching ErrNotFound.
func (c *Client) DeleteRecordSet(ctx context.Context, id string) error {
	p, err := escapeID(id)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, "/v1/recordsets/"+p, nil, nil, nil)
}

// ListRecordSets returns the record sets f matches, oldest first.
func (c *Client) ListRecordSets(ctx context.Context, f RecordSetFilter) ([]RecordSet, error) {
	q := tagQuery(f.Tags)
	setIf(q, "zone", f.Zone)
	setIf(q, "name", f.Name)
	var out listBody[RecordSet]
	if err := c.do(ctx, http.MethodGet, "/v1/recordsets", q, nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// CreateNetwork creates a network; n.ID and n.CreatedAt are ignored. Every
// call that reaches the server makes a new network, so retrying after an
// unknown outcome can leave a duplicate.
func (c *Client) CreateNetwork(ctx context.Context, n Network) (Network, error) {
	var out Network
	err := c.do(ctx, http.MethodPost, "/v1/networks", nil, networkBodyOf(n), &out)
	return out, err
}

func networkBodyOf(n Network) networkBody {
	return networkBody{Name: n.Name, CIDRBlock: n.CIDRBlock, Tags: n.Tags}
}

// GetNetwork returns the network with id, or an error matching ErrNotFound.
func (c *Client) GetNetwork(ctx context.Context, id string) (Network, error) {
	var out Network
	p, err := escapeID(id)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodGet, "/v1/networks/"+p, nil, nil, &out)
	return out, err
}

// UpdateNetwork replaces the name, CIDR block and tags of the network n.ID.
func (c *Client) UpdateNetwork(ctx context.Context, n Network) (Network, error) {
	var out Network
	p, err := escapeID(n.ID)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodPut, "/v1/networks/"+p, nil, networkBodyOf(n), &out)
	return out, err
}

// DeleteNetwork deletes the network with id, or returns an error matching
// ErrNotFound.
func (c *Client) DeleteNetwork(ctx context.Context, id string) error {
	p, err := escapeID(id)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, "/v1/networks/"+p, nil, nil, nil)
}

// ListNetworks returns the networks f matches, oldest first.
func (c *Client) ListNetworks(ctx context.Context, f NetworkFilter) ([]Network, error) {
	q := tagQuery(f.Tags)
	setIf(q, "name", f.Name)
	var out listBody[Network]
	if err := c.do(ctx, http.MethodGet, "/v1/networks", q, nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// CreateAddress reserves an address; a.ID and a.CreatedAt are ignored.
// Like CreateNetwork, every call that reaches the server reserves a new
// address, so retrying after an ambiguous failure may leave a duplicate.
func (c *Client) CreateAddress(ctx context.Context, a Address) (Address, error) {
	var out Address
	err := c.do(ctx, http.MethodPost, "/v1/addresses", nil, addressBody{Name: a.Name, Tags: a.Tags}, &out)
	return out, err
}

// GetAddress returns the address with id, or an error matching ErrNotFound.
func (c *Client) GetAddress(ctx context.Context, id string) (Address, error) {
	var out Address
	p, err := escapeID(id)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodGet, "/v1/addresses/"+p, nil, nil, &out)
	return out, err
}

// UpdateAddress replaces the name and tags of the address a.ID.
func (c *Client) UpdateAddress(ctx context.Context, a Address) (Address, error) {
	var out Address
	p, err := escapeID(a.ID)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodPut, "/v1/addresses/"+p, nil, addressBody{Name: a.Name, Tags: a.Tags}, &out)
	return out, err
}

// DeleteAddress deletes the address with id, or returns an error matching
// ErrNotFound.
func (c *Client) DeleteAddress(ctx context.Context, id string) error {
	p, err := escapeID(id)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, "/v1/addresses/"+p, nil, nil, nil)
}

// ListAddresses returns the addresses f matches, oldest first.
func (c *Client) ListAddresses(ctx context.Context, f AddressFilter) ([]Address, error) {
	q := tagQuery(f.Tags)
	setIf(q, "name", f.Name)
	var out listBody[Address]
	if err := c.do(ctx, http.MethodGet, "/v1/addresses", q, nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// CreateBucket creates a bucket; b.ID and b.CreatedAt are ignored. A
// bucket whose name exists anywhere in the cloud yields an error matching
// ErrConflict.
func (c *Client) CreateBucket(ctx context.Context, b Bucket) (Bucket, error) {
	var out Bucket
	err := c.do(ctx, http.MethodPost, "/v1/buckets", nil, bucketBody{Name: b.Name, Tags: b.Tags}, &out)
	return out, err
}

// GetBucket returns the bucket with id, or an error matching ErrNotFound.
func (c *Client) GetBucket(ctx context.Context, id string) (Bucket, error) {
	var out Bucket
	p, err := escapeID(id)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodGet, "/v1/buckets/"+p, nil, nil, &out)
	return out, err
}

// UpdateBucket replaces the tags of the bucket b.ID; its name cannot
// change.
func (c *Client) UpdateBucket(ctx context.Context, b Bucket) (Bucket, error) {
	var out Bucket
	p, err := escapeID(b.ID)
	if err != nil {
		return out, err
	}
	err = c.do(ctx, http.MethodPut, "/v1/buckets/"+p, nil, bucketBody{Name: b.Name, Tags: b.Tags}, &out)
	return out, err
}

// DeleteBucket deletes the bucket with id, or returns an error matching
// ErrNotFound.
func (c *Client) DeleteBucket(ctx context.Context, id string) error {
	p, err := escapeID(id)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, "/v1/buckets/"+p, nil, nil, nil)
}

// ListBuckets returns the buckets f matches, oldest first.
func (c *Client) ListBuckets(ctx context.Context, f BucketFilter) ([]Bucket, error) {
	q := tagQuery(f.Tags)
	setIf(q, "name", f.Name)
	var out listBody[Bucket]
	if err := c.do(ctx, http.MethodGet, "/v1/buckets", q, nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// Stats returns the server's counters and every live object. Stats is never
// subject to injected faults.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var out Stats
	err := c.do(ctx, http.MethodGet, "/v1/stats", nil, nil, &out)
	return out, err
}

// SetFaults replaces the server's fault configuration.
func (c *Client) SetFaults(ctx context.Context, f Faults) error {
	return c.do(ctx, http.MethodPut, "/v1/faults", nil, f, nil)
}

// Faults returns the server's fault configuration.
func (c *Client) Faults(ctx context.Context) (Faults, error) {
	var out Faults
	err := c.do(ctx, http.MethodGet, "/v1/faults", nil, nil, &out)
	return out, err
}

// Healthy returns nil when the server answers its health check.
func (c *Client) Healthy(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil, nil)
}

func tagQuery(tags map[string]string) url.Values {
	q := url.Values{}
	for k, v := range tags {
		q.Set("tag."+k, v)
	}
	return q
}

func setIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// IsAmbiguous reports whether err leaves the outcome of a mutation unknown,
// so that the mutation may have been committed: transport errors, deadlines
// and 5xx answers. A 4xx answer is definite: nothing was changed.
func IsAmbiguous(err error) bool {
	if err == nil {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode >= 500
	}
	return true
}
