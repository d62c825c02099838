package fakeclouddns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Defaults of a zone's apex record sets, as Cloud DNS creates them with a
// public zone.
const (
	apexTTL       = 21600
	soaHostmaster = "cloud-dns-hostmaster.google.com."
	soaTail       = "1 21600 3600 259200 300"
)

// defaultNameServers are the name servers every public zone of the fake
// gets; a private zone gets privateNameServer.
var (
	defaultNameServers = []string{
		"ns-cloud-a1.googledomains.com.",
		"ns-cloud-a2.googledomains.com.",
		"ns-cloud-a3.googledomains.com.",
		"ns-cloud-a4.googledomains.com.",
	}
	privateNameServer = "ns-gcp-private.googledomains.com."
)

// recordTypes are the record types Cloud DNS supports; anything else is
// refused with 400.
var recordTypes = map[string]bool{
	"A": true, "AAAA": true, "ALIAS": true, "CAA": true, "CNAME": true, "DNSKEY": true, "DS": true,
	"HTTPS": true, "IPSECKEY": true, "MX": true, "NAPTR": true, "NS": true, "PTR": true, "SOA": true,
	"SPF": true, "SRV": true, "SSHFP": true, "SVCB": true, "TLSA": true, "TXT": true,
}

// zoneNameRE is Cloud DNS's rule for a managed zone's name.
var zoneNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// zone is one managed zone and everything in it. The server's mutex guards
// it.
type zone struct {
	project string
	wire    zoneWire // as answered; ID, NameServers and CreationTime set
	id      uint64
	rrsets  map[rrKey]RRSet
	changes []*change // changes[i].id == strconv.Itoa(i); "0" creates the apex

	nChanges, nOverwrites, nConflicts int64
	nOperations                       int64 // managedZones.update operations
}

// change is one accepted change. Its status is "pending" until done.
type change struct {
	id        string
	additions []RRSet
	deletions []RRSet
	start     time.Time
	done      time.Time
}

func (c *change) wire(now time.Time) changeWire {
	status := "done"
	if now.Before(c.done) {
		status = "pending"
	}
	return changeWire{
		Kind:      kindChange,
		Additions: wireRRSets(c.additions),
		Deletions: wireRRSets(c.deletions),
		StartTime: formatTime(c.start),
		ID:        c.id,
		Status:    status,
	}
}

// newZone checks a create request and builds the zone with its apex SOA
// and NS record sets and its change "0", as Cloud DNS does.
func newZone(project string, req zoneWire, id uint64, now time.Time) (*zone, error) {
	switch {
	case req.Name == "":
		return nil, newAPIError(http.StatusBadRequest, reasonRequired, "Required field 'entity.managedZone.name' not specified")
	case !zoneNameRE.MatchString(req.Name):
		return nil, invalid("Invalid value for 'entity.managedZone.name': '%s'", req.Name)
	case req.DNSName == "":
		return nil, newAPIError(http.StatusBadRequest, reasonRequired, "Required field 'entity.managedZone.dnsName' not specified")
	case !strings.HasSuffix(req.DNSName, ".") || strings.HasPrefix(req.DNSName, ".") || strings.Contains(req.DNSName, ".."):
		return nil, invalid("Invalid value for 'entity.managedZone.dnsName': '%s'", req.DNSName)
	}
	vis := req.Visibility
	switch vis {
	case "":
		vis = "public"
	case "public", "private":
	default:
		return nil, invalid("Invalid value for 'entity.managedZone.visibility': '%s'", req.Visibility)
	}
	ns := slices.Clone(defaultNameServers)
	if vis == "private" {
		ns = []string{privateNameServer}
	}
	w := req
	w.Kind = kindManagedZone
	w.ID = json.RawMessage(strconv.Quote(strconv.FormatUint(id, 10)))
	w.NameServers = ns
	w.CreationTime = formatTime(now)
	w.Visibility = vis
	dropNullConfigs(&w)
	z := &zone{project: project, wire: w, id: id, rrsets: map[rrKey]RRSet{}}
	apex := []RRSet{
		{Name: req.DNSName, Type: "NS", TTL: apexTTL, Rrdatas: slices.Clone(ns)},
		{Name: req.DNSName, Type: "SOA", TTL: apexTTL, Rrdatas: []string{ns[0] + " " + soaHostmaster + " " + soaTail}},
	}
	for _, r := range apex {
		z.rrsets[r.key()] = r
	}
	z.changes = append(z.changes, &change{id: "0", additions: apex, start: now, done: now})
	return z, nil
}

