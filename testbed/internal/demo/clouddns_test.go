package demo

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
)

// TestDNSClient drives a fake Cloud DNS in this process, on loopback, as
// a run drives the fakeclouddns process: the zone, the stats, the faults.
func TestDNSClient(t *testing.T) {
	srv, err := fakeclouddns.NewServer(fakeclouddns.WithDefaultPageSize(10))
	if err != nil {
		t.Fatal(err)
	}
	running, err := fakeclouddns.Listen("", srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = running.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newDNSClient(running.URL)

	if err := c.healthy(ctx); err != nil {
		t.Fatalf("healthy(): %v", err)
	}
	if err := c.createZone(ctx); err != nil {
		t.Fatalf("createZone(): %v", err)
	}
	if err := c.createZone(ctx); err == nil {
		t.Error("createZone() a second time: want the fake's 409, got nil")
	}
	s, err := c.stats(ctx)
	if err != nil {
		t.Fatalf("stats(): %v", err)
	}
	z := dnsZoneOf(s)
	if diff := cmp.Diff(dnsApexRecordSets, z.RRSetCount); diff != "" {
		t.Errorf("a new zone holds its apex record sets: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(int64(1), s.Conflicts); diff != "" {
		t.Errorf("the second createZone() was a 409: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(0, len(unboundDNS(nil, z))); diff != "" {
		t.Errorf("the apex record sets are no orphans: -want, +got:\n%s", diff)
	}

	for _, latency := range []time.Duration{20 * time.Second, 0} {
		if err := c.setFaults(ctx, dnsFaults(latency)); err != nil {
			t.Fatalf("setFaults(%s): %v", latency, err)
		}
		if diff := cmp.Diff(latency, srv.Faults().For(fakeclouddns.OpChangesCreate).Latency); diff != "" {
			t.Errorf("changes.create latency after setFaults(%s): -want, +got:\n%s", latency, diff)
		}
	}
	// The provider's endpoint is the fake's dns_custom_endpoint.
	r := &run{o: Options{Line: Line{CloudDNS: true}}, cloudURL: running.URL}
	if diff := cmp.Diff(running.Endpoint(), r.providerEndpoint()); diff != "" {
		t.Errorf("providerEndpoint(): -want, +got:\n%s", diff)
	}
}
