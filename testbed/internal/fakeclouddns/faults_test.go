package fakeclouddns

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dns "google.golang.org/api/dns/v1"
)

// TestFaultsJSON decodes the faults' wire shape and encodes it back.
func TestFaultsJSON(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    Faults
		wantErr bool
	}{
		"Empty": {
			reason: "{} injects nothing.",
			in:     `{}`,
		},
		"Full": {
			reason: "Every field.",
			in:     `{"default":{"latency":"20ms","errorRate":0.1,"errorCode":503},"ops":{"changes.create":{"ambiguousRate":0.5,"latency":"1s"}},"jitter":"5ms"}`,
			want: Faults{
				Default: Fault{Latency: 20 * time.Millisecond, ErrorRate: 0.1, ErrorCode: 503},
				Ops:     map[Op]Fault{OpChangesCreate: {Latency: time.Second, AmbiguousRate: 0.5}},
				Jitter:  5 * time.Millisecond,
			},
		},
		"UnknownField": {
			reason:  "A misspelt field is an error, not ignored.",
			in:      `{"default":{"errRate":1}}`,
			wantErr: true,
		},
		"BadDuration": {
			reason:  "Latencies are Go durations.",
			in:      `{"default":{"latency":"20"}}`,
			wantErr: true,
		},
		"Trailing": {
			reason:  "One JSON value.",
			in:      `{} {}`,
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got Faults
			err := got.UnmarshalJSON([]byte(tc.in))
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nUnmarshal: %v, want error %v", tc.reason, err, tc.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("Unmarshal: %v is not ErrInvalid", err)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nUnmarshal: -want, +got:\n%s", tc.reason, diff)
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back Faults
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("Unmarshal(Marshal) of %s: %v", data, err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("round trip through %s: -want, +got:\n%s", data, diff)
			}
		})
	}
}

// TestFaultsValidate refuses configurations that cannot apply.
func TestFaultsValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		f      Faults
		ok     bool
	}{
		"Zero":             {"The zero value injects nothing.", Faults{}, true},
		"DefaultAmbiguous": {"A default ambiguousRate applies to mutations only.", Faults{Default: Fault{AmbiguousRate: 1}}, true},
		"RateAboveOne":     {"Rates are probabilities.", Faults{Default: Fault{ErrorRate: 1.5}}, false},
		"NegativeLatency":  {"Latencies are not negative.", Faults{Ops: map[Op]Fault{OpRRSetsList: {Latency: -1}}}, false},
		"UnknownOp":        {"Ops names methods the fake serves.", Faults{Ops: map[Op]Fault{"changes.list": {ErrorRate: 1}}}, false},
		"AmbiguousRead":    {"A read cannot be ambiguous.", Faults{Ops: map[Op]Fault{OpChangesGet: {AmbiguousRate: 1}}}, false},
		"ErrorCode404":     {"Injected errors are ones the provider retries.", Faults{Default: Fault{ErrorCode: 404}}, false},
		"NegativeJitter":   {"Jitter is not negative.", Faults{Jitter: -time.Second}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.f.Validate()
			if (err == nil) != tc.ok {
				t.Errorf("%s\nValidate: %v, want ok %v", tc.reason, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate: %v is not ErrInvalid", err)
			}
		})
	}
}

