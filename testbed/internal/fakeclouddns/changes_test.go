package fakeclouddns

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dns "google.golang.org/api/dns/v1"
)

// counters is what a change test compares of Stats.
type counters struct {
	Changes, Overwrites, Conflicts, DeletionsNotFound, PreconditionsFailed int64
}

func countersOf(s Stats) counters {
	return counters{s.Changes, s.Overwrites, s.Conflicts, s.DeletionsNotFound, s.PreconditionsFailed}
}

// TestChangesCreate posts one change to a seeded zone (seedZone, plus
// m A with two rrdatas) and checks the answer, the zone's record sets
// afterwards and the counters the change added.
func TestChangesCreate(t *testing.T) {
	var (
		aA            = rr("a.example.com.", "A", 300, "192.0.2.1")
		mA            = rr("m.example.com.", "A", 300, "192.0.2.1", "192.0.2.2")
		apexNS        = rr("example.com.", "NS", 21600, defaultNameServers...)
		soa           = "ns-cloud-a1.googledomains.com. cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300"
		precondition0 = &gerr{412, "conditionNotMet", "Precondition not met for 'entity.change.deletions[0]'"}
		seeded        = []string{"a.example.com. A", "a.example.com. TXT", "b.example.com. A", "c.example.com. A", "example.com. NS", "example.com. SOA", "m.example.com. A"}
	)
	cases := map[string]struct {
		reason    string
		zone      string
		adds      []*dns.ResourceRecordSet
		dels      []*dns.ResourceRecordSet
		want      *gerr // nil: accepted
		wantNames []string
		wantData  map[string][]string // "NAME TYPE" → rrdatas, for the record sets named
		wantCount counters
	}{
		"Addition": {
			reason:    "A new (name, type) is added.",
			adds:      []*dns.ResourceRecordSet{rr("d.example.com.", "A", 60, "192.0.2.4")},
			wantNames: []string{"a.example.com. A", "a.example.com. TXT", "b.example.com. A", "c.example.com. A", "d.example.com. A", "example.com. NS", "example.com. SOA", "m.example.com. A"},
			wantCount: counters{Changes: 1},
		},
		"Deletion": {
			reason:    "A deletion that matches exactly removes the record set.",
			dels:      []*dns.ResourceRecordSet{aA},
			wantNames: []string{"a.example.com. TXT", "b.example.com. A", "c.example.com. A", "example.com. NS", "example.com. SOA", "m.example.com. A"},
			wantCount: counters{Changes: 1},
		},
		"Overwrite": {
			reason:    "Deleting and adding the same (name, type) in one change replaces it atomically: the provider's create over an existing record set (resource_dns_record_set.go:426-440) and its update (:676-702).",
			dels:      []*dns.ResourceRecordSet{aA},
			adds:      []*dns.ResourceRecordSet{rr("a.example.com.", "A", 60, "192.0.2.99")},
			wantNames: seeded,
			wantData:  map[string][]string{"a.example.com. A": {"192.0.2.99"}},
			wantCount: counters{Changes: 1, Overwrites: 1},
		},
		"TypeChange": {
			reason:    "Deleting one type and adding another at the same name is no overwrite.",
			dels:      []*dns.ResourceRecordSet{aA},
			adds:      []*dns.ResourceRecordSet{rr("a.example.com.", "AAAA", 300, "2001:db8::1")},
			wantNames: []string{"a.example.com. AAAA", "a.example.com. TXT", "b.example.com. A", "c.example.com. A", "example.com. NS", "example.com. SOA", "m.example.com. A"},
			wantCount: counters{Changes: 1},
		},
		"DeletionRrdatasInAnyOrder": {
			reason:    "rrdatas match as a multiset.",
			dels:      []*dns.ResourceRecordSet{rr("m.example.com.", "A", 300, "192.0.2.2", "192.0.2.1")},
			wantNames: seeded[:6],
			wantCount: counters{Changes: 1},
		},
		"ApexSOAOverwrite": {
			reason:    "The apex SOA can be replaced (a google_dns_record_set of type SOA).",
			dels:      []*dns.ResourceRecordSet{rr("example.com.", "SOA", 21600, soa)},
			adds:      []*dns.ResourceRecordSet{rr("example.com.", "SOA", 300, "ns.example.com. root.example.com. 2 21600 3600 259200 300")},
			wantNames: seeded,
			wantCount: counters{Changes: 1, Overwrites: 1},
		},
		"AlreadyExists": {
			reason:    "An addition whose (name, type) exists and is not deleted by the same change is 409 alreadyExists.",
			adds:      []*dns.ResourceRecordSet{rr("a.example.com.", "A", 300, "192.0.2.1")},
			want:      &gerr{409, "alreadyExists", "The resource 'entity.change.additions[a.example.com.][A]' named 'a.example.com. (A)' already exists"},
			wantNames: seeded,
			wantCount: counters{Conflicts: 1},
		},
		"AlreadyExistsIsAtomic": {
			reason:    "A refused change applies none of its additions.",
			adds:      []*dns.ResourceRecordSet{rr("d.example.com.", "A", 300, "192.0.2.4"), rr("b.example.com.", "A", 300, "192.0.2.2")},
			want:      &gerr{409, "alreadyExists", "The resource 'entity.change.additions[b.example.com.][A]' named 'b.example.com. (A)' already exists"},
			wantNames: seeded,
			wantCount: counters{Conflicts: 1},
		},
		"DeletionNotFound": {
			reason:    "A deletion of a (name, type) that does not exist is 404 notFound.",
			dels:      []*dns.ResourceRecordSet{rr("z.example.com.", "A", 300, "192.0.2.1")},
			want:      &gerr{404, "notFound", "The 'entity.change.deletions[0]' resource named 'z.example.com. (A)' does not exist."},
			wantNames: seeded,
			wantCount: counters{DeletionsNotFound: 1},
		},
		"DeletionTTLMismatch": {
			reason:    "A deletion must match the existing TTL, else 412 conditionNotMet.",
			dels:      []*dns.ResourceRecordSet{rr("a.example.com.", "A", 60, "192.0.2.1")},
			want:      precondition0,
			wantNames: seeded,
			wantCount: counters{PreconditionsFailed: 1},
		},
		"DeletionRrdatasMismatch": {
			reason:    "A deletion must match the existing rrdatas, all of them, else 412 conditionNotMet.",
			dels:      []*dns.ResourceRecordSet{rr("m.example.com.", "A", 300, "192.0.2.1")},
			want:      precondition0,
			wantNames: seeded,
			wantCount: counters{PreconditionsFailed: 1},
		},
		"DeletionMismatchIsAtomic": {
			reason:    "A refused deletion applies none of the change.",
			adds:      []*dns.ResourceRecordSet{rr("d.example.com.", "A", 300, "192.0.2.4")},
			dels:      []*dns.ResourceRecordSet{aA, rr("b.example.com.", "A", 300, "192.0.2.99")},
			want:      &gerr{412, "conditionNotMet", "Precondition not met for 'entity.change.deletions[1]'"},
			wantNames: seeded,
			wantCount: counters{PreconditionsFailed: 1},
		},
		"ApexNSDeletion": {
			reason:    "A zone keeps its apex NS record set (the provider never deletes it: resource_dns_record_set.go:566-587).",
			dels:      []*dns.ResourceRecordSet{apexNS},
			want:      &gerr{400, "invalid", "The resource record set 'entity.change.deletions' may not remove the zone apex's NS record set without adding one"},
			wantNames: seeded,
		},
		"Empty": {
			reason:    "A change adds or deletes something.",
			want:      &gerr{400, "required", "The 'entity.change' resource must contain at least one addition or deletion"},
			wantNames: seeded,
		},
		"OutsideZone": {
			reason:    "A record set's name lies in its zone.",
			adds:      []*dns.ResourceRecordSet{rr("www.example.org.", "A", 300, "192.0.2.1")},
			want:      &gerr{400, "invalid", "Invalid value for 'entity.change.additions[0].name': 'www.example.org.'"},
			wantNames: seeded,
		},
		"SuffixIsNotInside": {
			reason:    "notexample.com. is not inside example.com.",
			adds:      []*dns.ResourceRecordSet{rr("notexample.com.", "A", 300, "192.0.2.1")},
			want:      &gerr{400, "invalid", "Invalid value for 'entity.change.additions[0].name': 'notexample.com.'"},
			wantNames: seeded,
		},
		"UnknownType": {
			reason:    "The type is one Cloud DNS supports.",
			adds:      []*dns.ResourceRecordSet{rr("d.example.com.", "FOO", 300, "x")},
			want:      &gerr{400, "invalid", "Invalid value for 'entity.change.additions[0].type': 'FOO'"},
			wantNames: seeded,
		},
		"NoRrdatas": {
			reason:    "An addition carries rrdatas or a routing policy.",
			adds:      []*dns.ResourceRecordSet{rr("d.example.com.", "A", 300)},
			want:      &gerr{400, "required", "Required field 'entity.change.additions[0].rrdata' not specified"},
			wantNames: seeded,
		},
		"DuplicateAddition": {
			reason:    "One change names a (name, type) once among its additions.",
			adds:      []*dns.ResourceRecordSet{rr("d.example.com.", "A", 300, "192.0.2.4"), rr("d.example.com.", "A", 60, "192.0.2.5")},
			want:      &gerr{400, "invalid", "The resource record set 'entity.change.additions[1]' named 'd.example.com. (A)' appears twice in the change"},
			wantNames: seeded,
		},
		"UnknownZone": {
			reason:    "A change to a zone that does not exist is 404.",
			zone:      "missing",
			adds:      []*dns.ResourceRecordSet{rr("d.example.com.", "A", 300, "192.0.2.4")},
			want:      &gerr{404, "notFound", "The 'parameters.managedZone' resource named 'missing' does not exist."},
			wantNames: seeded,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			seedZone(t, e)
			e.mustChange(t, "example-com", []*dns.ResourceRecordSet{mA}, nil)
			before := countersOf(e.srv.Stats())

			zone := tc.zone
			if zone == "" {
				zone = "example-com"
			}
			c, err := e.change(zone, tc.adds, tc.dels)
			if diff := cmp.Diff(tc.want, apiErr(err)); diff != "" {
				t.Fatalf("%s\nChanges.Create error: -want, +got:\n%s", tc.reason, diff)
			}
			if err == nil && (c.Id != "3" || c.Status != "done" || c.Kind != "dns#change") {
				t.Errorf("accepted change: id %q status %q kind %q; want id 3 (after 0, 1, 2), done, dns#change", c.Id, c.Status, c.Kind)
			}

			st := e.srv.Stats()
			zs := st.Zones[testProject+"/example-com"]
			var got []string
			data := map[string][]string{}
			for _, r := range zs.RRSets {
				got = append(got, r.Name+" "+r.Type)
				data[r.Name+" "+r.Type] = r.Rrdatas
			}
			if diff := cmp.Diff(tc.wantNames, got); diff != "" {
				t.Errorf("%s\nrecord sets after: -want, +got:\n%s", tc.reason, diff)
			}
			for k, want := range tc.wantData {
				if diff := cmp.Diff(want, data[k]); diff != "" {
					t.Errorf("%s\nrrdatas of %s: -want, +got:\n%s", tc.reason, k, diff)
				}
			}
			now := countersOf(st)
			delta := counters{now.Changes - before.Changes, now.Overwrites - before.Overwrites, now.Conflicts - before.Conflicts,
				now.DeletionsNotFound - before.DeletionsNotFound, now.PreconditionsFailed - before.PreconditionsFailed}
			if diff := cmp.Diff(tc.wantCount, delta); diff != "" {
				t.Errorf("%s\ncounters added: -want, +got:\n%s", tc.reason, diff)
			}
			if zs.Conflicts != delta.Conflicts || zs.Overwrites != delta.Overwrites {
				t.Errorf("zone counters: conflicts %d overwrites %d; want %d and %d", zs.Conflicts, zs.Overwrites, delta.Conflicts, delta.Overwrites)
			}
		})
	}
}

