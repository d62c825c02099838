package fakeclouddns

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	dns "google.golang.org/api/dns/v1"
)

// seedZone creates zone example-com (example.com.) and adds a A, a TXT,
// b A and c A. With the apex NS and SOA, the zone then lists, in order:
// a A, a TXT, b A, c A, apex NS, apex SOA.
func seedZone(t *testing.T, e *env) {
	t.Helper()
	e.createZone(t, "example-com", "example.com.")
	e.mustChange(t, "example-com", []*dns.ResourceRecordSet{
		rr("c.example.com.", "A", 300, "192.0.2.3"),
		rr("a.example.com.", "TXT", 300, `"hello"`),
		rr("b.example.com.", "A", 300, "192.0.2.2"),
		rr("a.example.com.", "A", 300, "192.0.2.1"),
	}, nil)
}

var allSeeded = []string{
	"a.example.com. A", "a.example.com. TXT", "b.example.com. A", "c.example.com. A", "example.com. NS", "example.com. SOA",
}

// TestRRSetList lists record sets with the client's filters and paging,
// with a default page size of 2.
func TestRRSetList(t *testing.T) {
	e := newEnv(t, WithDefaultPageSize(2))
	seedZone(t, e)

	type page struct {
		Names []string
		More  bool // a nextPageToken came back
	}
	cases := map[string]struct {
		reason string
		call   func() *dns.ResourceRecordSetsListCall
		pages  bool // follow every page (the client's Pages)
		want   []page
	}{
		"FirstPageOnly": {
			reason: "Without maxResults the server's page size applies; a caller that reads one page (the provider's create, resource_dns_record_set.go:426) sees only its first items.",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com")
			},
			want: []page{{Names: allSeeded[:2], More: true}},
		},
		"AllPages": {
			reason: "Following nextPageToken (the provider's force_destroy, resource_dns_managed_zone.go:895-903) sees every record set once, in order.",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com")
			},
			pages: true,
			want:  []page{{allSeeded[:2], true}, {allSeeded[2:4], true}, {allSeeded[4:], false}},
		},
		"MaxResults": {
			reason: "maxResults overrides the default page size.",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com").MaxResults(5)
			},
			pages: true,
			want:  []page{{allSeeded[:5], true}, {allSeeded[5:], false}},
		},
		"Name": {
			reason: "name matches the fully qualified name exactly, every type.",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com").Name("a.example.com.")
			},
			want: []page{{Names: []string{"a.example.com. A", "a.example.com. TXT"}}},
		},
		"NameAndType": {
			reason: "name and type select one record set: the provider's read (resource_dns_record_set.go:494-495).",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com").Name("a.example.com.").Type("TXT")
			},
			want: []page{{Names: []string{"a.example.com. TXT"}}},
		},
		"NamePaged": {
			reason: "Paging applies after the filter.",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com").Name("a.example.com.").MaxResults(1)
			},
			pages: true,
			want:  []page{{[]string{"a.example.com. A"}, true}, {[]string{"a.example.com. TXT"}, false}},
		},
		"NameWithoutDot": {
			reason: "The name is matched as given: without its trailing dot it names nothing.",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com").Name("a.example.com")
			},
			want: []page{{Names: []string{}}},
		},
		"NoMatch": {
			reason: "A filter that matches nothing answers an empty list and no token.",
			call: func() *dns.ResourceRecordSetsListCall {
				return e.svc.ResourceRecordSets.List(testProject, "example-com").Name("zzz.example.com.").Type("A")
			},
			want: []page{{Names: []string{}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []page
			collect := func(r *dns.ResourceRecordSetsListResponse) error {
				got = append(got, page{Names: names(r.Rrsets), More: r.NextPageToken != ""})
				return nil
			}
			if tc.pages {
				if err := tc.call().Pages(t.Context(), collect); err != nil {
					t.Fatal(err)
				}
			} else {
				r, err := tc.call().Do()
				if err != nil {
					t.Fatal(err)
				}
				_ = collect(r)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRRSetListErrors covers the refusals of resourceRecordSets.list.
func TestRRSetListErrors(t *testing.T) {
	e := newEnv(t)
	seedZone(t, e)
	list := func() *dns.ResourceRecordSetsListCall {
		return e.svc.ResourceRecordSets.List(testProject, "example-com")
	}
	cases := map[string]struct {
		reason string
		call   *dns.ResourceRecordSetsListCall
		want   *gerr
	}{
		"TypeWithoutName": {
			reason: "The client documents that type needs name (dns-gen.go ResourceRecordSetsListCall.Type).",
			call:   list().Type("A"),
			want:   &gerr{400, "invalid", "Invalid value for 'parameters.type': the 'name' parameter must be present when 'type' is"},
		},
		"ForeignPageToken": {
			reason: "A page token the server did not issue is refused.",
			call:   list().PageToken("abc"),
			want:   &gerr{400, "invalid", "Invalid value for 'parameters.pageToken': 'abc'"},
		},
		"NegativeMaxResults": {
			reason: "maxResults is a non-negative integer.",
			call:   list().MaxResults(-1),
			want:   &gerr{400, "invalid", "Invalid value for 'parameters.maxResults': '-1'"},
		},
		"Filter": {
			reason: "The fake does not implement 'filter' and says so rather than ignoring it.",
			call:   list().Filter(`name="a.example.com."`),
			want:   &gerr{400, "invalid", "'filter' is not implemented by the fake; use 'name' and 'type'"},
		},
		"UnknownZone": {
			reason: "A zone that does not exist is 404.",
			call:   e.svc.ResourceRecordSets.List(testProject, "missing"),
			want:   &gerr{404, "notFound", "The 'parameters.managedZone' resource named 'missing' does not exist."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := tc.call.Do()
			if diff := cmp.Diff(tc.want, apiErr(err)); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRRSetListTokenIsAPosition changes the zone between two pages: the
// second page neither repeats nor skips a record set that was there
// before, and shows one added after the first page's position.
func TestRRSetListTokenIsAPosition(t *testing.T) {
	e := newEnv(t, WithDefaultPageSize(2))
	seedZone(t, e)
	first, err := e.svc.ResourceRecordSets.List(testProject, "example-com").Do()
	if err != nil {
		t.Fatal(err)
	}
	// One before the position (shifts an offset), one after it.
	e.mustChange(t, "example-com", []*dns.ResourceRecordSet{
		rr("0.example.com.", "A", 300, "192.0.2.9"),
		rr("bb.example.com.", "A", 300, "192.0.2.8"),
	}, nil)
	second, err := e.svc.ResourceRecordSets.List(testProject, "example-com").PageToken(first.NextPageToken).Do()
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{names(first.Rrsets), names(second.Rrsets)}
	want := [][]string{allSeeded[:2], {"b.example.com. A", "bb.example.com. A"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages: -want, +got:\n%s", diff)
	}
}

// TestRRSetGet reads one record set with resourceRecordSets.get, which the
// provider does not call but the client offers.
func TestRRSetGet(t *testing.T) {
	e := newEnv(t)
	seedZone(t, e)
	got, err := e.svc.ResourceRecordSets.Get(testProject, "example-com", "a.example.com.", "TXT").Do()
	if err != nil {
		t.Fatal(err)
	}
	want := &dns.ResourceRecordSet{Kind: "dns#resourceRecordSet", Name: "a.example.com.", Type: "TXT", Ttl: 300, Rrdatas: []string{`"hello"`},
		ServerResponse: got.ServerResponse}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Get: -want, +got:\n%s", diff)
	}
	if got.HTTPStatusCode != http.StatusOK {
		t.Errorf("Get: status %d", got.HTTPStatusCode)
	}
	_, err = e.svc.ResourceRecordSets.Get(testProject, "example-com", "a.example.com.", "MX").Do()
	if diff := cmp.Diff(&gerr{404, "notFound", "The 'parameters.name' resource named 'a.example.com. (MX)' does not exist."}, apiErr(err)); diff != "" {
		t.Errorf("Get of a missing record set: -want, +got:\n%s", diff)
	}
}
