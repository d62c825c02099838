package aws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	tagging "github.com/aws/aws-sdk-go-v2/service/resourcegroupstaggingapi"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/inventory"
)

// getResourcesTarget is the X-Amz-Target of GetResources in the Tagging
// API's JSON 1.1 protocol.
const getResourcesTarget = "ResourceGroupsTaggingAPI_20170126.GetResources"

// request is GetResources' request body as the wire carries it.
type request struct {
	TagFilters []struct {
		Key    string
		Values []string
	}
	ResourceTypeFilters []string
	ResourcesPerPage    int
	PaginationToken     string
}

// mapping is one ResourceTagMapping of a response.
type mapping struct {
	ResourceARN string
	Tags        []tag
}

type tag struct{ Key, Value string }

// fakeTagging is a Tagging API endpoint: pages of mappings, answered after
// throttled throttling errors, or an error status for every call.
type fakeTagging struct {
	pages     [][]mapping
	throttled int    // ThrottledException answers before the first page
	status    int    // non-zero: answer every call with this status
	errType   string // the __type of that answer; AccessDeniedException when empty

	mu       sync.Mutex
	requests []request
}

func (f *fakeTagging) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("X-Amz-Target") != getResourcesTarget ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json-1.1") || !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") {
		http.Error(w, fmt.Sprintf("unexpected %s %s target %q content type %q", r.Method, r.URL, r.Header.Get("X-Amz-Target"), r.Header.Get("Content-Type")), http.StatusBadRequest)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	throttle := f.throttled > 0
	if throttle {
		f.throttled--
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	switch {
	case f.status != 0:
		typ := f.errType
		if typ == "" {
			typ = "AccessDeniedException"
		}
		w.WriteHeader(f.status)
		fmt.Fprintf(w, `{"__type":"com.amazonaws.resourcegroupstaggingapi#%s","Message":"refused"}`, typ)
		return
	case throttle:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"__type":"com.amazonaws.resourcegroupstaggingapi#ThrottledException","Message":"Rate exceeded"}`)
		return
	}
	page := 0
	if req.PaginationToken != "" {
		fmt.Sscanf(req.PaginationToken, "page-%d", &page)
	}
	out := map[string]any{"ResourceTagMappingList": []mapping{}, "PaginationToken": ""}
	if page < len(f.pages) {
		out["ResourceTagMappingList"] = f.pages[page]
	}
	if page+1 < len(f.pages) {
		out["PaginationToken"] = fmt.Sprintf("page-%d", page+1)
	}
	_ = json.NewEncoder(w).Encode(out)
}

// clientOf returns a real Tagging API client of srv, retrying throttling
// with backoffs of at most a millisecond.
func clientOf(srv *httptest.Server, attempts int) *tagging.Client {
	return tagging.New(tagging.Options{
		Region:       "eu-west-1",
		BaseEndpoint: aws.String(srv.URL),
		HTTPClient:   srv.Client(),
		Credentials: aws.NewCredentialsCache(credentialsFn(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret"}, nil
		})),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.MaxBackoff = time.Millisecond
			o.RateLimiter = noRateLimit{}
		}),
	})
}

type credentialsFn func(context.Context) (aws.Credentials, error)

func (f credentialsFn) Retrieve(ctx context.Context) (aws.Credentials, error) { return f(ctx) }

// noRateLimit lets every retry through: the standard retryer's token
// bucket would otherwise refuse retries after a few in a test.
type noRateLimit struct{}

func (noRateLimit) GetToken(context.Context, uint) (func() error, error) {
	return func() error { return nil }, nil
}
func (noRateLimit) AddTokens(uint) error { return nil }

var (
	ours     = map[string]string{"crossplane-kind": "vpc.ec2.aws.upbound.io", "crossplane-name": "net", "crossplane-providerconfig": "default"}
	oursARN  = "arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-0ours"
	theirARN = "arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-0theirs"
)

func tagsOf(m map[string]string) []tag {
	var out []tag
	for k, v := range m {
		out = append(out, tag{k, v})
	}
	return out
}

func TestList(t *testing.T) {
	stranger := map[string]string{"crossplane-kind": "vpc.ec2.aws.upbound.io", "crossplane-name": "other", "crossplane-providerconfig": "default"}
	filler := func(n int) []mapping {
		var out []mapping
		for i := range n {
			out = append(out, mapping{ResourceARN: fmt.Sprintf("arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-%d", i), Tags: tagsOf(stranger)})
		}
		return out
	}
	want := []inventory.Resource{{Identifier: oursARN, Type: "ec2:vpc", Tags: ours}}
	cases := map[string]struct {
		reason   string
		fake     *fakeTagging
		attempts int
		want     []inventory.Resource
		wantErr  string
		calls    int
		denied   bool
	}{
		"OnPageThree": {
			reason: "every page is read: ours is on the third of three; the strangers the API returned are dropped",
			fake:   &fakeTagging{pages: [][]mapping{filler(5), filler(5), {{ResourceARN: oursARN, Tags: tagsOf(ours)}}}},
			want:   want, calls: 3,
		},
		"NothingTagged": {
			reason: "nothing carries the tags: an empty listing, not an error",
			fake:   &fakeTagging{pages: [][]mapping{{}}},
			want:   nil, calls: 1,
		},
		"LooseAnswer": {
			reason: "a resource whose tags differ in one value is never returned, whatever the API answered",
			fake:   &fakeTagging{pages: [][]mapping{{{ResourceARN: theirARN, Tags: tagsOf(stranger)}, {ResourceARN: oursARN, Tags: tagsOf(ours)}}}},
			want:   want, calls: 1,
		},
		"Throttled": {
			reason:   "ThrottledException is retried by the client's retryer",
			fake:     &fakeTagging{throttled: 2, pages: [][]mapping{{{ResourceARN: oursARN, Tags: tagsOf(ours)}}}},
			attempts: 5, want: want, calls: 3,
		},
		"ThrottledPastRetries": {
			reason:   "throttled past the retries: an error, never an empty listing",
			fake:     &fakeTagging{throttled: 100},
			attempts: 3, wantErr: "ThrottledException", calls: 3,
		},
		"Denied": {
			reason:  "a denied listing (AccessDeniedException, status 400 as the JSON protocol answers it) is ErrDenied, naming the region and the permission",
			fake:    &fakeTagging{status: http.StatusBadRequest},
			wantErr: `in region "eu-west-1", page 1: inventory: the listing was denied (grant the provider's role tag:GetResources)`, calls: 1, denied: true,
		},
		"Forbidden": {
			reason:  "a 403 from a gateway in front of the API is a denial too",
			fake:    &fakeTagging{status: http.StatusForbidden, errType: "Forbidden"},
			wantErr: `inventory: the listing was denied`, calls: 1, denied: true,
		},
		"ServerError": {
			reason:   "a 500 is no denial: retried by the SDK, then an error that errors.Is does not take for ErrDenied",
			fake:     &fakeTagging{status: http.StatusInternalServerError, errType: "InternalServiceException"},
			attempts: 3, wantErr: "InternalServiceException", calls: 3,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(tc.fake)
			defer srv.Close()
			attempts := tc.attempts
			if attempts == 0 {
				attempts = 1
			}
			l := New(Static("eu-west-1", clientOf(srv, attempts)))
			got, err := l.List(context.Background(), inventory.Query{TerraformResource: "aws_vpc", Tags: ours, Scope: inventory.Scope{Region: "eu-west-1", Account: "123456789012"}})
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("%s\nList: error %v, want one containing %q", tc.reason, err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Fatalf("%s\nList: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nList (-want +got):\n%s", tc.reason, diff)
			}
			if tc.wantErr != "" && errors.Is(err, inventory.ErrDenied) != tc.denied {
				t.Errorf("%s\nerrors.Is(%v, ErrDenied) = %t, want %t", tc.reason, err, !tc.denied, tc.denied)
			}
			if len(tc.fake.requests) != tc.calls {
				t.Errorf("%s\n%d calls, want %d", tc.reason, len(tc.fake.requests), tc.calls)
			}
		})
	}
}

