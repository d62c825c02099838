package fakeclouddns

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// changeSeeds are request bodies of POST .../changes: what the dns/v1
// client sends for the provider's create, update and delete, and some
// that must be refused.
var changeSeeds = []string{
	`{"additions":[{"name":"www.example.com.","rrdatas":["192.0.2.1"],"ttl":300,"type":"A"}]}`,
	`{"additions":[{"name":"www.example.com.","rrdatas":["192.0.2.2"],"ttl":60,"type":"A"}],"deletions":[{"kind":"dns#resourceRecordSet","name":"www.example.com.","rrdatas":["192.0.2.1"],"ttl":300,"type":"A"}]}`,
	`{"deletions":[{"name":"example.com.","rrdatas":["ns-cloud-a1.googledomains.com."],"ttl":21600,"type":"NS"}]}`,
	`{"kind":"dns#change","additions":[{"name":"w.example.com.","type":"A","routingPolicy":{"wrr":{"items":[{"weight":1,"rrdatas":["192.0.2.1"]}]}}}]}`,
	`{"additions":[{"name":"www.example.com.","type":"A","ttl":300,"rrdatas":["192.0.2.1"]}],"additions":[]}`,
	`{"additions":null,"deletions":[{}]}`,
	`{"additions":[{"name":"a","type":"A","bogus":1}]}`,
	`{"kind":"dns#other"}`,
	`{}`, `[]`, `null`, `{"ttl":"300"}`, `{} {}`, ``,
}

// FuzzDecodeChange checks that decodeChange never panics, refuses with a
// 400, and that what it accepts survives a round trip through the wire
// shape.
func FuzzDecodeChange(f *testing.F) {
	for _, s := range changeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		adds, dels, err := decodeChange(bytes.NewReader(body))
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.code != http.StatusBadRequest {
				t.Fatalf("decodeChange(%q): %v, want a 400 apiError", body, err)
			}
			return
		}
		again, err := json.Marshal(changeRequest{Additions: wireRRSets(adds), Deletions: wireRRSets(dels)})
		if err != nil {
			t.Fatal(err)
		}
		adds2, dels2, err := decodeChange(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("decodeChange of its own encoding %s: %v", again, err)
		}
		if diff := cmp.Diff([][]RRSet{adds, dels}, [][]RRSet{adds2, dels2}, cmp.Comparer(func(a, b json.RawMessage) bool { return sameJSON(a, b) })); diff != "" {
			t.Errorf("round trip of %q: -first, +second:\n%s", body, diff)
		}
	})
}