// TestChangeStatus polls a change the way the provider's DnsChangeWaiter
// does (dns_change.go: Changes.Get until "done"): it is "pending" until
// the change delay has passed, then "done". Its record set is listed at
// once.
func TestChangeStatus(t *testing.T) {
	e := newEnv(t, WithChangeDelay(10*time.Second))
	e.createZone(t, "example-com", "example.com.")
	c := e.mustChange(t, "example-com", []*dns.ResourceRecordSet{rr("www.example.com.", "A", 300, "192.0.2.1")}, nil)

	list, err := e.svc.ResourceRecordSets.List(testProject, "example-com").Name("www.example.com.").Type("A").Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Rrsets) != 1 {
		t.Errorf("a pending change's record set is listed %d times, want 1", len(list.Rrsets))
	}

	got := []string{c.Status}
	for _, step := range []time.Duration{0, 4 * time.Second, 5 * time.Second, time.Second, time.Hour} {
		e.clock.Advance(step)
		g, err := e.svc.Changes.Get(testProject, "example-com", c.Id).Do()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, g.Status)
	}
	want := []string{"pending", "pending", "pending", "pending", "done", "done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses at create, +0s, +4s, +9s, +10s, +1h10s: -want, +got:\n%s", diff)
	}
	if c.StartTime != "2026-01-02T03:04:05.000Z" {
		t.Errorf("startTime %q, want the clock's time in RFC 3339 with milliseconds", c.StartTime)
	}
}

