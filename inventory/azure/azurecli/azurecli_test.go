package azurecli

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

const (
	// audience is the local cloud's Resource Manager audience.
	audience = "https://management.test.invalid"
	token    = "test-token"
	sub      = "00000000-0000-0000-0000-0000000000aa"
)

// staticToken is a credential that hands out one token, with no call.
type staticToken struct{}

func (staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: token, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// query is what the local endpoint recorded of one Resource Graph query:
// its subscriptions, and the table and ARM type its KQL narrows to.
type query struct {
	Subscriptions []string
	Table         string
	ARMType       string
}

var armType = regexp.MustCompile(`type =~ '([^']*)'`)

// resourceGraph is a local Resource Graph endpoint: it answers every
// query with rows, whatever it asks, and records each query. The lister,
// not the endpoint, must drop what does not carry the tags.
type resourceGraph struct {
	rows []map[string]any

	mu      sync.Mutex
	queries []query
}

func (f *resourceGraph) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/providers/Microsoft.ResourceGraph/resources" || r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "BadRequest", "message": "not a Resource Graph query: " + r.URL.Path}})
		return
	}
	var in struct {
		Query         string   `json:"query"`
		Subscriptions []string `json:"subscriptions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := query{Subscriptions: in.Subscriptions}
	q.Table, _, _ = strings.Cut(in.Query, " ")
	if m := armType.FindStringSubmatch(in.Query); m != nil {
		q.ARMType = m[1]
	}
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(map[string]any{"totalRecords": len(f.rows), "count": len(f.rows), "resultTruncated": "false", "data": f.rows})
}

func (f *resourceGraph) recorded() []query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]query(nil), f.queries...)
}

// TestFinderType: the azure-graph finder of a stock kind lists, through
// the SDK's real Resource Graph client against a local endpoint with a
// static token, the resources that carry the candidate's crossplane tags,
// in the operator's subscription; what it finds is listed by its ARM ID,
// never an external name.
func TestFinderType(t *testing.T) {
	tags := map[string]string{recovery.TagCrossplaneKind: "virtualnetwork.network.azure.upbound.io", recovery.TagCrossplaneName: "net", recovery.TagCrossplaneProviderConfig: "default"}
	ours := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/net"
	srv := &resourceGraph{rows: []map[string]any{
		{"id": ours, "type": "microsoft.network/virtualnetworks", "tags": tags, "systemData": map[string]any{"createdAt": "2026-11-29T01:58:00.5Z"}},
		{"id": "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/other", "type": "microsoft.network/virtualnetworks",
			"tags": map[string]string{recovery.TagCrossplaneKind: "virtualnetwork.network.azure.upbound.io", recovery.TagCrossplaneName: "other", recovery.TagCrossplaneProviderConfig: "default"}},
	}}
	ts := httptest.NewTLSServer(srv)
	defer ts.Close()

	cases := map[string]struct {
		reason       string
		subscription string
		clientErr    error
		want         []recovery.ExternalResource
		wantQueries  []query
		wantErr      string
	}{
		"Subscription": {reason: "the operator's subscription is where the create made its resource", subscription: sub,
			want:        []recovery.ExternalResource{{ID: ours, Tags: tags, CreatedAt: time.Date(2026, 11, 29, 1, 58, 0, 500_000_000, time.UTC), Listed: true, MatchedByTags: true}},
			wantQueries: []query{{Subscriptions: []string{sub}, Table: "Resources", ARMType: "microsoft.network/virtualnetworks"}}},
		"NoSubscription": {reason: "no subscription: the lookup fails, saying how to give one, and nothing is queried",
			wantErr: "set AZURE_SUBSCRIPTION_ID"},
		"NoClient": {reason: "a client that cannot be built fails the kind's finder", subscription: sub, clientErr: errors.New("no credential"),
			wantErr: "cannot build the Resource Graph client: no credential"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv.mu.Lock()
			srv.queries = nil
			srv.mu.Unlock()
			newClient := func(context.Context) (*armresourcegraph.Client, error) {
				if tc.clientErr != nil {
					return nil, tc.clientErr
				}
				return armresourcegraph.NewClient(staticToken{}, &arm.ClientOptions{
					ClientOptions: policy.ClientOptions{
						Cloud: cloud.Configuration{
							ActiveDirectoryAuthorityHost: ts.URL + "/aad/",
							Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: ts.URL, Audience: audience}},
						},
						Transport: ts.Client(),
						Retry:     policy.RetryOptions{MaxRetries: -1},
					},
					DisableRPRegistration: true,
				})
			}
			vnet := schema.GroupKind{Group: "network.azure.upbound.io", Kind: "VirtualNetwork"}
			f, _, err := FinderType(newClient, tc.subscription).Build(vnet, "", cli.FinderEnv{})
			if err == nil {
				c := &recovery.Candidate{
					GVK:    vnet.WithVersion("v1beta1"),
					Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "VirtualNetwork", Name: "net"}, LookupKeys: tags},
					Object: &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": map[string]any{"location": "westeurope"}}}},
				}
				var got []recovery.ExternalResource
				got, err = f.Find(context.Background(), c)
				if err == nil {
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("%s\nFind (-want +got):\n%s", tc.reason, diff)
					}
				}
			}
			if diff := cmp.Diff(tc.wantQueries, srv.recorded()); diff != "" {
				t.Errorf("%s\nqueries (-want +got):\n%s", tc.reason, diff)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s\n%v", tc.reason, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s\nerror %v, want one containing %q", tc.reason, err, tc.wantErr)
			case name == "NoSubscription" && !errors.Is(err, inventory.ErrScope):
				t.Errorf("%s\nerror %v is not inventory.ErrScope", tc.reason, err)
			}
		})
	}
}

// TestDefaultSubscription: AZURE_SUBSCRIPTION_ID, else none.
func TestDefaultSubscription(t *testing.T) {
	cases := map[string]struct {
		reason string
		env    string
		want   string
	}{
		"Set":   {reason: "the variable azurerm and the Azure SDKs read", env: sub, want: sub},
		"Unset": {reason: "none", env: "", want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AZURE_SUBSCRIPTION_ID", tc.env)
			if diff := cmp.Diff(tc.want, DefaultSubscription()); diff != "" {
				t.Errorf("%s\nDefaultSubscription (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