// TestFaultsFor resolves one method's faults.
func TestFaultsFor(t *testing.T) {
	f := Faults{
		Default: Fault{Latency: time.Second, ErrorRate: 0.5, AmbiguousRate: 0.25},
		Ops:     map[Op]Fault{OpRRSetsList: {ErrorRate: 1}},
	}
	got := map[Op]Fault{}
	for _, op := range []Op{OpChangesCreate, OpChangesGet, OpRRSetsList} {
		got[op] = f.For(op)
	}
	want := map[Op]Fault{
		OpChangesCreate: {Latency: time.Second, ErrorRate: 0.5, AmbiguousRate: 0.25},
		OpChangesGet:    {Latency: time.Second, ErrorRate: 0.5},
		OpRRSetsList:    {ErrorRate: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("For: -want, +got:\n%s", diff)
	}
}

// TestInjectedErrors makes every changes.create fail with each status and
// checks that the client sees Google's error, that nothing was carried
// out, and that other methods still work.
func TestInjectedErrors(t *testing.T) {
	cases := map[string]struct {
		code int
		want *gerr
	}{
		"Default":  {0, &gerr{500, "backendError", "Internal error encountered. (injected fault)"}},
		"429":      {429, &gerr{429, "rateLimitExceeded", "Rate Limit Exceeded (injected fault)"}},
		"502":      {502, &gerr{502, "backendError", "Bad Gateway (injected fault)"}},
		"503":      {503, &gerr{503, "backendError", "The service is currently unavailable. (injected fault)"}},
		"Explicit": {500, &gerr{500, "backendError", "Internal error encountered. (injected fault)"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, WithFaults(Faults{Ops: map[Op]Fault{OpChangesCreate: {ErrorRate: 1, ErrorCode: tc.code}}}))
			e.createZone(t, "example-com", "example.com.")
			_, err := e.change("example-com", []*dns.ResourceRecordSet{rr("www.example.com.", "A", 300, "192.0.2.1")}, nil)
			if diff := cmp.Diff(tc.want, apiErr(err)); diff != "" {
				t.Errorf("Changes.Create: -want, +got:\n%s", diff)
			}
			list, err := e.svc.ResourceRecordSets.List(testProject, "example-com").Do()
			if err != nil {
				t.Fatalf("List is not faulted: %v", err)
			}
			st := e.srv.Stats()
			got := []any{names(list.Rrsets), st.Changes, st.InjectedErrors, st.Requests[OpChangesCreate]}
			want := []any{[]string{"example.com. NS", "example.com. SOA"}, int64(0), int64(1), int64(1)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[record sets, changes, injected errors, changes.create requests]: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestAmbiguousChange carries out a change and closes the connection
// without an answer. The client sees a transport error; the record set
// exists; the client's retry of the same change is refused 409: the
// hazard the intent journal guards against.
func TestAmbiguousChange(t *testing.T) {
	e := newEnv(t)
	e.createZone(t, "example-com", "example.com.")
	if err := e.srv.SetFaults(Faults{Ops: map[Op]Fault{OpChangesCreate: {AmbiguousRate: 1}}}); err != nil {
		t.Fatal(err)
	}
	add := []*dns.ResourceRecordSet{rr("www.example.com.", "A", 300, "192.0.2.1")}
	_, err := e.change("example-com", add, nil)
	if g := apiErr(err); g == nil || g.Code != -1 {
		t.Fatalf("Changes.Create: %v, want a transport error with no answer", err)
	}
	if err := e.srv.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	_, err = e.change("example-com", add, nil)
	st := e.srv.Stats()
	got := []any{apiErr(err), names(wireToClient(st.Zones[testProject+"/example-com"].RRSets)), st.Changes, st.Ambiguous, st.Conflicts}
	want := []any{
		&gerr{409, "alreadyExists", "The resource 'entity.change.additions[www.example.com.][A]' named 'www.example.com. (A)' already exists"},
		[]string{"example.com. NS", "example.com. SOA", "www.example.com. A"}, int64(1), int64(1), int64(1),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[retry's error, record sets, changes, ambiguous, conflicts]: -want, +got:\n%s", diff)
	}
}

// TestLatency delays the answers of one method.
func TestLatency(t *testing.T) {
	const lat = 150 * time.Millisecond
	e := newEnv(t, WithFaults(Faults{Ops: map[Op]Fault{OpRRSetsList: {Latency: lat}}}))
	e.createZone(t, "example-com", "example.com.")
	start := time.Now()
	if _, err := e.svc.ResourceRecordSets.List(testProject, "example-com").Do(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < lat {
		t.Errorf("List answered after %v, want at least %v", d, lat)
	}
}

// TestFakeEndpoints sets faults over HTTP and reads them and the stats
// back; faults never apply to these routes.
func TestFakeEndpoints(t *testing.T) {
	e := newEnv(t)
	e.createZone(t, "example-com", "example.com.")
	body := `{"default":{"errorRate":1}}`
	req, err := http.NewRequest(http.MethodPut, e.run.URL+"/fake/faults", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("PUT /fake/faults: %d", res.StatusCode)
	}
	if diff := cmp.Diff(Faults{Default: Fault{ErrorRate: 1}}, e.srv.Faults()); diff != "" {
		t.Errorf("faults after PUT: -want, +got:\n%s", diff)
	}

	var got Stats
	res, err = http.Get(e.run.URL + "/fake/stats")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if diff := cmp.Diff(e.srv.Stats(), got); diff != "" {
		t.Errorf("GET /fake/stats: -Stats(), +got:\n%s", diff)
	}
	if got.Zones[testProject+"/example-com"].RRSetCount != 2 {
		t.Errorf("stats: zone %+v, want 2 record sets", got.Zones[testProject+"/example-com"])
	}

	req, _ = http.NewRequest(http.MethodPut, e.run.URL+"/fake/faults", bytes.NewBufferString(`{"default":{"errorRate":2}}`))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("PUT of invalid faults: %d, want 400", res.StatusCode)
	}
	if err := e.srv.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
}

// wireToClient converts record sets to the client's type for names().
func wireToClient(in []RRSet) []*dns.ResourceRecordSet {
	out := make([]*dns.ResourceRecordSet, len(in))
	for i, r := range in {
		out[i] = &dns.ResourceRecordSet{Name: r.Name, Type: r.Type}
	}
	return out
}
