package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

// TestCountRequests: every request a client of the config sends is
// counted by method, through client-go's own transport wrappers, which
// reach the transport beneath the counter (WrappedRoundTripper) to cancel
// a request that timed out.
func TestCountRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, UserAgent: "test"}
	rc := countRequests(cfg)
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{http.MethodGet, http.MethodGet, http.MethodPatch} {
		req, _ := http.NewRequest(m, srv.URL+"/api", strings.NewReader(""))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	if diff := cmp.Diff(map[string]int{"GET": 2, "PATCH": 1}, rc.byMethod); diff != "" {
		t.Errorf("requests by method (-want +got):\n%s", diff)
	}
	inner := http.DefaultTransport
	ct := &countingTransport{rc: rc, rt: inner}
	if ct.WrappedRoundTripper() != inner {
		t.Error("the counter does not let client-go reach the transport beneath it")
	}
}
