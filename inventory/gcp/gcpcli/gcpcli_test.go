package gcpcli

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	asset "cloud.google.com/go/asset/apiv1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/option"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// searchRequest is what the local endpoint recorded of one
// searchAllResources call: the scope is in the path, the rest in the query.
type searchRequest struct {
	Path       string
	AssetTypes []string
	Query      string
}

// result is a ResourceSearchResult as the REST API documents it.
type result struct {
	Name       string            `json:"name"`
	AssetType  string            `json:"assetType"`
	Labels     map[string]string `json:"labels"`
	CreateTime string            `json:"createTime,omitempty"`
}

// assetAPI is a local Cloud Asset Inventory REST endpoint: it answers
// every searchAllResources with results, whatever it asks, and records
// each request. The lister, not the endpoint, must drop what does not
// carry the tags.
type assetAPI struct {
	results []result

	mu   sync.Mutex
	reqs []searchRequest
}

func (f *assetAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, ":searchAllResources") {
		http.Error(w, `{"error":{"code":400,"message":"not searchAllResources","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, searchRequest{Path: r.URL.Path, AssetTypes: r.URL.Query()["assetTypes"], Query: r.URL.Query().Get("query")})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"results": f.results})
}

func (f *assetAPI) requests() []searchRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]searchRequest(nil), f.reqs...)
}

// TestFinderType: the gcp-assets finder of a stock kind lists, through
// the SDK's real REST client against a local endpoint, the resources
// that carry the candidate's crossplane tags as labels, in the project
// the managed resource names, else the default; what it finds is listed
// by its full resource name, never an external name.
func TestFinderType(t *testing.T) {
	tags := map[string]string{recovery.TagCrossplaneKind: "network.compute.gcp.upbound.io", recovery.TagCrossplaneName: "net", recovery.TagCrossplaneProviderConfig: "default"}
	// The labels a tagger wrote: GCP label values admit no dots.
	labels := map[string]string{"crossplane-kind": "network_compute_gcp_upbound_io", "crossplane-name": "net", "crossplane-providerconfig": "default"}
	ours := "//compute.googleapis.com/projects/spec-project/global/networks/net-x7k2p"
	srv := &assetAPI{results: []result{
		{Name: ours, AssetType: "compute.googleapis.com/Network", Labels: labels, CreateTime: "2026-11-29T01:58:00Z"},
		{Name: "//compute.googleapis.com/projects/spec-project/global/networks/other", AssetType: "compute.googleapis.com/Network",
			Labels: map[string]string{"crossplane-kind": "network_compute_gcp_upbound_io", "crossplane-name": "other", "crossplane-providerconfig": "default"}},
	}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	found := []recovery.ExternalResource{{ID: ours, Tags: labels, CreatedAt: time.Date(2026, 11, 29, 1, 58, 0, 0, time.UTC), Listed: true, MatchedByTags: true}}
	// Every label, its value encoded, in the search's query.
	const wantQuery = `labels.crossplane-kind="network_compute_gcp_upbound_io" AND labels.crossplane-name="net" AND labels.crossplane-providerconfig="default"`

	cases := map[string]struct {
		reason         string
		defaultProject string
		spec           map[string]any
		clientErr      error
		want           []recovery.ExternalResource
		wantRequests   []searchRequest
		wantErr        string
	}{
		"SpecProject": {reason: "the project spec.forProvider names is where the create made its resource", defaultProject: "env-project",
			spec: map[string]any{"project": "spec-project"},
			want: found, wantRequests: []searchRequest{{Path: "/v1/projects/spec-project:searchAllResources", AssetTypes: []string{"compute.googleapis.com/Network"}, Query: wantQuery}}},
		"DefaultProject": {reason: "without one, the default project", defaultProject: "env-project", spec: map[string]any{},
			want: found, wantRequests: []searchRequest{{Path: "/v1/projects/env-project:searchAllResources", AssetTypes: []string{"compute.googleapis.com/Network"}, Query: wantQuery}}},
		"NoProject": {reason: "no project anywhere: the lookup fails, saying how to give one, and nothing is searched", spec: map[string]any{},
			wantErr: "set GOOGLE_CLOUD_PROJECT"},
		"NoClient": {reason: "a client that cannot be built fails the kind's finder", clientErr: errors.New("could not find default credentials"),
			wantErr: "cannot build the Cloud Asset Inventory client: could not find default credentials"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv.mu.Lock()
			srv.reqs = nil
			srv.mu.Unlock()
			newClient := func(ctx context.Context) (*asset.Client, error) {
				if tc.clientErr != nil {
					return nil, tc.clientErr
				}
				c, err := asset.NewRESTClient(ctx, option.WithEndpoint(ts.URL), option.WithoutAuthentication(), option.WithHTTPClient(ts.Client()))
				if err == nil {
					t.Cleanup(func() { _ = c.Close() })
				}
				return c, err
			}
			network := schema.GroupKind{Group: "compute.gcp.upbound.io", Kind: "Network"}
			f, _, err := FinderType(newClient, tc.defaultProject).Build(network, "", cli.FinderEnv{})
			if err == nil {
				c := &recovery.Candidate{
					GVK:    network.WithVersion("v1beta1"),
					Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "Network", Name: "net"}, LookupKeys: tags},
					Object: &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": tc.spec}}},
				}
				var got []recovery.ExternalResource
				got, err = f.Find(context.Background(), c)
				if err == nil {
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("%s\nFind (-want +got):\n%s", tc.reason, diff)
					}
				}
			}
			if diff := cmp.Diff(tc.wantRequests, srv.requests()); diff != "" {
				t.Errorf("%s\nsearches (-want +got):\n%s", tc.reason, diff)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s\n%v", tc.reason, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s\nerror %v, want one containing %q", tc.reason, err, tc.wantErr)
			case name == "NoProject" && !errors.Is(err, inventory.ErrScope):
				t.Errorf("%s\nerror %v is not inventory.ErrScope", tc.reason, err)
			}
		})
	}
}

// TestDefaultProject: GOOGLE_CLOUD_PROJECT, else gcloud's
// CLOUDSDK_CORE_PROJECT, else none.
func TestDefaultProject(t *testing.T) {
	cases := map[string]struct {
		reason string
		env    map[string]string
		want   string
	}{
		"Both":    {reason: "GOOGLE_CLOUD_PROJECT comes first", env: map[string]string{"GOOGLE_CLOUD_PROJECT": "a", "CLOUDSDK_CORE_PROJECT": "b"}, want: "a"},
		"Gcloud":  {reason: "gcloud's project when it is the only one", env: map[string]string{"GOOGLE_CLOUD_PROJECT": "", "CLOUDSDK_CORE_PROJECT": "b"}, want: "b"},
		"Neither": {reason: "none", env: map[string]string{"GOOGLE_CLOUD_PROJECT": "", "CLOUDSDK_CORE_PROJECT": ""}, want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if diff := cmp.Diff(tc.want, DefaultProject()); diff != "" {
				t.Errorf("%s\nDefaultProject (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
