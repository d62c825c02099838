package offguard

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/http/httpproxy"
)

// TestGuard is the control of every test that relies on a guard: what a
// provider sends off the machine, through the guard as the proxy Env
// makes it, is refused and recorded, and loopback is not proxied.
func TestGuard(t *testing.T) {
	g, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)

	// The proxy configuration Env gives a process, as net/http reads it.
	env := map[string]string{}
	for _, kv := range g.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg := &httpproxy.Config{HTTPProxy: env["HTTP_PROXY"], HTTPSProxy: env["HTTPS_PROXY"], NoProxy: env["NO_PROXY"]}
	proxyOf := cfg.ProxyFunc()
	for target, want := range map[string]string{
		"https://oauth2.googleapis.com/token": g.URL(),
		"http://dns.intentjournal.invalid/x":  g.URL(),
		"http://127.0.0.1:6443/api":           "",
		"http://localhost:6443/api":           "",
	} {
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		p, err := proxyOf(u)
		if err != nil {
			t.Fatalf("proxy for %s: %v", target, err)
		}
		got := ""
		if p != nil {
			got = p.String()
		}
		if got != want {
			t.Errorf("proxy for %s: got %q, want %q", target, got, want)
		}
	}
	if got, want := env["GCE_METADATA_HOST"], strings.TrimPrefix(g.URL(), "http://"); got != want {
		t.Errorf("GCE_METADATA_HOST: got %q, want %q", got, want)
	}

	proxy, err := url.Parse(g.URL())
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	for _, target := range []string{"http://metadata.google.internal/computeMetadata/v1/project/project-id", "https://oauth2.googleapis.com/token"} {
		resp, err := hc.Get(target)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s through the guard: %s, want 403", target, resp.Status)
			}
		}
	}
	n := g.Count()
	// GCE_METADATA_HOST: the guard is the metadata server itself.
	resp, err := http.Get(g.URL() + "/computeMetadata/v1/instance/service-accounts/default/token")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET from the guard as the metadata server: %s, want 403", resp.Status)
	}
	want := []string{
		"http://metadata.google.internal/computeMetadata/v1/project/project-id",
		"https://oauth2.googleapis.com:443",
		"metadata:/computeMetadata/v1/instance/service-accounts/default/token",
	}
	if diff := cmp.Diff(want, g.Hits()); diff != "" {
		t.Errorf("Hits(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(want[n:], g.Since(n)); diff != "" {
		t.Errorf("Since(%d): -want, +got:\n%s", n, diff)
	}
	if got := g.Since(len(want) + 5); got != nil {
		t.Errorf("Since past the end: got %v, want nil", got)
	}
}

// TestNilGuard: a run with no guard (a line on the fake cloud) saw nothing.
func TestNilGuard(t *testing.T) {
	var none *Guard
	if diff := cmp.Diff([]string(nil), none.Hits()); diff != "" {
		t.Errorf("a nil guard's Hits(): -want, +got:\n%s", diff)
	}
	if got := none.Count(); got != 0 {
		t.Errorf("a nil guard's Count(): %d, want 0", got)
	}
	none.Close()
}
