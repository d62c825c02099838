package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// guard stands in for every host off the machine, for a provider built on
// a real Terraform provider (terraform-provider-google): the provider's
// HTTP_PROXY, HTTPS_PROXY and GCE_METADATA_HOST point at it, so that a
// request to any host but loopback reaches the guard instead. It answers
// 403 and records where the request was going. Loopback is never proxied
// (net/http), so the API server and the fake Cloud DNS are reached as
// they are. What the guard cannot see, a client that ignores the proxy
// variables, testbed/gcpdns/README.md checks with strace.
type guard struct {
	url string
	srv *http.Server

	mu   sync.Mutex
	seen []string
}

// startGuard starts a guard on 127.0.0.1.
func startGuard() (*guard, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot start the off-machine guard: %w", err)
	}
	g := &guard{url: "http://" + ln.Addr().String()}
	g.srv = &http.Server{Handler: http.HandlerFunc(g.refuse), ReadHeaderTimeout: apiTimeout}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// refuse records where r was going and answers 403.
func (g *guard) refuse(w http.ResponseWriter, r *http.Request) {
	g.record(guardTarget(r))
	http.Error(w, "intentjournal demo: no traffic leaves the machine", http.StatusForbidden)
}

// guardTarget names where r was going: the host of a CONNECT (an HTTPS
// request through the proxy), the URL of a proxied HTTP request, or the
// metadata server's path.
func guardTarget(r *http.Request) string {
	switch {
	case r.Method == http.MethodConnect:
		return "https://" + r.Host
	case r.URL.IsAbs():
		return r.URL.String()
	}
	return "metadata:" + r.URL.Path
}

func (g *guard) record(target string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen = append(g.seen, target)
}

// hits returns where the requests the guard refused were going, in order.
// A nil guard saw none.
func (g *guard) hits() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.seen)
}

// env is the provider's environment that routes off-machine traffic to
// the guard.
func (g *guard) env() []string {
	host := strings.TrimPrefix(g.url, "http://")
	return []string{"HTTP_PROXY=" + g.url, "HTTPS_PROXY=" + g.url, "http_proxy=" + g.url, "https_proxy=" + g.url,
		"NO_PROXY=", "no_proxy=", "GCE_METADATA_HOST=" + host, "GCE_METADATA_IP=" + host}
}

// stop closes the guard; a nil guard is a no-op.
func (g *guard) stop() {
	if g == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := g.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = g.srv.Close()
	}
}
