package tfgoogle

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	dnsapi "google.golang.org/api/dns/v1"
)

// stubDNS answers the Cloud DNS v1 calls the two resources make, enough
// for these tests: managed zones (create, get, delete), rrsets list (name
// and type filters, pageToken, a default page size) and changes (create,
// applied at once and done; get). A change that adds a record set that
// exists and is not deleted in the same change fails 409 alreadyExists.
// testbed/internal/fakeclouddns is the full fake.
type stubDNS struct {
	srv      *httptest.Server
	pageSize int

	mu      sync.Mutex
	zones   map[string]*dnsapi.ManagedZone
	rrsets  map[string][]*dnsapi.ResourceRecordSet // by zone, in creation order
	changes map[string]*dnsapi.Change
	calls   []string // "METHOD path" of every request
}

func newStubDNS(t *testing.T, pageSize int) *stubDNS {
	t.Helper()
	s := &stubDNS{pageSize: pageSize, zones: map[string]*dnsapi.ManagedZone{}, rrsets: map[string][]*dnsapi.ResourceRecordSet{}, changes: map[string]*dnsapi.Change{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// endpoint is the provider's dns_custom_endpoint for s.
func (s *stubDNS) endpoint() string { return s.srv.URL + "/dns/v1/" }

func (s *stubDNS) seed(zone string, rr *dnsapi.ResourceRecordSet) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rrsets[zone] = append(s.rrsets[zone], rr)
}

func (s *stubDNS) recordSets(zone string) []*dnsapi.ResourceRecordSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*dnsapi.ResourceRecordSet(nil), s.rrsets[zone]...)
}

func (s *stubDNS) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	// /dns/v1/projects/{p}/managedZones[/{z}[/rrsets|/changes[/{id}]]]
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/dns/v1/"), "/")
	if len(parts) < 3 || parts[0] != "projects" || parts[2] != "managedZones" {
		apiError(w, http.StatusNotFound, "notFound", "no such path "+r.URL.Path)
		return
	}
	switch {
	case len(parts) == 3 && r.Method == http.MethodPost:
		var z dnsapi.ManagedZone
		if err := json.NewDecoder(r.Body).Decode(&z); err != nil {
			apiError(w, http.StatusBadRequest, "invalid", err.Error())
			return
		}
		if s.zones[z.Name] != nil {
			apiError(w, http.StatusConflict, "alreadyExists", "zone "+z.Name)
			return
		}
		z.Id = uint64(len(s.zones) + 1)
		z.Kind = "dns#managedZone"
		z.NameServers = []string{"ns-cloud-a1.googledomains.com."}
		z.CreationTime = "2026-11-28T00:00:00.000Z"
		if z.Visibility == "" {
			z.Visibility = "public"
		}
		s.zones[z.Name] = &z
		writeJSON(w, &z)
	case len(parts) == 4:
		z := s.zones[parts[3]]
		if z == nil {
			apiError(w, http.StatusNotFound, "notFound", "zone "+parts[3])
			return
		}
		switch r.Method {
		case http.MethodGet:
			writeJSON(w, z)
		case http.MethodDelete:
			delete(s.zones, parts[3])
			w.WriteHeader(http.StatusNoContent)
		default:
			apiError(w, http.StatusMethodNotAllowed, "invalid", r.Method)
		}
	case len(parts) == 5 && parts[4] == "rrsets" && r.Method == http.MethodGet:
		s.list(w, r, parts[3])
	case len(parts) == 5 && parts[4] == "changes" && r.Method == http.MethodPost:
		s.change(w, r, parts[3])
	case len(parts) == 6 && parts[4] == "changes" && r.Method == http.MethodGet:
		c := s.changes[parts[3]+"/"+parts[5]]
		if c == nil {
			apiError(w, http.StatusNotFound, "notFound", "change "+parts[5])
			return
		}
		writeJSON(w, c)
	default:
		apiError(w, http.StatusNotFound, "notFound", r.Method+" "+r.URL.Path)
	}
}

func (s *stubDNS) list(w http.ResponseWriter, r *http.Request, zone string) {
	q := r.URL.Query()
	var match []*dnsapi.ResourceRecordSet
	for _, rr := range s.rrsets[zone] {
		if (q.Get("name") == "" || q.Get("name") == rr.Name) && (q.Get("type") == "" || q.Get("type") == rr.Type) {
			match = append(match, rr)
		}
	}
	size := s.pageSize
	if m, err := strconv.Atoi(q.Get("maxResults")); err == nil && m > 0 {
		size = m
	}
	start, _ := strconv.Atoi(q.Get("pageToken"))
	end := min(start+size, len(match))
	resp := &dnsapi.ResourceRecordSetsListResponse{Kind: "dns#resourceRecordSetsListResponse", Rrsets: match[min(start, end):end]}
	if end < len(match) {
		resp.NextPageToken = strconv.Itoa(end)
	}
	writeJSON(w, resp)
}

func (s *stubDNS) change(w http.ResponseWriter, r *http.Request, zone string) {
	var c dnsapi.Change
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		apiError(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	key := func(rr *dnsapi.ResourceRecordSet) string { return rr.Name + "/" + rr.Type }
	kept := map[string]*dnsapi.ResourceRecordSet{}
	var order []string
	for _, rr := range s.rrsets[zone] {
		kept[key(rr)] = rr
		order = append(order, key(rr))
	}
	for _, d := range c.Deletions {
		if kept[key(d)] == nil {
			apiError(w, http.StatusNotFound, "notFound", "deletion of "+key(d))
			return
		}
		delete(kept, key(d))
	}
	for _, a := range c.Additions {
		if kept[key(a)] != nil {
			apiError(w, http.StatusConflict, "alreadyExists", fmt.Sprintf("The resource 'entity.change.additions[%s]' named '%s (%s)' already exists", a.Name, a.Name, a.Type))
			return
		}
		kept[key(a)] = a
		order = append(order, key(a))
	}
	var next []*dnsapi.ResourceRecordSet
	for _, k := range order {
		if rr := kept[k]; rr != nil {
			next = append(next, rr)
			delete(kept, k)
		}
	}
	s.rrsets[zone] = next
	c.Id = strconv.Itoa(len(s.changes) + 1)
	c.Kind = "dns#change"
	c.Status = "done"
	s.changes[zone+"/"+c.Id] = &c
	writeJSON(w, &c)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes a googleapi error body, as the Cloud DNS API does.
func apiError(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": msg,
		"errors": []map[string]any{{"domain": "global", "reason": reason, "message": msg}},
	}})
}
