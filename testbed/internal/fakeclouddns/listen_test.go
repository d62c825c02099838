package fakeclouddns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"
)

// TestCheckLoopback accepts loopback addresses only.
func TestCheckLoopback(t *testing.T) {
	cases := map[string]bool{
		"127.0.0.1:0":    true,
		"127.0.0.2:8080": true,
		"[::1]:0":        true,
		"localhost:0":    true,
		"0.0.0.0:0":      false,
		":0":             false,
		"10.0.0.1:80":    false,
		"example.com:80": false,
		"127.0.0.1":      false, // no port
	}
	for addr, ok := range cases {
		t.Run(addr, func(t *testing.T) {
			err := CheckLoopback(addr)
			if (err == nil) != ok {
				t.Errorf("CheckLoopback(%q): %v, want ok %v", addr, err, ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("CheckLoopback(%q): %v is not ErrInvalid", addr, err)
			}
		})
	}
	if _, err := Listen("0.0.0.0:0", nil); err == nil {
		t.Error("Listen on 0.0.0.0: no error")
	}
}

// TestProviderEndpoint gives the fake's Endpoint to a dns/v1 client the
// way the Terraform provider does with dns_custom_endpoint: it strips the
// version (transport/config.go:762-765 RemoveBasePathVersion) and then
// "/dns/" (services/dns/client.go:30-31) and sets the result as the
// service's BasePath (client.go:39). Every request must reach the fake.
func TestProviderEndpoint(t *testing.T) {
	e := newEnv(t)
	removeBasePathVersion := func(url string) string {
		re := regexp.MustCompile(`(?P<base>https?://.*)(?P<version>/[^/]+?/$)`)
		return re.ReplaceAllString(url, "$1/")
	}
	base := strings.ReplaceAll(removeBasePathVersion(e.run.Endpoint()), "/dns/", "")
	if base != e.run.URL {
		t.Errorf("the provider's base path is %q, want the fake's root %q", base, e.run.URL)
	}
	svc, err := dns.NewService(context.Background(), option.WithHTTPClient(e.http))
	if err != nil {
		t.Fatal(err)
	}
	svc.BasePath = base
	if _, err := svc.ManagedZones.Create(testProject, &dns.ManagedZone{Name: "example-com", DnsName: "example.com."}).Do(); err != nil {
		t.Fatalf("Create through the provider's base path: %v", err)
	}
	list, err := svc.ResourceRecordSets.List(testProject, "example-com").Do()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"example.com. NS", "example.com. SOA"}, names(list.Rrsets)); diff != "" {
		t.Errorf("List: -want, +got:\n%s", diff)
	}
}

// TestEndpointWithVersion shows the mistake the fake's 404 explains: the
// dns/v1 client resolves "dns/v1/projects/..." against its endpoint, so
// an endpoint that already ends in /dns/v1/ doubles it.
func TestEndpointWithVersion(t *testing.T) {
	e := newEnv(t)
	e.createZone(t, "example-com", "example.com.")
	// Its own transport: the fake's API does not count an unrouted request.
	rt := &loopbackOnly{t: t, base: http.DefaultTransport}
	svc, err := dns.NewService(context.Background(), option.WithEndpoint(e.run.Endpoint()), option.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.ManagedZones.Get(testProject, "example-com").Do()
	g := apiErr(err)
	if g == nil || g.Code != 404 || !strings.Contains(g.Message, "/dns/v1/dns/v1/") || !strings.Contains(g.Message, "give it the server's root URL") {
		t.Errorf("Get through %s: %+v, want a 404 that names the doubled path and the fix", e.run.Endpoint(), g)
	}
	if rt.sent.Load() != 1 {
		t.Errorf("the client sent %d requests, want 1", rt.sent.Load())
	}
}

// TestRunningClose closes a server twice and shuts another down.
func TestRunningClose(t *testing.T) {
	srv, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Listen("", srv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.URL, "http://127.0.0.1:") || r.Endpoint() != r.URL+"/dns/v1/" || r.BasePath() != r.URL+"/" {
		t.Errorf("URL %q, Endpoint %q, BasePath %q", r.URL, r.Endpoint(), r.BasePath())
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	r2, err := Listen("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestNewServerOptions refuses out-of-range options.
func TestNewServerOptions(t *testing.T) {
	cases := map[string]Option{
		"PageSizeZero":        WithDefaultPageSize(0),
		"NegativeChangeDelay": WithChangeDelay(-1),
		"InvalidFaults":       WithFaults(Faults{Default: Fault{ErrorRate: -1}}),
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := NewServer(o); !errors.Is(err, ErrInvalid) {
				t.Errorf("NewServer: %v, want ErrInvalid", err)
			}
		})
	}
}

// recordTB records Errorf calls instead of failing the test.
type recordTB struct {
	testing.TB
	errs []string
}

func (r *recordTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestLoopbackOnlyRefuses checks the tests' guard: a request to any host
// but 127.0.0.1 is refused before it is sent, and fails the test.
func TestLoopbackOnlyRefuses(t *testing.T) {
	for _, host := range []string{"dns.googleapis.com", "192.0.2.1", "localhost", "[::1]"} {
		t.Run(host, func(t *testing.T) {
			rec := &recordTB{TB: t}
			sent := false
			rt := &loopbackOnly{t: rec, base: roundTripFunc(func(*http.Request) (*http.Response, error) {
				sent = true
				return nil, errors.New("unreachable")
			})}
			req, err := http.NewRequest(http.MethodGet, "http://"+host+"/dns/v1/projects/p/managedZones", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = rt.RoundTrip(req)
			if err == nil || sent || len(rec.errs) != 1 || rt.sent.Load() != 0 {
				t.Errorf("RoundTrip to %s: err %v, sent %v, test errors %q, counted %d; want refused, unsent, one test error, uncounted",
					host, err, sent, rec.errs, rt.sent.Load())
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
