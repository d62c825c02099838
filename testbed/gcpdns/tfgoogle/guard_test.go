package tfgoogle

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// offGuard stands in for everything off the machine while the tests run.
// TestMain points HTTP_PROXY and HTTPS_PROXY at it, so every request an
// HTTP client that honours them (http.DefaultTransport, go-cleanhttp,
// google.golang.org/api's transports, gRPC) sends to a host other than
// loopback reaches it instead, and GCE_METADATA_HOST, so that the GCE
// metadata client, which dials without a proxy, asks it too. It answers
// every request 403 and records where it was going.
//
// What it cannot see: a client that dials a non-loopback address itself,
// ignoring the proxy variables, and DNS lookups. The strace check in the
// module's README covers those.
type offGuard struct {
	srv *httptest.Server
	mu  sync.Mutex
	hit []string
}

var guard = newOffGuard()

func newOffGuard() *offGuard {
	g := &offGuard{}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var target string
		switch {
		case r.Method == http.MethodConnect:
			target = "https://" + r.Host
		case r.URL.IsAbs():
			target = r.URL.String()
		default:
			// Not a proxy request: the metadata client, asking its host.
			target = "metadata:" + r.URL.Path
		}
		g.mu.Lock()
		g.hit = append(g.hit, target)
		g.mu.Unlock()
		http.Error(w, "offline test: no traffic leaves the machine", http.StatusForbidden)
	}))
	return g
}

// since returns the targets recorded after the first n.
func (g *offGuard) since(n int) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.hit[n:])
}

func (g *offGuard) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.hit)
}

// offline fails t, when it ends, if anything tried to leave the machine
// while it ran.
func offline(t *testing.T) {
	t.Helper()
	n := guard.count()
	t.Cleanup(func() {
		if got := guard.since(n); len(got) != 0 {
			t.Errorf("requests left the machine: %v", got)
		}
	})
}

func TestMain(m *testing.M) {
	u := guard.srv.URL
	env := map[string]string{
		"HTTP_PROXY": u, "HTTPS_PROXY": u, "http_proxy": u, "https_proxy": u,
		"NO_PROXY": "", "no_proxy": "",
		"GCE_METADATA_HOST": strings.TrimPrefix(u, "http://"),
	}
	// Nothing the provider reads for credentials or endpoints comes from
	// the environment of whoever runs the tests.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GOOGLE_") || strings.HasPrefix(k, "CLOUDSDK_") || strings.HasPrefix(k, "GCLOUD_") {
			env[k] = ""
		}
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	guard.srv.Close()
	os.Exit(code)
}

// TestGuardSeesDefaultTransport: the guard's premise, that a plain HTTP
// request to a public host reaches it and nothing else.
func TestGuardSeesDefaultTransport(t *testing.T) {
	n := guard.count()
	resp, err := http.Get("https://example.com/")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET https://example.com/ succeeded: the request left the machine")
	}
	if got, want := guard.since(n), []string{"https://example.com:443"}; !slices.Equal(got, want) {
		t.Errorf("guard saw %v, want %v", got, want)
	}
}
