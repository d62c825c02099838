package fakecloud

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seed creates the objects every handler test starts from:
// rs-...1 www.example-com, rs-...2 api.example-com, net-...3, net-...4.
func seed(t *testing.T, s *Store) {
	t.Helper()
	for _, rs := range []RecordSet{
		{Zone: "example-com", Name: "www", Type: "A", TTL: 60, RRDatas: []string{"10.0.0.1"}, Tags: map[string]string{"crossplane-name": "www"}},
		{Zone: "example-com", Name: "api", Type: "CNAME", TTL: 300, RRDatas: []string{"www"}, Tags: map[string]string{"team": "a"}},
	} {
		if _, err := s.CreateRecordSet(rs); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
	for _, n := range []Network{
		{Name: "vpc", CIDRBlock: "10.0.0.0/16", Tags: map[string]string{"crossplane-name": "vpc-a"}},
		{Name: "vpc", CIDRBlock: "10.1.0.0/16", Tags: map[string]string{"crossplane-name": "vpc-b"}},
	} {
		if _, err := s.CreateNetwork(n); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
}

const (
	rsWWW  = `{"id":"rs-0000000000000001","zone":"example-com","name":"www","type":"A","ttl":60,"rrdatas":["10.0.0.1"],"tags":{"crossplane-name":"www"},"createdAt":"2026-01-02T03:04:05Z"}`
	rsAPI  = `{"id":"rs-0000000000000002","zone":"example-com","name":"api","type":"CNAME","ttl":300,"rrdatas":["www"],"tags":{"team":"a"},"createdAt":"2026-01-02T03:04:05Z"}`
	netA   = `{"id":"net-0000000000000003","name":"vpc","cidrBlock":"10.0.0.0/16","tags":{"crossplane-name":"vpc-a"},"createdAt":"2026-01-02T03:04:05Z"}`
	netB   = `{"id":"net-0000000000000004","name":"vpc","cidrBlock":"10.1.0.0/16","tags":{"crossplane-name":"vpc-b"},"createdAt":"2026-01-02T03:04:05Z"}`
	netNew = `{"id":"net-0000000000000005","name":"vpc","cidrBlock":"","tags":{},"createdAt":"2026-01-02T03:04:05Z"}`
)

func TestHandlers(t *testing.T) {
	type want struct {
		status int
		body   string // JSON, compared structurally; empty means no body
	}
	cases := map[string]struct {
		reason string
		method string
		path   string
		body   string
		want   want
	}{
		"CreateRecordSet": {
			reason: "A create answers 201 with the server-assigned ID and the default TTL.",
			method: "POST", path: "/v1/recordsets",
			body: `{"zone":"example-com","name":"mail","type":"MX","rrdatas":["10 mx"]}`,
			want: want{201, `{"id":"rs-0000000000000005","zone":"example-com","name":"mail","type":"MX","ttl":300,"rrdatas":["10 mx"],"tags":{},"createdAt":"2026-01-02T03:04:05Z"}`},
		},
		"CreateRecordSetConflict": {
			reason: "A second record set with the same zone and name answers 409 with the contract's message.",
			method: "POST", path: "/v1/recordsets",
			body: `{"zone":"example-com","name":"www","type":"A","ttl":60,"rrdatas":["10.0.0.2"]}`,
			want: want{409, `{"error":{"code":409,"message":"recordset \"www\" already exists in zone \"example-com\""}}`},
		},
		"CreateRecordSetSameNameOtherZone": {
			reason: "Uniqueness is per zone.",
			method: "POST", path: "/v1/recordsets",
			body: `{"zone":"other","name":"www","type":"A","rrdatas":["1.1.1.1"]}`,
			want: want{201, `{"id":"rs-0000000000000005","zone":"other","name":"www","type":"A","ttl":300,"rrdatas":["1.1.1.1"],"tags":{},"createdAt":"2026-01-02T03:04:05Z"}`},
		},
		"CreateRecordSetUnknownField": {
			reason: "Unknown fields are refused rather than ignored.",
			method: "POST", path: "/v1/recordsets",
			body: `{"zone":"z","name":"n","type":"A","rrdatas":["x"],"colour":"red"}`,
			want: want{400, `{"error":{"code":400,"message":"cannot decode request body: json: unknown field \"colour\""}}`},
		},
		"CreateRecordSetMissingRRDatas": {
			reason: "A record set needs data.",
			method: "POST", path: "/v1/recordsets",
			body: `{"zone":"z","name":"n","type":"A"}`,
			want: want{400, `{"error":{"code":400,"message":"rrdatas must hold at least one value"}}`},
		},
		"CreateRecordSetBadJSON": {
			reason: "Malformed JSON answers 400.",
			method: "POST", path: "/v1/recordsets", body: `{"zone":`,
			want: want{400, `{"error":{"code":400,"message":"cannot decode request body: unexpected EOF"}}`},
		},
		"GetRecordSet": {
			reason: "A get answers the stored object.",
			method: "GET", path: "/v1/recordsets/rs-0000000000000001",
			want: want{200, rsWWW},
		},
		"GetRecordSetMissing": {
			reason: "A get of an unknown ID answers 404.",
			method: "GET", path: "/v1/recordsets/rs-ffffffffffffffff",
			want: want{404, `{"error":{"code":404,"message":"recordset \"rs-ffffffffffffffff\" not found"}}`},
		},
		"UpdateRecordSet": {
			reason: "A put replaces type, ttl, rrdatas and tags, and keeps ID, zone, name and createdAt.",
			method: "PUT", path: "/v1/recordsets/rs-0000000000000001",
			body: `{"zone":"example-com","type":"A","ttl":30,"rrdatas":["10.0.0.9"],"tags":{"x":"y"}}`,
			want: want{200, `{"id":"rs-0000000000000001","zone":"example-com","name":"www","type":"A","ttl":30,"rrdatas":["10.0.0.9"],"tags":{"x":"y"},"createdAt":"2026-01-02T03:04:05Z"}`},
		},
		"UpdateRecordSetZone": {
			reason: "Zone is immutable.",
			method: "PUT", path: "/v1/recordsets/rs-0000000000000001",
			body: `{"zone":"elsewhere","type":"A","ttl":30,"rrdatas":["10.0.0.9"]}`,
			want: want{400, `{"error":{"code":400,"message":"zone of recordset \"rs-0000000000000001\" is immutable"}}`},
		},
		"UpdateRecordSetMissing": {
			reason: "A put of an unknown ID answers 404.",
			method: "PUT", path: "/v1/recordsets/rs-ffffffffffffffff",
			body: `{"type":"A","rrdatas":["x"]}`,
			want: want{404, `{"error":{"code":404,"message":"recordset \"rs-ffffffffffffffff\" not found"}}`},
		},
		"DeleteRecordSet": {
			reason: "A delete answers 204 with no body.",
			method: "DELETE", path: "/v1/recordsets/rs-0000000000000002",
			want: want{204, ""},
		},
		"DeleteRecordSetMissing": {
			reason: "A delete of an unknown ID answers 404.",
			method: "DELETE", path: "/v1/recordsets/rs-ffffffffffffffff",
			want: want{404, `{"error":{"code":404,"message":"recordset \"rs-ffffffffffffffff\" not found"}}`},
		},
		"ListRecordSetsAll": {
			reason: "A list without filters answers every record set, oldest first.",
			method: "GET", path: "/v1/recordsets",
			want: want{200, `{"items":[` + rsWWW + `,` + rsAPI + `]}`},
		},
		"ListRecordSetsByNaturalKey": {
			reason: "Zone and name find one record set.",
			method: "GET", path: "/v1/recordsets?zone=example-com&name=api",
			want: want{200, `{"items":[` + rsAPI + `]}`},
		},
		"ListRecordSetsByTag": {
			reason: "tag.K=V filters by tag.",
			method: "GET", path: "/v1/recordsets?tag.crossplane-name=www",
			want: want{200, `{"items":[` + rsWWW + `]}`},
		},
		"ListRecordSetsNoMatch": {
			reason: "Filters are ANDed; no match answers an empty list, not null.",
			method: "GET", path: "/v1/recordsets?name=www&tag.team=a",
			want: want{200, `{"items":[]}`},
		},
		"ListRecordSetsUnknownParameter": {
			reason: "An unknown parameter is refused, so that a typo does not widen a lookup.",
			method: "GET", path: "/v1/recordsets?nmae=www",
			want: want{400, `{"error":{"code":400,"message":"unknown query parameter \"nmae\"; want one of zone, name or tag.<key>"}}`},
		},
		"CreateAddress": {
			reason: "An address create answers 201 with a server-assigned addr- ID.",
			method: "POST", path: "/v1/addresses", body: `{"name":"eip","tags":{"crossplane-name":"eip-a"}}`,
			want: want{201, `{"id":"addr-0000000000000005","name":"eip","tags":{"crossplane-name":"eip-a"},"createdAt":"2026-01-02T03:04:05Z"}`},
		},
		"CreateAddressNoName": {
			reason: "An address needs a name.",
			method: "POST", path: "/v1/addresses", body: `{"tags":{}}`,
			want: want{400, `{"error":{"code":400,"message":"name is required"}}`},
		},
		"ListAddressesEmpty": {
			reason: "A list of no addresses answers an empty list, not null.",
			method: "GET", path: "/v1/addresses?tag.crossplane-name=eip-a",
			want: want{200, `{"items":[]}`},
		},
		"GetAddressNotFound": {
			reason: "A get of an unknown address answers 404.",
			method: "GET", path: "/v1/addresses/addr-0000000000000009",
			want: want{404, `{"error":{"code":404,"message":"address \"addr-0000000000000009\" not found"}}`},
		},
		"CreateBucket": {
			reason: "A bucket create answers 201 with a server-assigned bkt- ID.",
			method: "POST", path: "/v1/buckets", body: `{"name":"logs","tags":{"crossplane-name":"logs"}}`,
			want: want{201, `{"id":"bkt-0000000000000005","name":"logs","tags":{"crossplane-name":"logs"},"createdAt":"2026-01-02T03:04:05Z"}`},
		},
		"ListBucketsEmpty": {
			reason: "A list of no buckets answers an empty list, not null.",
			method: "GET", path: "/v1/buckets?name=logs",
			want: want{200, `{"items":[]}`},
		},
		"GetBucketNotFound": {
			reason: "A get of an unknown bucket answers 404.",
			method: "GET", path: "/v1/buckets/bkt-0000000000000009",
			want: want{404, `{"error":{"code":404,"message":"bucket \"bkt-0000000000000009\" not found"}}`},
		},
		"CreateNetworkDuplicate": {
			reason: "Networks are ID-keyed: the same body again makes another network.",
			method: "POST", path: "/v1/networks", body: `{"name":"vpc"}`,
			want: want{201, netNew},
		},
		"CreateNetworkBadCIDR": {
			reason: "cidrBlock must be a CIDR block.",
			method: "POST", path: "/v1/networks", body: `{"name":"vpc","cidrBlock":"10.0.0.1/16"}`,
			want: want{400, `{"error":{"code":400,"message":"cidrBlock \"10.0.0.1/16\" has host bits set; use \"10.0.0.0/16\""}}`},
		},
		"GetNetwork": {
			reason: "A get answers the stored network.",
			method: "GET", path: "/v1/networks/net-0000000000000004",
			want: want{200, netB},
		},
		"UpdateNetwork": {
			reason: "Every network field is mutable.",
			method: "PUT", path: "/v1/networks/net-0000000000000003",
			body: `{"name":"renamed","cidrBlock":"10.9.0.0/16","tags":{"k":"v"}}`,
			want: want{200, `{"id":"net-0000000000000003","name":"renamed","cidrBlock":"10.9.0.0/16","tags":{"k":"v"},"createdAt":"2026-01-02T03:04:05Z"}`},
		},
		"DeleteNetworkMissing": {
			reason: "A delete of an unknown network answers 404.",
			method: "DELETE", path: "/v1/networks/net-ffffffffffffffff",
			want: want{404, `{"error":{"code":404,"message":"network \"net-ffffffffffffffff\" not found"}}`},
		},
		"ListNetworksByName": {
			reason: "Names are not unique: a name lookup may find several networks.",
			method: "GET", path: "/v1/networks?name=vpc",
			want: want{200, `{"items":[` + netA + `,` + netB + `]}`},
		},
		"ListNetworksByTag": {
			reason: "A tag finds the network a caller lost track of.",
			method: "GET", path: "/v1/networks?tag.crossplane-name=vpc-b",
			want: want{200, `{"items":[` + netB + `]}`},
		},
		"WrongMethod": {
			reason: "Unknown routes answer a JSON 404.",
			method: "PATCH", path: "/v1/networks",
			want: want{404, `{"error":{"code":404,"message":"no route for PATCH /v1/networks"}}`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t)
			seed(t, s)
			_, c := newTestServer(t, s)
			req, err := http.NewRequestWithContext(context.Background(), tc.method, c.Endpoint()+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			got := want{status: resp.StatusCode, body: normalizeJSON(t, string(data))}
			exp := want{status: tc.want.status, body: normalizeJSON(t, tc.want.body)}
			if diff := cmp.Diff(exp, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n%s %s: -want, +got:\n%s", tc.reason, tc.method, tc.path, diff)
			}
		})
	}
}

// normalizeJSON re-encodes JSON so that comparisons ignore key order and
// spacing.
func normalizeJSON(t *testing.T, s string) string {
	t.Helper()
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v: %q", err, s)
	}
	out, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestClientErrors(t *testing.T) {
	s := newTestStore(t)
	seed(t, s)
	_, c := newTestServer(t, s)
	ctx := context.Background()

	_, err := c.CreateRecordSet(ctx, RecordSet{Zone: "example-com", Name: "www", Type: "A", TTL: 60, RRDatas: []string{"x"}})
	type got struct {
		IsConflict, IsNotFound, Ambiguous bool
		Text                              string
	}
	cases := map[string]struct {
		reason string
		err    error
		want   got
	}{
		"Conflict": {
			reason: "A 409 matches ErrConflict and its text carries the server's message.",
			err:    err,
			want:   got{IsConflict: true, Text: `fakecloud: POST /v1/recordsets: 409 Conflict: recordset "www" already exists in zone "example-com"`},
		},
		"NotFound": {
			reason: "A 404 matches ErrNotFound.",
			err: func() error {
				_, err := c.GetNetwork(ctx, "net-ffffffffffffffff")
				return err
			}(),
			want: got{IsNotFound: true, Text: `fakecloud: GET /v1/networks/net-ffffffffffffffff: 404 Not Found: network "net-ffffffffffffffff" not found`},
		},
		"DeleteNotFound": {
			reason: "A delete of a missing object matches ErrNotFound.",
			err:    c.DeleteRecordSet(ctx, "rs-ffffffffffffffff"),
			want:   got{IsNotFound: true, Text: `fakecloud: DELETE /v1/recordsets/rs-ffffffffffffffff: 404 Not Found: recordset "rs-ffffffffffffffff" not found`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := got{
				IsConflict: errors.Is(tc.err, ErrConflict),
				IsNotFound: errors.Is(tc.err, ErrNotFound),
				Ambiguous:  IsAmbiguous(tc.err),
				Text:       tc.err.Error(),
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