// TestChangeGetErrors covers changes.get of a change that does not exist.
func TestChangeGetErrors(t *testing.T) {
	e := newEnv(t)
	e.createZone(t, "example-com", "example.com.")
	cases := map[string]struct {
		zone, id string
		want     *gerr
	}{
		"NextID":     {"example-com", "1", &gerr{404, "notFound", "The 'parameters.changeId' resource named '1' does not exist."}},
		"NotANumber": {"example-com", "abc", &gerr{404, "notFound", "The 'parameters.changeId' resource named 'abc' does not exist."}},
		"Padded":     {"example-com", "00", &gerr{404, "notFound", "The 'parameters.changeId' resource named '00' does not exist."}},
		"NoZone":     {"missing", "0", &gerr{404, "notFound", "The 'parameters.managedZone' resource named 'missing' does not exist."}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := e.svc.Changes.Get(testProject, tc.zone, tc.id).Do()
			if diff := cmp.Diff(tc.want, apiErr(err)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

// TestWireShapes posts raw JSON and compares the raw answers: Google's
// error shape for a 409, and a change with its kinds and output fields.
func TestWireShapes(t *testing.T) {
	e := newEnv(t, WithChangeDelay(time.Second))
	e.createZone(t, "example-com", "example.com.")
	post := func(body string) (int, any) {
		t.Helper()
		url := e.run.URL + "/dns/v1/projects/" + testProject + "/managedZones/example-com/changes?alt=json&prettyPrint=false"
		res, err := e.http.Post(url, "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=UTF-8" {
			t.Errorf("Content-Type %q", ct)
		}
		return res.StatusCode, readJSON(t, res)
	}
	add := `{"additions":[{"name":"www.example.com.","type":"A","ttl":300,"rrdatas":["192.0.2.1"]}]}`
	code, got := post(add)
	wantChange := map[string]any{
		"kind": "dns#change", "id": "1", "status": "pending", "startTime": "2026-01-02T03:04:05.000Z",
		"additions": []any{map[string]any{"kind": "dns#resourceRecordSet", "name": "www.example.com.", "type": "A", "ttl": 300.0, "rrdatas": []any{"192.0.2.1"}}},
	}
	if diff := cmp.Diff(wantChange, got); code != http.StatusOK || diff != "" {
		t.Errorf("accepted change: status %d, -want, +got:\n%s", code, diff)
	}
	code, got = post(add)
	msg := "The resource 'entity.change.additions[www.example.com.][A]' named 'www.example.com. (A)' already exists"
	wantErr := map[string]any{"error": map[string]any{
		"code": 409.0, "message": msg,
		"errors": []any{map[string]any{"domain": "global", "reason": "alreadyExists", "message": msg}},
	}}
	if diff := cmp.Diff(wantErr, got); code != http.StatusConflict || diff != "" {
		t.Errorf("409: status %d, -want, +got:\n%s", code, diff)
	}
	code, got = post(`{"additions":[{"name":"x.example.com.","type":"A","ttl":300,"rrdatas":["192.0.2.1"],"bogus":1}]}`)
	if code != http.StatusBadRequest {
		t.Errorf("unknown field: status %d %v, want 400", code, got)
	}
	raw, _ := json.Marshal(got)
	if !bytes.Contains(raw, []byte(`"reason":"invalid"`)) {
		t.Errorf("unknown field: answer %s, want reason invalid", raw)
	}
}

// TestProviderCreatePath replays the provider's create of a record set
// (resource_dns_record_set.go:384-451): one List call without paging, a
// deletion for each listed record set with the same name and type, then
// one change with the addition and those deletions. When the existing
// record set is on the first page the change overwrites it; when it is
// beyond the first page the provider does not see it and the change is
// refused 409 alreadyExists.
func TestProviderCreatePath(t *testing.T) {
	cases := map[string]struct {
		reason   string
		name     string
		want     *gerr
		wantStat counters
	}{
		"OnFirstPage": {
			reason:   "a.example.com. A is the first record set listed: the provider deletes and re-adds it.",
			name:     "a.example.com.",
			wantStat: counters{Changes: 1, Overwrites: 1},
		},
		"BeyondFirstPage": {
			reason:   "c.example.com. A is the fourth record set listed and the page holds two: the provider adds it without deleting it.",
			name:     "c.example.com.",
			want:     &gerr{409, "alreadyExists", "The resource 'entity.change.additions[c.example.com.][A]' named 'c.example.com. (A)' already exists"},
			wantStat: counters{Conflicts: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, WithDefaultPageSize(2))
			seedZone(t, e)
			before := countersOf(e.srv.Stats())

			res, err := e.svc.ResourceRecordSets.List(testProject, "example-com").Do()
			if err != nil {
				t.Fatal(err)
			}
			chg := &dns.Change{Additions: []*dns.ResourceRecordSet{rr(tc.name, "A", 300, "192.0.2.77")}}
			for _, r := range res.Rrsets {
				if r.Type == "A" && r.Name == tc.name {
					chg.Deletions = append(chg.Deletions, r)
				}
			}
			_, err = e.svc.Changes.Create(testProject, "example-com", chg).Do()
			if diff := cmp.Diff(tc.want, apiErr(err)); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			now := countersOf(e.srv.Stats())
			delta := counters{now.Changes - before.Changes, now.Overwrites - before.Overwrites, now.Conflicts - before.Conflicts, 0, 0}
			if diff := cmp.Diff(tc.wantStat, delta); diff != "" {
				t.Errorf("%s\ncounters: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
