package fakeclouddns

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	dns "google.golang.org/api/dns/v1"
)

// TestZoneLifecycle creates, reads, lists and deletes a zone through the
// dns/v1 client, and checks every field the Terraform provider reads
// (resource_dns_managed_zone.go ResourceDNSManagedZoneFlatten: dnsName,
// id, name, nameServers, creationTime, visibility, description, labels).
func TestZoneLifecycle(t *testing.T) {
	e := newEnv(t)
	created, err := e.svc.ManagedZones.Create(testProject, &dns.ManagedZone{
		Name: "example-com", DnsName: "example.com.", Description: "Managed by Terraform",
		Labels: map[string]string{"goog-terraform-provisioned": "true"},
	}).Do()
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	want := &dns.ManagedZone{
		Kind: "dns#managedZone", Name: "example-com", DnsName: "example.com.", Description: "Managed by Terraform",
		Labels:       map[string]string{"goog-terraform-provisioned": "true"},
		NameServers:  defaultNameServers,
		CreationTime: "2026-01-02T03:04:05.000Z",
		Visibility:   "public",
	}
	ignore := cmpopts.IgnoreFields(dns.ManagedZone{}, "Id", "ServerResponse")
	if diff := cmp.Diff(want, created, ignore); diff != "" {
		t.Errorf("Create: -want, +got:\n%s", diff)
	}
	if created.Id < 1e18 || created.Id >= 1<<63 {
		t.Errorf("Create: id %d is not a 19-digit number that fits an int64", created.Id)
	}

	got, err := e.svc.ManagedZones.Get(testProject, "example-com").Do()
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(created, got, cmpopts.IgnoreFields(dns.ManagedZone{}, "ServerResponse")); diff != "" {
		t.Errorf("Get by name: -create, +get:\n%s", diff)
	}
	byID, err := e.svc.ManagedZones.Get(testProject, strconv.FormatUint(created.Id, 10)).Do()
	if err != nil {
		t.Fatalf("Get by ID: %v", err)
	}
	if byID.Name != "example-com" {
		t.Errorf("Get by ID: name %q, want example-com", byID.Name)
	}

	// Cloud DNS creates the apex SOA and NS record sets with the zone.
	rrs, err := e.svc.ResourceRecordSets.List(testProject, "example-com").Do()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	wantRR := []*dns.ResourceRecordSet{
		{Kind: "dns#resourceRecordSet", Name: "example.com.", Type: "NS", Ttl: 21600, Rrdatas: defaultNameServers},
		{Kind: "dns#resourceRecordSet", Name: "example.com.", Type: "SOA", Ttl: 21600,
			Rrdatas: []string{"ns-cloud-a1.googledomains.com. cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300"}},
	}
	if diff := cmp.Diff(wantRR, rrs.Rrsets); diff != "" {
		t.Errorf("apex record sets: -want, +got:\n%s", diff)
	}
	c0, err := e.svc.Changes.Get(testProject, "example-com", "0").Do()
	if err != nil {
		t.Fatalf("Changes.Get(0): %v", err)
	}
	if c0.Status != "done" || len(c0.Additions) != 2 {
		t.Errorf("change 0: status %q with %d additions, want done with the 2 apex record sets", c0.Status, len(c0.Additions))
	}

	if err := e.svc.ManagedZones.Delete(testProject, "example-com").Do(); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err = e.svc.ManagedZones.Get(testProject, "example-com").Do()
	if diff := cmp.Diff(&gerr{404, "notFound", "The 'parameters.managedZone' resource named 'example-com' does not exist."}, apiErr(err)); diff != "" {
		t.Errorf("Get after Delete: -want, +got:\n%s", diff)
	}
}

