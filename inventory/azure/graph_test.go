package azure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/inventory"
)

var (
	ours = map[string]string{
		"crossplane-kind":           "virtualnetwork.network.azure.upbound.io",
		"crossplane-name":           "net",
		"crossplane-providerconfig": "default",
	}
	oursID  = "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/net"
	vnet    = "microsoft.network/virtualnetworks"
	created = "2026-11-20T09:15:02.1234567Z"
)

// resource is one row of objectArray data.
func resource(id string, tags map[string]string, createdAt string) map[string]any {
	r := map[string]any{"id": id, "type": vnet, "tags": tags}
	if createdAt != "" {
		r["systemData"] = map[string]any{"createdBy": "sp", "createdByType": "Application", "createdAt": createdAt, "lastModifiedAt": createdAt}
	}
	return r
}

// with returns ours with key set to value.
func with(key, value string) map[string]string {
	m := map[string]string{}
	for k, v := range ours {
		m[k] = v
	}
	m[key] = value
	return m
}

func TestList(t *testing.T) {
	strangers := func(page, n int) []map[string]any {
		var out []map[string]any
		for i := range n {
			out = append(out, resource(fmt.Sprintf("/subscriptions/%s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/p%d-%d", sub, page, i), with("crossplane-name", fmt.Sprintf("other-%d-%d", page, i)), created))
		}
		return out
	}
	createdAt, err := time.Parse(time.RFC3339Nano, created)
	if err != nil {
		t.Fatal(err)
	}
	found := []inventory.Resource{{Identifier: oursID, Type: vnet, Tags: ours, CreatedAt: createdAt}}
	cases := map[string]struct {
		reason    string
		fake      *fakeGraph
		retry     *policy.RetryOptions // nil: noRetry
		want      []inventory.Resource
		wantIs    error    // the error must wrap this
		wantErr   []string // and contain each of these
		calls     int
		skipToken []string // the $skipToken of each call, in order
	}{
		"OnPageThree": {
			reason: "every page is read by $skipToken: ours is on the third of three; the strangers the query let through are dropped",
			fake:   &fakeGraph{pages: [][]map[string]any{strangers(0, 100), strangers(1, 100), {resource(oursID, ours, created)}}},
			want:   found, calls: 3, skipToken: []string{"", "skip-page-1", "skip-page-2"},
		},
		"NothingTagged": {
			reason: "nothing carries the tags: an empty listing, not an error",
			fake:   &fakeGraph{pages: [][]map[string]any{{}}},
			want:   nil, calls: 1, skipToken: []string{""},
		},
		"StrangerOneValue": {
			reason: "a resource whose tags differ from ours in one value is never returned, whatever the query answered",
			fake: &fakeGraph{pages: [][]map[string]any{{
				resource(oursID+"-stranger", with("crossplane-providerconfig", "other"), created),
				resource(oursID, ours, created),
			}}},
			want: found, calls: 1,
		},
		"StrangerValueCase": {
			reason: "=~ lets a value that differs only in case through; the values are compared again exactly",
			fake: &fakeGraph{pages: [][]map[string]any{{
				resource(oursID+"-stranger", with("crossplane-name", "NET"), created),
			}}},
			want: nil, calls: 1,
		},
		"KeyCase": {
			reason: "Azure tag keys are case-insensitive: a resource whose keys were first written in another case is ours, its tags as listed",
			fake: &fakeGraph{pages: [][]map[string]any{{
				resource(oursID, map[string]string{"Crossplane-Kind": ours["crossplane-kind"], "CROSSPLANE-NAME": "net", "crossplane-providerconfig": "default"}, ""),
			}}},
			want:  []inventory.Resource{{Identifier: oursID, Type: vnet, Tags: map[string]string{"Crossplane-Kind": ours["crossplane-kind"], "CROSSPLANE-NAME": "net", "crossplane-providerconfig": "default"}}},
			calls: 1,
		},
		"CreatedAt": {
			reason: "CreatedAt is systemData.createdAt, at its offset and fraction; zero where systemData is absent",
			fake: &fakeGraph{pages: [][]map[string]any{{
				resource(oursID, ours, "2024-01-24T16:12:31.862162+00:00"),
				resource(oursID+"-2", ours, ""),
			}}},
			want: []inventory.Resource{
				{Identifier: oursID, Type: vnet, Tags: ours, CreatedAt: time.Date(2024, 1, 24, 16, 12, 31, 862162000, time.UTC)},
				{Identifier: oursID + "-2", Type: vnet, Tags: ours},
			},
			calls: 1,
		},
		"ThrottledTwice": {
			reason: "429 with Retry-After: 1, twice, then 200: the client's retry policy waits and retries, and ours is found",
			fake:   &fakeGraph{throttled: 2, retryAfter: "1", pages: [][]map[string]any{{resource(oursID, ours, created)}}},
			retry:  &policy.RetryOptions{MaxRetries: 3, RetryDelay: time.Millisecond, MaxRetryDelay: 2 * time.Second},
			want:   found, calls: 3,
		},
		"ThrottledForever": {
			reason:  "429 past the client's retries: an error naming the subscription and ErrThrottled, never an empty listing",
			fake:    &fakeGraph{throttled: -1, retryAfter: "1"},
			retry:   &policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: 2 * time.Second},
			wantIs:  ErrThrottled,
			wantErr: []string{`cannot list azurerm_virtual_network by tags in subscription "` + sub + `", page 1: azure: Resource Graph throttled the query past the client's retries (the quota resets after 00:00:01)`, "RESPONSE 429", "RateLimiting"},
			calls:   3,
		},
		"RetryAfterPastCap": {
			reason:  "a Retry-After longer than the client's MaxRetryDelay is not waited for: ErrThrottled at once",
			fake:    &fakeGraph{throttled: -1, retryAfter: "1"},
			retry:   &policy.RetryOptions{MaxRetries: 3, MaxRetryDelay: 500 * time.Millisecond},
			wantIs:  ErrThrottled,
			wantErr: []string{`in subscription "` + sub + `"`, "RESPONSE 429"},
			calls:   1,
		},
		"Denied": {
			reason:  "a 403 is an error naming the subscription, the type and the service's own error code",
			fake:    &fakeGraph{status: http.StatusForbidden},
			wantErr: []string{`cannot list azurerm_virtual_network by tags in subscription "` + sub + `", page 1: POST`, "RESPONSE 403", "AuthorizationFailed"},
			calls:   1,
		},
		"TruncatedWithoutToken": {
			reason: "a result marked truncated with no $skipToken is incomplete: an error, not a partial listing",
			fake:   &fakeGraph{truncated: true, pages: [][]map[string]any{{resource(oursID+"-stranger", with("crossplane-name", "other"), created)}}},
			wantIs: ErrTruncated, wantErr: []string{`in subscription "` + sub + `", page 1`},
			calls: 1,
		},
		"NoID": {
			reason:  "a row that carries our tags but no id cannot be told apart: an error, never a silent drop",
			fake:    &fakeGraph{pages: [][]map[string]any{{{"type": vnet, "tags": ours}}}},
			wantErr: []string{"has no id"}, calls: 1,
		},
		"BadCreatedAt": {
			reason:  "a createdAt that does not parse is an error, not a zero time passed off as the source's silence",
			fake:    &fakeGraph{pages: [][]map[string]any{{resource(oursID, ours, "yesterday")}}},
			wantErr: []string{"cannot parse the systemData.createdAt of " + oursID}, calls: 1,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewTLSServer(tc.fake)
			defer srv.Close()
			retry := noRetry
			if tc.retry != nil {
				retry = *tc.retry
			}
			l := New(clientOf(t, srv, &staticToken{}, retry))
			got, err := l.List(context.Background(), inventory.Query{TerraformResource: "azurerm_virtual_network", Tags: ours, Scope: inventory.Scope{Subscription: sub}})
			switch {
			case tc.wantErr == nil && tc.wantIs == nil && err != nil:
				t.Fatalf("%s\nList: %v", tc.reason, err)
			case (tc.wantErr != nil || tc.wantIs != nil) && err == nil:
				t.Fatalf("%s\nList: no error, want one; listed %v", tc.reason, got)
			case tc.wantIs != nil && !errors.Is(err, tc.wantIs):
				t.Errorf("%s\nList: %v, want one wrapping %v", tc.reason, err, tc.wantIs)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(fmt.Sprint(err), w) {
					t.Errorf("%s\nList: %v, want one containing %q", tc.reason, err, w)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nList (-want +got):\n%s", tc.reason, diff)
			}
			if len(tc.fake.requests) != tc.calls {
				t.Errorf("%s\n%d calls, want %d", tc.reason, len(tc.fake.requests), tc.calls)
			}
			if tc.skipToken != nil {
				var tokens []string
				for _, r := range tc.fake.requests {
					tokens = append(tokens, r.Options.SkipToken)
				}
				if diff := cmp.Diff(tc.skipToken, tokens); diff != "" {
					t.Errorf("%s\n$skipToken per call (-want +got):\n%s", tc.reason, diff)
				}
			}
			for i, r := range tc.fake.requests[min(1, len(tc.fake.requests)):] {
				first := tc.fake.requests[0]
				if r.Query != first.Query || !cmp.Equal(r.Subscriptions, first.Subscriptions) {
					t.Errorf("%s\ncall %d asked %q over %v, the first %q over %v: a page must repeat the query and scope", tc.reason, i+2, r.Query, r.Subscriptions, first.Query, first.Subscriptions)
				}
			}
		})
	}
}

