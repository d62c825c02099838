package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
)

// The fake Cloud DNS the demo's CloudDNS line runs against: one project,
// one zone, every record set an A record in it.
const (
	// dnsProject is the provider config's project.
	dnsProject = "intentjournal-demo"
	// dnsZone is the managed zone's name; dnsZoneDNS its DNS name, the
	// name of its two apex record sets (SOA and NS).
	dnsZone    = "zone-a"
	dnsZoneDNS = "example.com."
	// dnsNamespace holds the RecordSets.
	dnsNamespace = "team-a"
	// dnsApexRecordSets is how many record sets a new zone holds: its
	// apex SOA and NS.
	dnsApexRecordSets = 2
)

// dnsRecordSet returns, unstructured, the i-th RecordSet MR of a CloudDNS
// line: rec-NNNNN in dnsNamespace, the A record rec-NNNNN.example.com. in
// dnsZone, with an address of its own (10.0.0.1 for the first).
func (l Line) dnsRecordSet(i int) *unstructured.Unstructured {
	ns, name := l.namespaceOf(i), fmt.Sprintf("rec-%05d", l.nameIndex(i))
	a := i + 1
	return l.managed(kindRecordSet, ns, name, map[string]any{
		"managedZone": dnsZone, "name": dnsName(name), "type": "A", "ttl": int64(300),
		"rrdatas": []any{fmt.Sprintf("10.%d.%d.%d", (a>>16)&0xff, (a>>8)&0xff, a&0xff)},
	})
}

// dnsName returns the DNS name of the record set of the RecordSet MR
// called mr.
func dnsName(mr string) string { return mr + "." + dnsZoneDNS }

// recordSetID returns the ID terraform-provider-google gives the record
// set (name, typ) of dnsZone: a bound RecordSet's external name.
func recordSetID(name, typ string) string {
	return fmt.Sprintf("projects/%s/managedZones/%s/rrsets/%s/%s", dnsProject, dnsZone, name, typ)
}

// dnsClient speaks the fake Cloud DNS's HTTP API, what the demo needs of
// it: its health, the zone's creation, its ground truth (GET /fake/stats)
// and its faults (PUT /fake/faults). The provider reaches the same server
// through the Terraform provider's dns_custom_endpoint.
type dnsClient struct {
	url string // the server's root, http://127.0.0.1:PORT
	hc  *http.Client
}

// newDNSClient returns a client of the fake at url. It uses no proxy:
// the fake listens on loopback only. Its calls end with their context.
func newDNSClient(url string) *dnsClient {
	return &dnsClient{url: strings.TrimRight(url, "/"), hc: &http.Client{Transport: &http.Transport{Proxy: nil}}}
}

// healthy returns nil once the fake answers GET /healthz.
func (c *dnsClient) healthy(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil)
}

// createZone creates dnsZone in dnsProject: the fake answers with the
// zone and its two apex record sets.
func (c *dnsClient) createZone(ctx context.Context) error {
	body := map[string]string{"name": dnsZone, "dnsName": dnsZoneDNS, "description": "intentjournal demo"}
	return c.do(ctx, http.MethodPost, fakeclouddns.APIPrefix+"projects/"+dnsProject+"/managedZones", body, nil)
}

// stats returns the fake's ground truth.
func (c *dnsClient) stats(ctx context.Context) (fakeclouddns.Stats, error) {
	var s fakeclouddns.Stats
	err := c.do(ctx, http.MethodGet, "/fake/stats", nil, &s)
	return s, err
}

// setFaults replaces the fake's faults.
func (c *dnsClient) setFaults(ctx context.Context, f fakeclouddns.Faults) error {
	return c.do(ctx, http.MethodPut, "/fake/faults", f, nil)
}

// do sends in as JSON, when not nil, and decodes the answer into out, when
// not nil. An answer other than 2xx is an error that quotes its body.
func (c *dnsClient) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("cannot encode the request of %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("cannot %s %s: %w", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("cannot read the answer of %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("cannot decode the answer of %s %s: %w", method, path, err)
		}
	}
	return nil
}

// dnsFaults are the fake's faults at its start: every changes.create
// answered latency after it was carried out, or none when latency is 0.
func dnsFaults(latency time.Duration) fakeclouddns.Faults {
	if latency <= 0 {
		return fakeclouddns.Faults{}
	}
	return fakeclouddns.Faults{Ops: map[fakeclouddns.Op]fakeclouddns.Fault{fakeclouddns.OpChangesCreate: {Latency: latency}}}
}

// startCloudDNS starts the fake Cloud DNS, with Options.PageSize its
// default page size and cloudLatency its changes.create latency, waits
// until it serves, and creates the zone.
func (r *run) startCloudDNS(ctx context.Context) error {
	ready := filepath.Join(r.dir, "fakeclouddns.ready")
	faults, err := json.Marshal(dnsFaults(r.cloudLatency()))
	if err != nil {
		return fmt.Errorf("cannot encode the fake Cloud DNS's faults: %w", err)
	}
	r.cloud = newProcess(r.log, r.dir, "fakeclouddns", r.o.Binaries.FakeCloud,
		"--addr", "127.0.0.1:0", "--ready-file", ready, "--page-size", strconv.Itoa(r.o.PageSize), "--faults", string(faults))
	if err := r.cloud.start(); err != nil {
		return err
	}
	url, err := waitServing(ctx, r.cloud, ready, func(ctx context.Context, url string) error { return newDNSClient(url).healthy(ctx) })
	if err != nil {
		return fmt.Errorf("cannot start the fake Cloud DNS: %w", err)
	}
	r.cloudURL, r.dns = url, newDNSClient(url)
	cctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	if err := r.dns.createZone(cctx); err != nil {
		return fmt.Errorf("cannot create the zone %s in the fake Cloud DNS: %w", dnsZone, err)
	}
	r.log.Info("Fake Cloud DNS serving", zap.String("url", r.cloudURL), zap.String("zone", dnsZone), zap.Int("page-size", r.o.PageSize))
	return nil
}

// dnsStats reads the fake's ground truth, retrying as stats does.
func (r *run) dnsStats(ctx context.Context) (fakeclouddns.Stats, error) {
	var s fakeclouddns.Stats
	err := retryTransient(ctx, r.log, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		var err error
		s, err = r.dns.stats(ctx)
		return err
	})
	if err != nil {
		return s, fmt.Errorf("cannot read the fake Cloud DNS's stats: %w", err)
	}
	return s, nil
}