// TestZoneErrors covers the refusals of the zone methods.
func TestZoneErrors(t *testing.T) {
	e := newEnv(t)
	e.createZone(t, "example-com", "example.com.")
	e.mustChange(t, "example-com", []*dns.ResourceRecordSet{rr("www.example.com.", "A", 300, "192.0.2.1")}, nil)

	cases := map[string]struct {
		reason string
		call   func() error
		want   *gerr
	}{
		"CreateTaken": {
			reason: "A zone name is unique in its project.",
			call: func() error {
				_, err := e.svc.ManagedZones.Create(testProject, &dns.ManagedZone{Name: "example-com", DnsName: "other.com."}).Do()
				return err
			},
			want: &gerr{409, "alreadyExists", "The resource 'entity.managedZone' named 'example-com' already exists"},
		},
		"CreateNoDNSName": {
			reason: "dnsName is required.",
			call: func() error {
				_, err := e.svc.ManagedZones.Create(testProject, &dns.ManagedZone{Name: "z"}).Do()
				return err
			},
			want: &gerr{400, "required", "Required field 'entity.managedZone.dnsName' not specified"},
		},
		"CreateBadName": {
			reason: "A zone name starts with a letter and holds lower-case letters, digits and dashes.",
			call: func() error {
				_, err := e.svc.ManagedZones.Create(testProject, &dns.ManagedZone{Name: "Example_com", DnsName: "example.com."}).Do()
				return err
			},
			want: &gerr{400, "invalid", "Invalid value for 'entity.managedZone.name': 'Example_com'"},
		},
		"CreateDNSNameWithoutDot": {
			reason: "dnsName is fully qualified, with its trailing dot.",
			call: func() error {
				_, err := e.svc.ManagedZones.Create(testProject, &dns.ManagedZone{Name: "z", DnsName: "example.org"}).Do()
				return err
			},
			want: &gerr{400, "invalid", "Invalid value for 'entity.managedZone.dnsName': 'example.org'"},
		},
		"GetOtherProject": {
			reason: "Zones belong to a project.",
			call: func() error {
				_, err := e.svc.ManagedZones.Get("other", "example-com").Do()
				return err
			},
			want: &gerr{404, "notFound", "The 'parameters.managedZone' resource named 'example-com' does not exist."},
		},
		"DeleteNotEmpty": {
			reason: "A zone with record sets besides its apex SOA and NS cannot be deleted.",
			call:   func() error { return e.svc.ManagedZones.Delete(testProject, "example-com").Do() },
			want:   &gerr{400, "containerNotEmpty", "The resource named 'example-com' cannot be deleted because it contains one or more 'resource records'."},
		},
		"DeleteMissing": {
			reason: "Deleting a zone that does not exist is 404, which the provider's delete treats as gone.",
			call:   func() error { return e.svc.ManagedZones.Delete(testProject, "missing").Do() },
			want:   &gerr{404, "notFound", "The 'parameters.managedZone' resource named 'missing' does not exist."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, apiErr(tc.call())); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestZoneCreateProviderBody posts the body the Terraform provider's raw
// request sends (resource_dns_managed_zone.go resourceDNSManagedZoneCreate:
// privateVisibilityConfig is sent even when unset, as null) to the URL it
// builds from dns_custom_endpoint, and reads the zone back the way its Read
// does.
func TestZoneCreateProviderBody(t *testing.T) {
	e := newEnv(t)
	body := `{"description":"Managed by Terraform","dnsName":"example.com.","labels":{"goog-terraform-provisioned":"true"},` +
		`"name":"example-com","privateVisibilityConfig":null,"visibility":"public"}`
	url := e.run.Endpoint() + "projects/" + testProject + "/managedZones?alt=json"
	res, err := e.http.Post(url, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %v", url, res.StatusCode, got)
	}
	for _, k := range []string{"name", "dnsName", "id", "nameServers", "creationTime", "visibility", "description", "labels"} {
		if _, ok := got[k]; !ok {
			t.Errorf("the answer has no %q; the provider reads it: %v", k, got)
		}
	}
	if _, ok := got["privateVisibilityConfig"]; ok {
		t.Errorf("the answer echoes privateVisibilityConfig %v; a null config is absent", got["privateVisibilityConfig"])
	}
	if id, ok := got["id"].(string); !ok || id == "" {
		t.Errorf("id is %#v, want a decimal string (the client's uint64 ',string')", got["id"])
	}
}

// TestZoneList pages through a project's zones, and filters by dnsName.
func TestZoneList(t *testing.T) {
	e := newEnv(t, WithDefaultPageSize(2))
	for _, n := range []string{"c-zone", "a-zone", "b-zone"} {
		e.createZone(t, n, n+".example.")
	}
	e.createZone(t, "d-zone", "a-zone.example.")
	if _, err := e.svc.ManagedZones.Create("other", &dns.ManagedZone{Name: "e-zone", DnsName: "e.example."}).Do(); err != nil {
		t.Fatal(err)
	}

	first, err := e.svc.ManagedZones.List(testProject).Do()
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	err = e.svc.ManagedZones.List(testProject).Pages(t.Context(), func(p *dns.ManagedZonesListResponse) error {
		for _, z := range p.ManagedZones {
			all = append(all, z.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	filtered, err := e.svc.ManagedZones.List(testProject).DnsName("a-zone.example.").Do()
	if err != nil {
		t.Fatal(err)
	}
	var fnames []string
	for _, z := range filtered.ManagedZones {
		fnames = append(fnames, z.Name)
	}
	got := map[string][]string{"all": all, "filtered": fnames}
	want := map[string][]string{"all": {"a-zone", "b-zone", "c-zone", "d-zone"}, "filtered": {"a-zone", "d-zone"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	if len(first.ManagedZones) != 2 || first.NextPageToken == "" {
		t.Errorf("first page: %d zones, token %q; want 2 and a token", len(first.ManagedZones), first.NextPageToken)
	}
}

func readJSON(t *testing.T, res *http.Response) map[string]any {
	t.Helper()
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("answer %q: %v", data, err)
	}
	return m
}

// TestZoneUpdate replaces a zone's description and labels with the whole
// object, as the provider's update does (its encoder sends the
// output-only nameServers, id and creationTime back:
// resource_dns_managed_zone.go:1746-1757).
func TestZoneUpdate(t *testing.T) {
	e := newEnv(t)
	created := e.createZone(t, "example-com", "example.com.")
	body := map[string]any{
		"name": "example-com", "dnsName": "example.com.", "description": "new", "labels": map[string]string{"team": "dns"},
		"nameServers": created.NameServers, "id": created.Id, "creationTime": created.CreationTime, "privateVisibilityConfig": nil,
	}
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, e.run.Endpoint()+"projects/"+testProject+"/managedZones/example-com?alt=json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	op := readJSON(t, res)
	if res.StatusCode != http.StatusOK || op["kind"] != "dns#operation" || op["status"] != "done" || op["type"] != "UPDATE" {
		t.Errorf("PUT: %d %v, want 200 and a done dns#operation of type UPDATE", res.StatusCode, op)
	}
	got, err := e.svc.ManagedZones.Get(testProject, "example-com").Do()
	if err != nil {
		t.Fatal(err)
	}
	want := *created
	want.Description, want.Labels = "new", map[string]string{"team": "dns"}
	if diff := cmp.Diff(&want, got, cmpopts.IgnoreFields(dns.ManagedZone{}, "ServerResponse")); diff != "" {
		t.Errorf("zone after update: -want, +got:\n%s", diff)
	}

	_, err = e.svc.ManagedZones.Update(testProject, "example-com", &dns.ManagedZone{Name: "example-com", DnsName: "other.com."}).Do()
	if diff := cmp.Diff(&gerr{400, "invalid", "Invalid value for 'entity.managedZone.dnsName': 'other.com.'"}, apiErr(err)); diff != "" {
		t.Errorf("changing dnsName: -want, +got:\n%s", diff)
	}
}
