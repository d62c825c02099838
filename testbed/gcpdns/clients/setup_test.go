package clients

import (
	"testing"

	transport_tpg "github.com/hashicorp/terraform-provider-google/google/transport"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

func TestSetup(t *testing.T) {
	p := tfgoogle.Provider()
	ps, err := Setup(*p, Config{Project: "test-project", AccessToken: "t", DNSEndpoint: "http://127.0.0.1:1/dns/v1/", UniverseDomain: "intentjournal.invalid"})
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	c, ok := ps.Meta.(*transport_tpg.Config)
	if !ok {
		t.Fatalf("Setup().Meta = %T, want *transport.Config", ps.Meta)
	}
	if c.Project != "test-project" || c.CustomEndpoints["dns_custom_endpoint"] != "http://127.0.0.1:1/dns/v1/" {
		t.Errorf("Meta project %q, DNS endpoint %q", c.Project, c.CustomEndpoints["dns_custom_endpoint"])
	}
	if p.Meta() != nil {
		t.Errorf("the shared provider was configured: Setup must configure a copy")
	}
	if _, err := Setup(*p, Config{Project: "test-project", AccessToken: "t"}); err == nil {
		t.Errorf("Setup without a universe domain succeeded; it would ask Google's userinfo endpoint")
	}
}
