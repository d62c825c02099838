// Package offguard stands in for every host off the machine while a
// provider built on a real Terraform provider (terraform-provider-google)
// runs in a test or the demo.
//
// A Guard is an HTTP server on 127.0.0.1. Env points a process's
// HTTP_PROXY, HTTPS_PROXY and GCE_METADATA_HOST at it, so every request
// that an HTTP client honouring them (http.DefaultTransport, go-cleanhttp,
// google.golang.org/api's transports, gRPC) sends to a host other than
// loopback reaches the guard instead, and so does the GCE metadata client,
// which dials without a proxy. The guard answers 403 and records where
// each request was going. Loopback is never proxied (net/http), so the API
// server and the fake clouds are reached as they are.
//
// What it cannot see: a client that dials a non-loopback address itself,
// ignoring the proxy variables, and DNS lookups. The strace check in
// testbed/gcpdns/README.md covers those.
package offguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Refusal is the body of the guard's 403.
const Refusal = "intentjournal: no traffic leaves the machine"

const (
	readHeaderTimeout = 30 * time.Second
	shutdownTimeout   = 5 * time.Second
)

// A Guard refuses and records what would have left the machine. Its
// methods are safe for concurrent use; those of a nil *Guard are no-ops
// that saw nothing.
type Guard struct {
	url string
	srv *http.Server

	mu   sync.Mutex
	seen []string
}

// Start starts a Guard on 127.0.0.1.
func Start() (*Guard, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot start the off-machine guard: %w", err)
	}
	g := &Guard{url: "http://" + ln.Addr().String()}
	g.srv = &http.Server{Handler: http.HandlerFunc(g.refuse), ReadHeaderTimeout: readHeaderTimeout}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// URL is the guard's base URL, http://127.0.0.1:PORT.
func (g *Guard) URL() string { return g.url }

// Env is the environment, as KEY=VALUE, that routes a process's
// off-machine traffic to the guard. It empties NO_PROXY, so that no host
// but loopback escapes it.
func (g *Guard) Env() []string {
	host := strings.TrimPrefix(g.url, "http://")
	return []string{
		"HTTP_PROXY=" + g.url, "HTTPS_PROXY=" + g.url, "http_proxy=" + g.url, "https_proxy=" + g.url,
		"NO_PROXY=", "no_proxy=",
		"GCE_METADATA_HOST=" + host, "GCE_METADATA_IP=" + host,
	}
}

func (g *Guard) refuse(w http.ResponseWriter, r *http.Request) {
	target := Target(r)
	g.mu.Lock()
	g.seen = append(g.seen, target)
	g.mu.Unlock()
	http.Error(w, Refusal, http.StatusForbidden)
}

// Target names where r was going: the host of a CONNECT (an HTTPS request
// through the proxy), the URL of a proxied HTTP request, or, for a request
// to the guard itself (the metadata client), "metadata:" and its path.
func Target(r *http.Request) string {
	switch {
	case r.Method == http.MethodConnect:
		return "https://" + r.Host
	case r.URL.IsAbs():
		return r.URL.String()
	}
	return "metadata:" + r.URL.Path
}

// Hits returns where the requests the guard refused were going, in order.
func (g *Guard) Hits() []string { return g.Since(0) }

// Count is how many requests the guard has refused.
func (g *Guard) Count() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.seen)
}

// Since returns the targets of the requests refused after the first n,
// for a caller that took Count before the part it checks.
func (g *Guard) Since(n int) []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if n >= len(g.seen) {
		return nil
	}
	return slices.Clone(g.seen[max(n, 0):])
}

// Close stops the guard, waiting a few seconds for requests in progress.
func (g *Guard) Close() {
	if g == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := g.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = g.srv.Close()
	}
}