// TestListRequest: the filters as the SDK puts them on the wire: every
// tag, one value each; the kind's resource type; the page size.
func TestListRequest(t *testing.T) {
	fake := &fakeTagging{pages: [][]mapping{{}}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	added := WithListing(inventory.Listing{TerraformResource: "aws_unmapped_thing", Listed: true, Evidence: "the test's"})
	for _, tf := range []string{"aws_vpc", "aws_unmapped_thing"} {
		fake.requests = nil
		if _, err := New(Static("eu-west-1", clientOf(srv, 1)), added).List(context.Background(), inventory.Query{TerraformResource: tf, Tags: ours}); err != nil {
			t.Fatal(err)
		}
		got := fake.requests[0]
		var filters []string
		for _, f := range got.TagFilters {
			filters = append(filters, f.Key+"="+strings.Join(f.Values, "|"))
		}
		wantTypes := map[string][]string{"aws_vpc": {"ec2:vpc"}}[tf]
		if diff := cmp.Diff([]string{"crossplane-kind=vpc.ec2.aws.upbound.io", "crossplane-name=net", "crossplane-providerconfig=default"}, filters); diff != "" {
			t.Errorf("%s: TagFilters (-want +got):\n%s", tf, diff)
		}
		if diff := cmp.Diff(wantTypes, got.ResourceTypeFilters); diff != "" {
			t.Errorf("%s: ResourceTypeFilters (-want +got):\n%s", tf, diff)
		}
		if got.ResourcesPerPage != pageSize {
			t.Errorf("%s: ResourcesPerPage %d, want %d", tf, got.ResourcesPerPage, pageSize)
		}
	}
}

func TestListScope(t *testing.T) {
	l := New(Static("eu-west-1", nil))
	_, err := l.List(context.Background(), inventory.Query{TerraformResource: "aws_vpc", Tags: ours, Scope: inventory.Scope{Region: "us-east-1"}})
	if !errors.Is(err, inventory.ErrScope) {
		t.Errorf("List in another region: %v, want ErrScope", err)
	}
	if _, err := l.List(context.Background(), inventory.Query{TerraformResource: "aws_vpc"}); err == nil {
		t.Errorf("List with no tags: no error, want one: nothing would narrow the listing")
	}
	if c := l.Consistency(); c.ReadAfterWrite || c.Lag != DefaultLag {
		t.Errorf("Consistency() = %+v, want an index %s behind", c, DefaultLag)
	}
}

func TestARNType(t *testing.T) {
	for arn, want := range map[string]string{
		"arn:aws:ec2:eu-west-1:1:vpc/vpc-1":                    "ec2:vpc",
		"arn:aws:lambda:eu-west-1:1:function:f":                "lambda:function",
		"arn:aws:s3:::bucket":                                  "s3",
		"arn:aws:eks:eu-west-1:1:podidentityassociation/c/a-1": "eks:podidentityassociation",
		"vpc-1":       "",
		"arn:aws:ec2": "",
	} {
		if got := arnType(arn); got != want {
			t.Errorf("arnType(%q) = %q, want %q", arn, got, want)
		}
	}
}

// TestListHomeRegion: a global service's type is listed in its home
// region whatever the managed resource's region, since the Tagging API
// answers only for resources located in the region it is called in; a
// regional type in the scope's region.
func TestListHomeRegion(t *testing.T) {
	fake := &fakeTagging{pages: [][]mapping{{}}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	cases := map[string]struct {
		tf, want string
	}{
		"CloudFront":        {"aws_cloudfront_distribution", "us-east-1"},
		"Route53Zone":       {"aws_route53_zone", "us-east-1"},
		"IAMOIDCProvider":   {"aws_iam_openid_connect_provider", "us-east-1"},
		"WAFClassic":        {"aws_waf_web_acl", "us-east-1"},
		"Organizations":     {"aws_organizations_account", "us-east-1"},
		"GlobalAccelerator": {"aws_globalaccelerator_accelerator", "us-west-2"},
		"NetworkManager":    {"aws_networkmanager_global_network", "us-west-2"},
		"Regional":          {"aws_vpc", "eu-west-1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var asked []string
			clients := func(_ context.Context, s inventory.Scope) (Client, error) {
				asked = append(asked, s.Region+"/"+s.Account)
				return clientOf(srv, 1), nil
			}
			l := New(clients)
			if got := l.Listing(tc.tf); !got.Listed {
				t.Fatalf("Listing(%q) = %+v, want listed", tc.tf, got)
			}
			if _, err := l.List(context.Background(), inventory.Query{TerraformResource: tc.tf, Tags: ours, Scope: inventory.Scope{Region: "eu-west-1", Account: "123456789012"}}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tc.want + "/123456789012"}, asked); diff != "" {
				t.Errorf("region/account of the client asked for (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListNotListed: a type the Tagging API does not list (an S3 object;
// aws_inspector_resource_group, whose tags select instances; aws_sqs_queue,
// whose ID is its URL; a type the listings do not name) is refused with
// ErrNotListed before any call: an empty answer would prove nothing, and
// a caller that took it for one would clear a create.
func TestListNotListed(t *testing.T) {
	cases := map[string]struct {
		tf   string
		opts []Option
	}{
		"S3Object":               {tf: "aws_s3_object"},
		"S3BucketObject":         {tf: "aws_s3_bucket_object"},
		"InspectorResourceGroup": {tf: "aws_inspector_resource_group"},
		"SQSQueue":               {tf: "aws_sqs_queue"},
		"Unnamed":                {tf: "aws_unmapped_thing"},
		"TakenOff": {tf: "aws_vpc", opts: []Option{WithListing(inventory.Listing{
			TerraformResource: "aws_vpc", Evidence: "the provider's own"})}},
		"NoEvidence": {tf: "aws_vpc", opts: []Option{WithListing(inventory.Listing{TerraformResource: "aws_vpc", Listed: true})}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fake := &fakeTagging{pages: [][]mapping{{}}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			l := New(Static("eu-west-1", clientOf(srv, 1)), tc.opts...)
			if l.Listing(tc.tf).Listed {
				t.Errorf("Listing(%q).Listed = true, want false", tc.tf)
			}
			got, err := l.List(context.Background(), inventory.Query{TerraformResource: tc.tf, Tags: ours, Scope: inventory.Scope{Region: "eu-west-1"}})
			if !errors.Is(err, inventory.ErrNotListed) || got != nil {
				t.Errorf("List(%q) = %v, %v; want nothing and an error wrapping ErrNotListed", tc.tf, got, err)
			}
			if len(fake.requests) != 0 {
				t.Errorf("%d calls, want none", len(fake.requests))
			}
		})
	}
}
