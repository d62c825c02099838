package fakeclouddns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// t0 is the fixed time the test clock starts at.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// testProject is the project every test uses.
const testProject = "proj"

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// loopbackOnly is an http.RoundTripper that refuses, and fails the test
// for, every request to a host other than 127.0.0.1, and counts the
// requests it lets through: no test traffic may leave the machine.
type loopbackOnly struct {
	t    testing.TB
	base http.RoundTripper
	sent atomic.Int64
}

func (l *loopbackOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if h := req.URL.Hostname(); h != "127.0.0.1" {
		l.t.Errorf("request to %s left the machine's loopback: %s %s", h, req.Method, req.URL)
		return nil, fmt.Errorf("loopbackOnly: refusing a request to %q", h)
	}
	l.sent.Add(1)
	return l.base.RoundTrip(req)
}

// env is a fake served on 127.0.0.1 with a dns/v1 client for it.
type env struct {
	srv   *Server
	run   *Running
	svc   *dns.Service
	rt    *loopbackOnly
	http  *http.Client
	clock *clock
}

// newEnv serves a new fake on 127.0.0.1 with a test clock at t0, seed 1
// and opts, and returns it with a dns/v1 client built as the Terraform
// provider builds its own (option.WithHTTPClient) with no credentials.
// When the test ends it checks that every request the client sent reached
// the fake's API: the fake counted exactly as many as the transport did.
func newEnv(t *testing.T, opts ...Option) *env {
	t.Helper()
	c := &clock{now: t0}
	srv, err := NewServer(append([]Option{WithLogger(zaptest.NewLogger(t)), WithSeed(1), WithClock(c.Now)}, opts...)...)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	run, err := Listen("", srv)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { _ = run.Close() })
	base := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(base.CloseIdleConnections)
	rt := &loopbackOnly{t: t, base: base}
	hc := &http.Client{Transport: rt, Timeout: 30 * time.Second}
	svc, err := dns.NewService(context.Background(),
		option.WithEndpoint(run.BasePath()), option.WithoutAuthentication(), option.WithHTTPClient(hc))
	if err != nil {
		t.Fatalf("dns.NewService: %v", err)
	}
	e := &env{srv: srv, run: run, svc: svc, rt: rt, http: hc, clock: c}
	t.Cleanup(func() {
		var served int64
		for _, n := range srv.Stats().Requests {
			served += n
		}
		if sent := rt.sent.Load(); sent == 0 || served != sent {
			t.Errorf("the client sent %d requests and the fake's API served %d; want the same, non-zero", sent, served)
		}
	})
	return e
}

// createZone creates zone name for dnsName through the client.
func (e *env) createZone(t *testing.T, name, dnsName string) *dns.ManagedZone {
	t.Helper()
	z, err := e.svc.ManagedZones.Create(testProject, &dns.ManagedZone{Name: name, DnsName: dnsName, Description: "test"}).Do()
	if err != nil {
		t.Fatalf("ManagedZones.Create(%s): %v", name, err)
	}
	return z
}

// change posts a change through the client.
func (e *env) change(zone string, adds, dels []*dns.ResourceRecordSet) (*dns.Change, error) {
	return e.svc.Changes.Create(testProject, zone, &dns.Change{Additions: adds, Deletions: dels}).Do()
}

// mustChange posts a change and fails the test if it is refused.
func (e *env) mustChange(t *testing.T, zone string, adds, dels []*dns.ResourceRecordSet) *dns.Change {
	t.Helper()
	c, err := e.change(zone, adds, dels)
	if err != nil {
		t.Fatalf("Changes.Create: %v", err)
	}
	return c
}

// rr builds a record set for the client.
func rr(name, typ string, ttl int64, data ...string) *dns.ResourceRecordSet {
	return &dns.ResourceRecordSet{Name: name, Type: typ, Ttl: ttl, Rrdatas: data}
}

// gerr is what a test compares of a *googleapi.Error.
type gerr struct {
	Code    int
	Reason  string
	Message string
}

// apiErr extracts the code, first reason and message of a client error;
// nil for nil, and Code -1 for an error that is no *googleapi.Error.
func apiErr(err error) *gerr {
	if err == nil {
		return nil
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		return &gerr{Code: -1, Message: err.Error()}
	}
	g := &gerr{Code: ge.Code, Message: ge.Message}
	if len(ge.Errors) > 0 {
		g.Reason = ge.Errors[0].Reason
	}
	return g
}

// names returns "NAME TYPE" of each record set.
func names(rrs []*dns.ResourceRecordSet) []string {
	out := []string{}
	for _, r := range rrs {
		out = append(out, r.Name+" "+r.Type)
	}
	return out
}
