package gcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	asset "cloud.google.com/go/asset/apiv1"
	"google.golang.org/api/option"
)

// fakeAsset is Cloud Asset Inventory's REST endpoint for
// searchAllResources, served on 127.0.0.1: it records each request the
// SDK sends and answers with what the test's handler returns.
type fakeAsset struct {
	t      *testing.T
	srv    *httptest.Server
	answer func(n int, r *http.Request) reply

	mu   sync.Mutex
	reqs []request
}

// request is what the fake recorded of one HTTP request.
type request struct {
	Method string
	Path   string
	Query  url.Values
}

// reply is one answer of the fake: a status, headers, and a JSON body.
type reply struct {
	status int
	header http.Header
	body   any
}

// page is a SearchAllResourcesResponse as the REST API documents it.
type page struct {
	Results       []result `json:"results,omitempty"`
	NextPageToken string   `json:"nextPageToken,omitempty"`
}

// result is a ResourceSearchResult, the fields the Lister reads.
type result struct {
	Name       string            `json:"name"`
	AssetType  string            `json:"assetType,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	CreateTime string            `json:"createTime,omitempty"`
	Project    string            `json:"project,omitempty"`
}

// ok is a 200 answer with body.
func ok(body any) reply { return reply{status: http.StatusOK, body: body} }

// apiError is an error answer in Google's JSON error format.
func apiError(code int, status, msg string, header http.Header) reply {
	return reply{status: code, header: header, body: map[string]any{
		"error": map[string]any{"code": code, "message": msg, "status": status},
	}}
}

// newFake starts a fake whose n-th request (from 0) is answered by
// answer, and returns it with a real REST client of the SDK pointed at
// it.
func newFake(t *testing.T, answer func(n int, r *http.Request) reply) (*fakeAsset, *asset.Client) {
	t.Helper()
	f := &fakeAsset{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	c, err := asset.NewRESTClient(context.Background(),
		option.WithEndpoint(f.srv.URL),
		option.WithoutAuthentication(),
		option.WithHTTPClient(f.srv.Client()),
	)
	if err != nil {
		t.Fatalf("asset.NewRESTClient: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return f, c
}

func (f *fakeAsset) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()})
	f.mu.Unlock()
	f.t.Logf("fake asset inventory: request %d: %s %s", n, r.Method, r.URL.RequestURI())
	rep := f.answer(n, r)
	for k, vs := range rep.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	if err := json.NewEncoder(w).Encode(rep.body); err != nil {
		f.t.Errorf("fake asset inventory: cannot encode the reply: %v", err)
	}
}

// requests returns what the fake has recorded so far.
func (f *fakeAsset) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}