// dropNullConfigs makes a configuration block sent as null absent, so that
// it is not echoed: the provider sends privateVisibilityConfig as null when
// it is unset (resource_dns_managed_zone.go:534-538).
func dropNullConfigs(w *zoneWire) {
	for _, raw := range []*json.RawMessage{&w.DNSSECConfig, &w.PrivateVisibilityConfig, &w.ForwardingConfig, &w.PeeringConfig, &w.ReverseLookupConfig, &w.ServiceDirectoryConfig, &w.CloudLoggingConfig} {
		if bytes.Equal(bytes.TrimSpace(*raw), []byte("null")) {
			*raw = nil
		}
	}
}

// sorted returns the zone's record sets in list order: by name, then type,
// bytewise.
func (z *zone) sorted() []RRSet {
	out := make([]RRSet, 0, len(z.rrsets))
	for _, r := range z.rrsets {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// applyResult is what an accepted change did.
type applyResult struct {
	change     *change
	overwrites int
}

// apply carries out a change atomically: every deletion and addition is
// checked against the zone first, and either all apply or none does.
//
// The checks, in order (the first failure answers):
//  1. shape: at least one addition or deletion; every record set has a
//     name inside the zone, a supported type, a non-negative TTL, and
//     rrdatas or a routing policy; no (name, type) twice among the
//     additions or among the deletions: 400.
//  2. each deletion, in order: no record set with its (name, type) is 404
//     notFound; one that differs in TTL, rrdatas (as a multiset),
//     signatureRrdatas or routing policy is 412 conditionNotMet.
//  3. each addition, in order: a (name, type) that exists and is not
//     deleted by the same change is 409 alreadyExists.
//  4. the zone keeps an apex SOA and NS record set: else 400.
func (z *zone) apply(adds, dels []RRSet, id string, now time.Time, delay time.Duration) (applyResult, error) {
	if err := z.validate(adds, dels); err != nil {
		return applyResult{}, err
	}
	deleted := map[rrKey]bool{}
	for i, d := range dels {
		cur, ok := z.rrsets[d.key()]
		if !ok {
			return applyResult{}, notFound("The 'entity.change.deletions[%d]' resource named '%s (%s)' does not exist.", i, d.Name, d.Type)
		}
		if !sameRRSet(cur, d) {
			return applyResult{}, newAPIError(http.StatusPreconditionFailed, reasonConditionNotMet, "Precondition not met for 'entity.change.deletions[%d]'", i)
		}
		deleted[d.key()] = true
	}
	overwrites := 0
	for _, a := range adds {
		if _, ok := z.rrsets[a.key()]; ok {
			if !deleted[a.key()] {
				return applyResult{}, alreadyExists("The resource 'entity.change.additions[%s][%s]' named '%s (%s)' already exists", a.Name, a.Type, a.Name, a.Type)
			}
			overwrites++
		}
	}
	apex := z.wire.DNSName
	for _, typ := range []string{"SOA", "NS"} {
		k := rrKey{apex, typ}
		if deleted[k] && !slices.ContainsFunc(adds, func(a RRSet) bool { return a.key() == k }) {
			return applyResult{}, invalid("The resource record set 'entity.change.deletions' may not remove the zone apex's %s record set without adding one", typ)
		}
	}
	for k := range deleted {
		delete(z.rrsets, k)
	}
	for _, a := range adds {
		z.rrsets[a.key()] = cloneRRSet(a)
	}
	c := &change{id: id, additions: cloneRRSets(adds), deletions: cloneRRSets(dels), start: now, done: now.Add(delay)}
	z.changes = append(z.changes, c)
	z.nChanges++
	z.nOverwrites += int64(overwrites)
	return applyResult{change: c, overwrites: overwrites}, nil
}

// validate checks a change's shape (step 1 of apply).
func (z *zone) validate(adds, dels []RRSet) error {
	if len(adds) == 0 && len(dels) == 0 {
		return newAPIError(http.StatusBadRequest, reasonRequired, "The 'entity.change' resource must contain at least one addition or deletion")
	}
	for _, part := range []struct {
		field string
		sets  []RRSet
	}{{"additions", adds}, {"deletions", dels}} {
		seen := map[rrKey]bool{}
		for i, r := range part.sets {
			at := fmt.Sprintf("entity.change.%s[%d]", part.field, i)
			switch {
			case r.Name == "":
				return newAPIError(http.StatusBadRequest, reasonRequired, "Required field '%s.name' not specified", at)
			case r.Type == "":
				return newAPIError(http.StatusBadRequest, reasonRequired, "Required field '%s.type' not specified", at)
			case !recordTypes[r.Type]:
				return invalid("Invalid value for '%s.type': '%s'", at, r.Type)
			case !z.contains(r.Name):
				return invalid("Invalid value for '%s.name': '%s'", at, r.Name)
			case r.TTL < 0:
				return invalid("Invalid value for '%s.ttl': '%d'", at, r.TTL)
			case len(r.Rrdatas) == 0 && len(r.RoutingPolicy) == 0:
				return newAPIError(http.StatusBadRequest, reasonRequired, "Required field '%s.rrdata' not specified", at)
			case seen[r.key()]:
				return invalid("The resource record set '%s' named '%s (%s)' appears twice in the change", at, r.Name, r.Type)
			}
			seen[r.key()] = true
		}
	}
	return nil
}

// contains reports whether name is the zone's apex or below it.
func (z *zone) contains(name string) bool {
	apex := z.wire.DNSName
	return name == apex || strings.HasSuffix(name, "."+apex)
}

// sameRRSet reports whether a deletion d matches the existing record set
// cur exactly: same TTL, the same rrdatas and signatureRrdatas in any
// order, and the same routing policy.
func sameRRSet(cur, d RRSet) bool {
	return cur.TTL == d.TTL &&
		sameMultiset(cur.Rrdatas, d.Rrdatas) &&
		sameMultiset(cur.SignatureRrdatas, d.SignatureRrdatas) &&
		sameJSON(cur.RoutingPolicy, d.RoutingPolicy)
}

func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// sameJSON compares two JSON values structurally; empty and null are the
// same as absent.
func sameJSON(a, b json.RawMessage) bool {
	canon := func(m json.RawMessage) string {
		m = bytes.TrimSpace(m)
		if len(m) == 0 || bytes.Equal(m, []byte("null")) {
			return ""
		}
		var v any
		if err := json.Unmarshal(m, &v); err != nil {
			return "invalid:" + string(m)
		}
		out, _ := json.Marshal(v) // map keys come out sorted
		return string(out)
	}
	return canon(a) == canon(b)
}

func cloneRRSet(r RRSet) RRSet {
	r.Rrdatas = slices.Clone(r.Rrdatas)
	r.SignatureRrdatas = slices.Clone(r.SignatureRrdatas)
	r.RoutingPolicy = slices.Clone(r.RoutingPolicy)
	return r
}

func cloneRRSets(in []RRSet) []RRSet {
	out := make([]RRSet, len(in))
	for i, r := range in {
		out[i] = cloneRRSet(r)
	}
	return out
}