// FuzzDecodeZone checks that decodeZone never panics and refuses with a
// 400, and that newZone refuses what it accepts only with a 400.
func FuzzDecodeZone(f *testing.F) {
	for _, s := range []string{
		`{"description":"Managed by Terraform","dnsName":"example.com.","labels":{"goog-terraform-provisioned":"true"},"name":"example-com","privateVisibilityConfig":null,"visibility":"public"}`,
		`{"name":"z","dnsName":"example.com.","id":"123","nameServers":[],"creationTime":"","visibility":"private","cloudLoggingConfig":{"enableLogging":false}}`,
		`{"name":"z","dnsName":"example.com","visibility":"internal"}`,
		`{"kind":"dns#managedZone","name":"Z"}`, `{"name":1}`, `{}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		z, err := decodeZone(bytes.NewReader(body))
		if err == nil {
			_, err = newZone("p", z, 1<<62, t0)
		}
		var ae *apiError
		if err != nil && (!errors.As(err, &ae) || ae.code != http.StatusBadRequest) {
			t.Fatalf("decodeZone/newZone(%q): %v, want nil or a 400 apiError", body, err)
		}
	})
}

// FuzzPageToken checks that every key survives a page token and that no
// string makes decodePageToken panic or answer anything but a 400.
func FuzzPageToken(f *testing.F) {
	f.Add("www.example.com.", "A", "")
	f.Add("", "", encodePageToken("a.example.com.", "TXT"))
	f.Add("\x00", "\"", "ZG5zZmFrZTE")
	f.Add("x", "y", `["dnsfake1","a"]`)
	f.Fuzz(func(t *testing.T, name, typ, tok string) {
		if utf8.ValidString(name) && utf8.ValidString(typ) {
			got, err := decodePageToken(encodePageToken(name, typ), 2)
			if err != nil {
				t.Fatalf("decodePageToken(encodePageToken(%q, %q)): %v", name, typ, err)
			}
			if diff := cmp.Diff([]string{name, typ}, got); diff != "" {
				t.Errorf("round trip: -want, +got:\n%s", diff)
			}
		}
		for _, n := range []int{1, 2} {
			parts, err := decodePageToken(tok, n)
			var ae *apiError
			switch {
			case err != nil && (!errors.As(err, &ae) || ae.code != http.StatusBadRequest):
				t.Fatalf("decodePageToken(%q, %d): %v, want a 400 apiError", tok, n, err)
			case err == nil && len(parts) != n:
				t.Fatalf("decodePageToken(%q, %d): %d parts", tok, n, len(parts))
			}
		}
	})
}

// FuzzQuery checks that parseQuery never panics, answers only 400s, and
// returns only the method's own parameters.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"alt=json&prettyPrint=false",
		"alt=json&name=www.example.com.&type=A&maxResults=2&pageToken=abc",
		"alt=proto", "name=a&name=b", "fields=rrsets", "filter=x", "bogus=1", "%zz", "maxResults=-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := parseQuery(v, "name", "type", "maxResults", "pageToken")
		var ae *apiError
		if err != nil {
			if !errors.As(err, &ae) || ae.code != http.StatusBadRequest {
				t.Fatalf("parseQuery(%q): %v, want a 400 apiError", raw, err)
			}
			return
		}
		for k := range q {
			if !contains([]string{"name", "type", "maxResults", "pageToken"}, k) {
				t.Errorf("parseQuery(%q) returned %q", raw, k)
			}
		}
		if _, err := parseMaxResults(q, DefaultPageSize); err != nil && (!errors.As(err, &ae) || ae.code != http.StatusBadRequest) {
			t.Fatalf("parseMaxResults(%q): %v", raw, err)
		}
	})
}

// FuzzFaults checks that the faults decoder never panics, refuses with
// ErrInvalid, and that valid faults survive a round trip.
func FuzzFaults(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"default":{"latency":"20ms","errorRate":0.1,"errorCode":503},"ops":{"changes.create":{"ambiguousRate":0.5}},"jitter":"5ms"}`,
		`{"ops":{"nope":{}}}`, `{"default":{"latency":"1"}}`, `{"default":null}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got Faults
		if err := got.UnmarshalJSON(data); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("UnmarshalJSON(%q): %v is not ErrInvalid", data, err)
			}
			return
		}
		if got.Validate() != nil {
			return
		}
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", got, err)
		}
		var back Faults
		if err := back.UnmarshalJSON(again); err != nil {
			t.Fatalf("UnmarshalJSON of its own encoding %s: %v", again, err)
		}
		if diff := cmp.Diff(got, back); diff != "" {
			t.Errorf("round trip through %s: -want, +got:\n%s", again, diff)
		}
	})
}

// FuzzChangesCreate posts arbitrary change bodies to a zone through the
// server's handler and checks the zone's invariants after each: a change
// is accepted whole or not at all, the apex SOA and NS stay, and the
// counters agree with the answers.
func FuzzChangesCreate(f *testing.F) {
	for _, s := range changeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		srv, err := NewServer(WithSeed(1), WithClock(func() time.Time { return t0 }))
		if err != nil {
			t.Fatal(err)
		}
		do := func(method, path, body string) *httptest.ResponseRecorder {
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
			return w
		}
		if w := do("POST", "/dns/v1/projects/p/managedZones", `{"name":"z","dnsName":"example.com."}`); w.Code != http.StatusOK {
			t.Fatalf("create zone: %d %s", w.Code, w.Body)
		}
		before := srv.Stats().Zones["p/z"].RRSets
		w := do("POST", "/dns/v1/projects/p/managedZones/z/changes", string(body))
		st := srv.Stats()
		after := st.Zones["p/z"].RRSets
		switch w.Code {
		case http.StatusOK:
			if st.Changes != 1 {
				t.Errorf("accepted, but Changes is %d", st.Changes)
			}
		case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed:
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("refused %d, but the zone changed: -before, +after:\n%s", w.Code, diff)
			}
			var eb errorBody
			if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Error.Code != w.Code || len(eb.Error.Errors) != 1 {
				t.Errorf("refusal %d has body %s, want Google's error shape", w.Code, w.Body)
			}
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		apex := 0
		for _, r := range after {
			if r.Name == "example.com." && (r.Type == "SOA" || r.Type == "NS") {
				apex++
			}
		}
		if apex != 2 {
			t.Errorf("the zone has %d apex SOA/NS record sets after %q, want 2", apex, body)
		}
	})
}
