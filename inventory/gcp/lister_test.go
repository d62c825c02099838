package gcp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/intentjournal/intentjournal/inventory"
)

// The tags of one intent, as recovery asks for them, and the labels a
// tagger wrote for them to GCP (values encoded with GCPLabelValue).
var (
	wantTags = map[string]string{
		"crossplane-kind":         "recordset.dns.gcp.upbound.io",
		"crossplane-name":         "zone-a",
		"intentjournal-intent-id": "0a1b2c3d",
	}
	ourLabels = map[string]string{
		"crossplane-kind":         "recordset_dns_gcp_upbound_io",
		"crossplane-name":         "zone-a",
		"intentjournal-intent-id": "0a1b2c3d",
		"team":                    "dns",
	}
	ours = result{
		Name:       "//dns.googleapis.com/projects/my-project/managedZones/zone-a",
		AssetType:  "dns.googleapis.com/ManagedZone",
		Labels:     ourLabels,
		CreateTime: "2026-11-20T10:00:00.5Z",
	}
	oursListed = inventory.Resource{
		Identifier: ours.Name,
		Type:       ours.AssetType,
		Tags:       ourLabels,
		CreatedAt:  time.Date(2026, 11, 20, 10, 0, 0, 500_000_000, time.UTC),
	}
)

// query is the Query of the tests, for the Terraform type tf.
func query(tf string) inventory.Query {
	return inventory.Query{TerraformResource: tf, Tags: wantTags, Scope: inventory.Scope{Project: "my-project"}}
}

// fast is the retry bound of the tests: three tries within 50 ms.
var fast = WithRetry(3, 50*time.Millisecond)