// TestListRequest: the query as the real SDK puts it on the wire, read at
// the server: the KQL per Terraform type (ResourceContainers for resource
// groups, no type clause for a type not mapped, a value with a quote
// escaped), the subscription, objectArray, the api-version, the token of
// the Resource Manager audience.
func TestListRequest(t *testing.T) {
	const tail = " | extend lowertags = parse_json(tolower(tostring(tags)))" +
		" | where tostring(lowertags['crossplane-kind']) =~ 'k' and tostring(lowertags['crossplane-name']) =~ 'it\\'s'" +
		" | project id, type, tags, systemData"
	tags := map[string]string{"crossplane-kind": "k", "Crossplane-Name": "it's"}
	cases := map[string]struct {
		reason string
		tf     string
		want   string
	}{
		"VirtualNetwork": {
			reason: "a mapped type is narrowed to its ARM type in Resources; keys are looked up lowered",
			tf:     "azurerm_virtual_network",
			want:   "Resources | where type =~ 'microsoft.network/virtualnetworks'" + tail,
		},
		"ResourceGroup": {
			reason: "resource groups are in ResourceContainers, not Resources",
			tf:     "azurerm_resource_group",
			want:   "ResourceContainers | where type =~ 'microsoft.resources/subscriptions/resourcegroups'" + tail,
		},
		"StorageAccount": {
			reason: "another mapped type",
			tf:     "azurerm_storage_account",
			want:   "Resources | where type =~ 'microsoft.storage/storageaccounts'" + tail,
		},
		"KeyVault": {
			reason: "another mapped type",
			tf:     "azurerm_key_vault",
			want:   "Resources | where type =~ 'microsoft.keyvault/vaults'" + tail,
		},
		"TableOnly": {
			reason: "a type listed by its table alone has no type clause: the tags alone narrow it",
			tf:     "azurerm_web_pubsub",
			want:   "Resources" + tail,
		},
		"Added": {
			reason: "a type a provider adds (WithListing) is listed as its row says",
			tf:     "azurerm_unmapped_thing",
			want:   "Resources | where type =~ 'microsoft.example/things'" + tail,
		},
	}
	added := WithListing(inventory.Listing{TerraformResource: "azurerm_unmapped_thing", Listed: true,
		IndexTypes: []string{"Resources:microsoft.example/things"}, Evidence: "the provider's own"})
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fake := &fakeGraph{pages: [][]map[string]any{{}}}
			srv := httptest.NewTLSServer(fake)
			defer srv.Close()
			cred := &staticToken{}
			if _, err := New(clientOf(t, srv, cred, noRetry), added).List(context.Background(), inventory.Query{TerraformResource: tc.tf, Tags: tags, Scope: inventory.Scope{Subscription: sub}}); err != nil {
				t.Fatalf("%s\nList: %v", tc.reason, err)
			}
			if len(fake.requests) != 1 {
				t.Fatalf("%s\n%d calls, want 1", tc.reason, len(fake.requests))
			}
			got := fake.requests[0]
			want := request{Query: tc.want, Subscriptions: []string{sub}, APIVersion: apiVersion}
			want.Options.ResultFormat = "objectArray"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nrequest (-want +got):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]string{audience + "/.default"}, cred.scopes); diff != "" {
				t.Errorf("%s\ntoken scopes (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListRefuses: queries List refuses before any call.
func TestListRefuses(t *testing.T) {
	cases := map[string]struct {
		reason  string
		q       inventory.Query
		wantIs  error
		wantErr string
	}{
		"NoSubscription": {
			reason: "a scope with no subscription says nothing of where to list",
			q:      inventory.Query{TerraformResource: "azurerm_virtual_network", Tags: ours, Scope: inventory.Scope{Region: "westeurope"}},
			wantIs: inventory.ErrScope, wantErr: "cannot list azurerm_virtual_network by tags",
		},
		"NoTags": {
			reason:  "no tags would list every resource of the type",
			q:       inventory.Query{TerraformResource: "azurerm_virtual_network", Scope: inventory.Scope{Subscription: sub}},
			wantErr: `in subscription "` + sub + `": no tags to look for`,
		},
		"NotUTF8": {
			reason:  "no Azure resource can carry a tag that is not UTF-8, and the request would alter it",
			q:       inventory.Query{TerraformResource: "azurerm_virtual_network", Tags: with("crossplane-name", "n\xff"), Scope: inventory.Scope{Subscription: sub}},
			wantErr: "is not UTF-8",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fake := &fakeGraph{pages: [][]map[string]any{{}}}
			srv := httptest.NewTLSServer(fake)
			defer srv.Close()
			got, err := New(clientOf(t, srv, &staticToken{}, noRetry)).List(context.Background(), tc.q)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || (tc.wantIs != nil && !errors.Is(err, tc.wantIs)) {
				t.Errorf("%s\nList: %v, want an error containing %q (wrapping %v)", tc.reason, err, tc.wantErr, tc.wantIs)
			}
			if got != nil || len(fake.requests) != 0 {
				t.Errorf("%s\nList listed %v after %d calls, want nothing and no call", tc.reason, got, len(fake.requests))
			}
		})
	}
}

func TestConsistency(t *testing.T) {
	cases := map[string]struct {
		reason string
		opts   []Option
		want   inventory.Consistency
	}{
		"Default": {"Resource Graph is an index, DefaultLag behind", nil, inventory.Consistency{ReadAfterWrite: false, Lag: DefaultLag}},
		"WithLag": {"a measured lag replaces the default", []Option{WithLag(10 * time.Minute)}, inventory.Consistency{ReadAfterWrite: false, Lag: 10 * time.Minute}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, New(nil, tc.opts...).Consistency()); diff != "" {
				t.Errorf("%s\nConsistency (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListNotListed: a type Resource Graph does not list (a Key Vault
// secret, a data-plane object; a type the listings do not name) is
// refused with ErrNotListed before any query: an empty answer would
// prove nothing, and a caller that took it for one would clear a create.
func TestListNotListed(t *testing.T) {
	cases := map[string]struct {
		tf   string
		opts []Option
	}{
		"KeyVaultSecret": {tf: "azurerm_key_vault_secret"},
		"KeyVaultKey":    {tf: "azurerm_key_vault_key"},
		"Unnamed":        {tf: "azurerm_unmapped_thing"},
		"TakenOff": {tf: "azurerm_virtual_network", opts: []Option{WithListing(inventory.Listing{
			TerraformResource: "azurerm_virtual_network", Evidence: "the provider's own"})}},
		"NoEvidence": {tf: "azurerm_virtual_network", opts: []Option{WithListing(inventory.Listing{
			TerraformResource: "azurerm_virtual_network", Listed: true})}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fake := &fakeGraph{pages: [][]map[string]any{{}}}
			srv := httptest.NewTLSServer(fake)
			defer srv.Close()
			l := New(clientOf(t, srv, &staticToken{}, noRetry), tc.opts...)
			if l.Listing(tc.tf).Listed {
				t.Errorf("Listing(%q).Listed = true, want false", tc.tf)
			}
			got, err := l.List(context.Background(), inventory.Query{TerraformResource: tc.tf, Tags: map[string]string{"k": "v"}, Scope: inventory.Scope{Subscription: sub}})
			if !errors.Is(err, inventory.ErrNotListed) || got != nil {
				t.Errorf("List(%q) = %v, %v; want nothing and an error wrapping ErrNotListed", tc.tf, got, err)
			}
			if len(fake.requests) != 0 {
				t.Errorf("%d queries sent, want none", len(fake.requests))
			}
		})
	}
}
