package azure

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph"
)

const (
	// resourcesPath is the ARM path of Resource Graph's query operation.
	resourcesPath = "/providers/Microsoft.ResourceGraph/resources"
	// apiVersion is the version armresourcegraph v0.10.0 queries with.
	apiVersion = "2024-04-01"
	// audience is the test cloud's Resource Manager audience.
	audience = "https://management.test.invalid"
	token    = "test-token"
	sub      = "00000000-0000-0000-0000-0000000000aa"
)

// staticToken is a credential that hands out one token and records the
// scopes it was asked for.
type staticToken struct {
	mu     sync.Mutex
	scopes []string
}

func (c *staticToken) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scopes = append(c.scopes, o.Scopes...)
	return azcore.AccessToken{Token: token, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// request is what the fake Resource Graph received: the QueryRequest body
// as the wire carries it, with the call's api-version.
type request struct {
	Query         string   `json:"query"`
	Subscriptions []string `json:"subscriptions"`
	Options       struct {
		ResultFormat string `json:"resultFormat"`
		SkipToken    string `json:"$skipToken"`
	} `json:"options"`
	APIVersion string `json:"-"`
}

// fakeGraph is a Resource Graph endpoint speaking ARM's wire format: pages
// of objectArray data joined by $skipToken, answered after throttled 429s,
// or an error status for every call.
type fakeGraph struct {
	pages      [][]map[string]any
	throttled  int    // 429 answers before the first page; -1: every call
	retryAfter string // Retry-After of a 429
	status     int    // non-zero: answer every call with this status
	truncated  bool   // mark the last page resultTruncated

	mu       sync.Mutex
	requests []request
}

func (f *fakeGraph) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != resourcesPath || r.Header.Get("Authorization") != "Bearer "+token ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		armError(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("unexpected %s %s, authorization %q", r.Method, r.URL, r.Header.Get("Authorization")))
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		armError(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	req.APIVersion = r.URL.Query().Get("api-version")
	f.mu.Lock()
	f.requests = append(f.requests, req)
	throttle := f.throttled != 0
	if f.throttled > 0 {
		f.throttled--
	}
	f.mu.Unlock()
	w.Header().Set("x-ms-user-quota-remaining", "0")
	w.Header().Set("x-ms-user-quota-resets-after", "00:00:01")
	switch {
	case f.status != 0:
		armError(w, f.status, "AuthorizationFailed", fmt.Sprintf("The client does not have authorization to perform action 'Microsoft.ResourceGraph/resources/read' over scope '/subscriptions/%s'.", sub))
		return
	case throttle:
		w.Header().Set("Retry-After", f.retryAfter)
		armError(w, http.StatusTooManyRequests, "RateLimiting", "Please provide below info when asking for support: timestamp, correlationId.")
		return
	}
	page := 0
	if req.Options.SkipToken != "" {
		if _, err := fmt.Sscanf(req.Options.SkipToken, "skip-page-%d", &page); err != nil {
			armError(w, http.StatusBadRequest, "InvalidSkipToken", err.Error())
			return
		}
	}
	data := []map[string]any{}
	if page < len(f.pages) {
		data = f.pages[page]
	}
	total := 0
	for _, p := range f.pages {
		total += len(p)
	}
	out := map[string]any{"totalRecords": total, "count": len(data), "resultTruncated": "false", "data": data}
	if page+1 < len(f.pages) {
		out["$skipToken"] = fmt.Sprintf("skip-page-%d", page+1)
	} else if f.truncated {
		out["resultTruncated"] = "true"
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(out)
}

func armError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// clientOf returns a real Resource Graph client of srv: ARM at srv's URL,
// over srv's TLS client, with a static token and retry's options.
func clientOf(t *testing.T, srv *httptest.Server, cred azcore.TokenCredential, retry policy.RetryOptions) *armresourcegraph.Client {
	t.Helper()
	c, err := armresourcegraph.NewClient(cred, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: srv.URL + "/aad/",
				Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: {Endpoint: srv.URL, Audience: audience}},
			},
			Transport: srv.Client(),
			Retry:     retry,
		},
		DisableRPRegistration: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// noRetry makes one try of each call.
var noRetry = policy.RetryOptions{MaxRetries: -1}