// TestListRequest asserts, from the server's side, the request the SDK
// sends for a listing.
func TestListRequest(t *testing.T) {
	const wantQuery = `labels.crossplane-kind="recordset_dns_gcp_upbound_io" AND labels.crossplane-name="zone-a" AND labels.intentjournal-intent-id="0a1b2c3d"`
	cases := map[string]struct {
		reason string
		tf     string
		want   url.Values
	}{
		"KnownType": {
			reason: "A mapped Terraform type narrows the search to its asset type; every tag is an exact label clause with its value encoded.",
			tf:     "google_dns_managed_zone",
			want: url.Values{
				"$alt":       {"json;enum-encoding=int"},
				"assetTypes": {"dns.googleapis.com/ManagedZone"},
				"pageSize":   {"500"},
				"query":      {wantQuery},
			},
		},
		"ListedWithoutAssetType": {
			reason: "A type listed with no asset type (WithListing) sends none: the crossplane-kind label still narrows the search.",
			tf:     "google_dns_record_set",
			want: url.Values{
				"$alt":     {"json;enum-encoding=int"},
				"pageSize": {"500"},
				"query":    {wantQuery},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, c := newFake(t, func(int, *http.Request) reply { return ok(page{}) })
			added := WithListing(inventory.Listing{TerraformResource: "google_dns_record_set", Listed: true, Evidence: "the test's"})
			if _, err := New(c, added).List(context.Background(), query(tc.tf)); err != nil {
				t.Fatalf("List: %v", err)
			}
			want := []request{{Method: http.MethodGet, Path: "/v1/projects/my-project:searchAllResources", Query: tc.want}}
			if diff := cmp.Diff(want, f.requests()); diff != "" {
				t.Errorf("%s\nrequests (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListPages: our resource on the last of three pages is found, each
// page asked for with the token of the one before.
func TestListPages(t *testing.T) {
	stranger := func(n string) result {
		return result{Name: "//dns.googleapis.com/projects/my-project/managedZones/" + n, AssetType: "dns.googleapis.com/ManagedZone", Labels: map[string]string{"crossplane-kind": "recordset_dns_gcp_upbound_io", "crossplane-name": n, "intentjournal-intent-id": "0a1b2c3d"}}
	}
	pages := map[string]page{
		"":   {Results: []result{stranger("zone-b")}, NextPageToken: "p2"},
		"p2": {Results: []result{stranger("zone-c")}, NextPageToken: "p3"},
		"p3": {Results: []result{ours}},
	}
	f, c := newFake(t, func(_ int, r *http.Request) reply { return ok(pages[r.URL.Query().Get("pageToken")]) })
	got, err := New(c).List(context.Background(), query("google_dns_managed_zone"))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if diff := cmp.Diff([]inventory.Resource{oursListed}, got); diff != "" {
		t.Errorf("our resource on page 3 of 3 must be listed, the two strangers not (-want +got):\n%s", diff)
	}
	var tokens []string
	for _, r := range f.requests() {
		tokens = append(tokens, r.Query.Get("pageToken"))
	}
	if diff := cmp.Diff([]string{"", "p2", "p3"}, tokens); diff != "" {
		t.Errorf("each page must be asked for with the previous page's token (-want +got):\n%s", diff)
	}
}

// TestListFilters: whatever the server returns, List lists only a
// resource that carries every tag, raw or encoded, and maps its fields.
func TestListFilters(t *testing.T) {
	with := func(r result, k, v string) result {
		l := map[string]string{}
		for lk, lv := range r.Labels {
			l[lk] = lv
		}
		if v == "" {
			delete(l, k)
		} else {
			l[k] = v
		}
		r.Labels = l
		return r
	}
	raw := with(ours, "crossplane-kind", "recordset.dns.gcp.upbound.io")
	noTime := ours
	noTime.CreateTime = ""
	cases := map[string]struct {
		reason  string
		results []result
		want    []inventory.Resource
	}{
		"Encoded": {
			reason:  "Label values encoded with GCPLabelValue match the tags; createTime becomes CreatedAt.",
			results: []result{ours},
			want:    []inventory.Resource{oursListed},
		},
		"Raw": {
			reason:  "A label value equal to the tag's raw value matches too.",
			results: []result{raw},
			want:    []inventory.Resource{{Identifier: ours.Name, Type: ours.AssetType, Tags: raw.Labels, CreatedAt: oursListed.CreatedAt}},
		},
		"StrangerOneValue": {
			reason:  "A stranger whose labels differ from ours only in one value is not listed.",
			results: []result{with(ours, "intentjournal-intent-id", "0a1b2c3e"), ours},
			want:    []inventory.Resource{oursListed},
		},
		"StrangerMissingLabel": {
			reason:  "A resource that lacks one of the labels is not listed.",
			results: []result{with(ours, "crossplane-name", "")},
			want:    nil,
		},
		"StrangerCaseDiffers": {
			reason:  "An encoded value is lower case: a label value in another case is neither the raw nor the encoded value.",
			results: []result{with(ours, "crossplane-name", "Zone-A")},
			want:    nil,
		},
		"NoCreateTime": {
			reason:  "A result without createTime has a zero CreatedAt.",
			results: []result{noTime},
			want:    []inventory.Resource{{Identifier: ours.Name, Type: ours.AssetType, Tags: ourLabels}},
		},
		"NoName": {
			reason:  "A result without a name identifies nothing and is not listed.",
			results: []result{{AssetType: ours.AssetType, Labels: ourLabels}},
			want:    nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, c := newFake(t, func(int, *http.Request) reply { return ok(page{Results: tc.results}) })
			got, err := New(c).List(context.Background(), query("google_dns_managed_zone"))
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nList (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListThrottled: throttling and unavailability are retried within
// the bound; past it, List returns an error, never an empty listing.
func TestListThrottled(t *testing.T) {
	throttled := apiError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Search requests'", nil)
	cases := map[string]struct {
		reason   string
		opts     []Option
		answer   func(n int) reply
		want     []inventory.Resource
		wantCode codes.Code // of the error, where one is wanted
		wantReqs int
		minTime  time.Duration
	}{
		"429TwiceThen200": {
			reason: "Two 429s are retried and the third try finds our resource.",
			opts:   []Option{fast},
			answer: func(n int) reply {
				if n < 2 {
					return throttled
				}
				return ok(page{Results: []result{ours}})
			},
			want:     []inventory.Resource{oursListed},
			wantReqs: 3,
		},
		"503Then200": {
			reason: "A 503 (Unavailable) is retried too.",
			opts:   []Option{fast},
			answer: func(n int) reply {
				if n < 1 {
					return apiError(http.StatusServiceUnavailable, "UNAVAILABLE", "backend unavailable", nil)
				}
				return ok(page{Results: []result{ours}})
			},
			want:     []inventory.Resource{oursListed},
			wantReqs: 2,
		},
		"429Forever": {
			reason:   "A 429 on every try is an error once the three tries are spent, not an empty result.",
			opts:     []Option{fast},
			answer:   func(int) reply { return throttled },
			wantCode: codes.ResourceExhausted,
			wantReqs: 3,
		},
		"RetryAfterBeyondBudget": {
			reason: "A Retry-After longer than the budget left ends the retries at once: an early retry would be throttled again.",
			opts:   []Option{fast},
			answer: func(int) reply {
				return apiError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "slow down", http.Header{"Retry-After": {"1"}})
			},
			wantCode: codes.ResourceExhausted,
			wantReqs: 1,
		},
		"RetryAfterHonoured": {
			reason: "A Retry-After within the budget is waited out before the retry.",
			opts:   []Option{WithRetry(2, 3*time.Second)},
			answer: func(n int) reply {
				if n < 1 {
					return apiError(http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "slow down", http.Header{"Retry-After": {"1"}})
				}
				return ok(page{Results: []result{ours}})
			},
			want:     []inventory.Resource{oursListed},
			wantReqs: 2,
			minTime:  time.Second,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, c := newFake(t, func(n int, _ *http.Request) reply { return tc.answer(n) })
			start := time.Now()
			got, err := New(c, tc.opts...).List(context.Background(), query("google_dns_managed_zone"))
			elapsed := time.Since(start)
			switch {
			case tc.wantCode != codes.OK:
				if err == nil {
					t.Fatalf("%s\nList = %v, nil: want an error", tc.reason, got)
				}
				if got != nil {
					t.Errorf("%s\nList returned %v with its error: want nothing", tc.reason, got)
				}
				if code := status.Code(err); code != tc.wantCode {
					t.Errorf("%s\nstatus.Code(%v) = %v, want %v", tc.reason, err, code, tc.wantCode)
				}
			case err != nil:
				t.Fatalf("%s\nList: %v", tc.reason, err)
			default:
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s\nList (-want +got):\n%s", tc.reason, diff)
				}
			}
			if n := len(f.requests()); n != tc.wantReqs {
				t.Errorf("%s\nthe server saw %d requests, want %d", tc.reason, n, tc.wantReqs)
			}
			if elapsed < tc.minTime {
				t.Errorf("%s\nList took %v, want at least %v", tc.reason, elapsed, tc.minTime)
			}
		})
	}
}

// TestListErrors: a failure is an error that names the project and the
// Terraform type, and a scope without a project is ErrScope.
func TestListErrors(t *testing.T) {
	denied := apiError(http.StatusForbidden, "PERMISSION_DENIED", "The caller does not have permission", nil)
	cases := map[string]struct {
		reason   string
		q        inventory.Query
		answer   func(n int) reply
		wantIs   error
		wantHTTP int
		wantText []string
		wantReqs int
	}{
		"Denied": {
			reason:   "A 403 is an error naming the project and the Terraform type, tried once.",
			q:        query("google_dns_managed_zone"),
			answer:   func(int) reply { return denied },
			wantHTTP: http.StatusForbidden,
			wantText: []string{`project "my-project"`, "google_dns_managed_zone", "The caller does not have permission"},
			wantReqs: 1,
		},
		"DeniedOnPage2": {
			reason: "A failure past the first page is an error too, never the first page alone.",
			q:      query("google_dns_managed_zone"),
			answer: func(n int) reply {
				if n == 0 {
					return ok(page{Results: []result{ours}, NextPageToken: "p2"})
				}
				return denied
			},
			wantHTTP: http.StatusForbidden,
			wantText: []string{`project "my-project"`, "after 1 search results"},
			wantReqs: 2,
		},
		"NoProject": {
			reason:   "A scope without a project is ErrScope, and nothing is asked of the server.",
			q:        inventory.Query{TerraformResource: "google_dns_managed_zone", Tags: wantTags, Scope: inventory.Scope{Region: "us-east1"}},
			wantIs:   inventory.ErrScope,
			wantText: []string{"google_dns_managed_zone"},
		},
		"NoTags": {
			reason:   "A query without tags would list every resource of the project: it is refused.",
			q:        inventory.Query{TerraformResource: "google_dns_managed_zone", Scope: inventory.Scope{Project: "my-project"}},
			wantText: []string{`project "my-project"`, "no tags"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, c := newFake(t, func(n int, _ *http.Request) reply {
				if tc.answer == nil {
					t.Errorf("%s\nthe server was asked: want no request", tc.reason)
					return ok(page{})
				}
				return tc.answer(n)
			})
			got, err := New(c, fast).List(context.Background(), tc.q)
			if err == nil || got != nil {
				t.Fatalf("%s\nList = %v, %v: want no resources and an error", tc.reason, got, err)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("%s\nerrors.Is(%v, %v) = false", tc.reason, err, tc.wantIs)
			}
			if tc.wantHTTP != 0 {
				var ae *apierror.APIError
				if !errors.As(err, &ae) || ae.HTTPCode() != tc.wantHTTP {
					t.Errorf("%s\n%v: want an *apierror.APIError with HTTP code %d", tc.reason, err, tc.wantHTTP)
				}
			}
			for _, s := range tc.wantText {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s\nerror %q does not contain %q", tc.reason, err, s)
				}
			}
			if n := len(f.requests()); n != tc.wantReqs {
				t.Errorf("%s\nthe server saw %d requests, want %d", tc.reason, n, tc.wantReqs)
			}
		})
	}
}

// TestListNoClient: a Lister built without a client fails, naming the
// project, instead of panicking.
func TestListNoClient(t *testing.T) {
	got, err := New(nil).List(context.Background(), query("google_dns_managed_zone"))
	if err == nil || got != nil || !strings.Contains(err.Error(), `project "my-project"`) {
		t.Errorf("List with no client = %v, %v: want an error naming the project", got, err)
	}
}

func TestConsistency(t *testing.T) {
	cases := map[string]struct {
		reason string
		opts   []Option
		want   inventory.Consistency
	}{
		"Default": {
			reason: "Asset Inventory is an index: not read after write, DefaultLag behind.",
			want:   inventory.Consistency{ReadAfterWrite: false, Lag: 10 * time.Minute},
		},
		"WithLag": {
			reason: "WithLag sets the lag.",
			opts:   []Option{WithLag(time.Hour)},
			want:   inventory.Consistency{Lag: time.Hour},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, New(nil, tc.opts...).Consistency()); diff != "" {
				t.Errorf("%s\nConsistency (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListNotListed: a type Cloud Asset Inventory's project-scoped search
// does not list (a project or folder, outside the project; an instance
// template, whose labels are its instances'; a type the listings do not
// name) is refused with ErrNotListed before any search: an empty answer
// would prove nothing, and a caller that took it for one would clear a
// create.
func TestListNotListed(t *testing.T) {
	cases := map[string]struct {
		tf   string
		opts []Option
	}{
		"Project":          {tf: "google_project"},
		"Folder":           {tf: "google_folder"},
		"InstanceTemplate": {tf: "google_compute_instance_template"},
		"Unnamed":          {tf: "google_dns_record_set"},
		"TakenOff": {tf: "google_compute_network", opts: []Option{WithListing(inventory.Listing{
			TerraformResource: "google_compute_network", Evidence: "the provider's own"})}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, c := newFake(t, func(int, *http.Request) reply { return ok(page{}) })
			l := New(c, tc.opts...)
			if l.Listing(tc.tf).Listed {
				t.Errorf("Listing(%q).Listed = true, want false", tc.tf)
			}
			got, err := l.List(context.Background(), query(tc.tf))
			if !errors.Is(err, inventory.ErrNotListed) || got != nil {
				t.Errorf("List(%q) = %v, %v; want nothing and an error wrapping ErrNotListed", tc.tf, got, err)
			}
			if n := len(f.requests()); n != 0 {
				t.Errorf("%d searches sent, want none", n)
			}
		})
	}
}
