package fakeclouddns

import (
	"errors"
	"net/http"
	"sort"
	"strconv"

	"go.uber.org/zap"
)

// The API methods, one handler each; Server.faulty wraps them with faults.

// lookupZone finds a zone by name or, as Cloud DNS allows, by its numeric
// ID. The caller holds s.mu.
func (s *Server) lookupZone(project, ref string) (*zone, error) {
	if z, ok := s.zones[project+"/"+ref]; ok {
		return z, nil
	}
	if id, err := strconv.ParseUint(ref, 10, 64); err == nil {
		for _, z := range s.zones {
			if z.project == project && z.id == id {
				return z, nil
			}
		}
	}
	return nil, notFound("The 'parameters.managedZone' resource named '%s' does not exist.", ref)
}

func (s *Server) createZone(r *http.Request) (int, any, error) {
	if _, err := parseQuery(r.URL.Query()); err != nil {
		return 0, nil, err
	}
	req, err := decodeZone(r.Body)
	if err != nil {
		return 0, nil, err
	}
	project := r.PathValue("project")
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.ids.Uint64()>>1 | 1<<62 // 19 digits, fits an int64 like Cloud DNS's IDs
	z, err := newZone(project, req, id, s.now())
	if err != nil {
		return 0, nil, err
	}
	key := project + "/" + z.wire.Name
	if _, ok := s.zones[key]; ok {
		s.stats.Conflicts++
		return 0, nil, alreadyExists("The resource 'entity.managedZone' named '%s' already exists", z.wire.Name)
	}
	s.zones[key] = z
	s.log.Debug("Created zone", zap.String("zone", key), zap.String("dns-name", z.wire.DNSName))
	return http.StatusOK, z.wire, nil
}

func (s *Server) getZone(r *http.Request) (int, any, error) {
	if _, err := parseQuery(r.URL.Query()); err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := s.lookupZone(r.PathValue("project"), r.PathValue("zone"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, z.wire, nil
}

func (s *Server) listZones(r *http.Request) (int, any, error) {
	q, err := parseQuery(r.URL.Query(), "dnsName", "maxResults", "pageToken")
	if err != nil {
		return 0, nil, err
	}
	size, err := parseMaxResults(q, s.pageSize)
	if err != nil {
		return 0, nil, err
	}
	project := r.PathValue("project")
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []zoneWire
	for _, z := range s.zones {
		if z.project == project && (q["dnsName"] == "" || z.wire.DNSName == q["dnsName"]) {
			all = append(all, z.wire)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	items, next, err := page(all, func(z zoneWire) []string { return []string{z.Name} }, 1, q["pageToken"], size)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, zoneListWire{Kind: kindZoneList, ManagedZones: nonNil(items), NextPageToken: next}, nil
}

// updateZone replaces a zone's description, labels and configuration
// blocks, as the provider's update does with the whole object
// (resource_dns_managed_zone.go resourceDNSManagedZoneUpdate). The name
// and dnsName cannot change; output-only fields are ignored. It answers a
// done operation.
func (s *Server) updateZone(r *http.Request) (int, any, error) {
	if _, err := parseQuery(r.URL.Query()); err != nil {
		return 0, nil, err
	}
	req, err := decodeZone(r.Body)
	if err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := s.lookupZone(r.PathValue("project"), r.PathValue("zone"))
	if err != nil {
		return 0, nil, err
	}
	if req.Name != "" && req.Name != z.wire.Name {
		return 0, nil, invalid("Invalid value for 'entity.managedZone.name': '%s'", req.Name)
	}
	if req.DNSName != "" && req.DNSName != z.wire.DNSName {
		return 0, nil, invalid("Invalid value for 'entity.managedZone.dnsName': '%s'", req.DNSName)
	}
	if req.Visibility != "" && req.Visibility != z.wire.Visibility {
		return 0, nil, invalid("Invalid value for 'entity.managedZone.visibility': '%s'", req.Visibility)
	}
	old := z.wire
	next := z.wire
	next.Description, next.Labels = req.Description, req.Labels
	next.DNSSECConfig, next.PrivateVisibilityConfig, next.ForwardingConfig = req.DNSSECConfig, req.PrivateVisibilityConfig, req.ForwardingConfig
	next.PeeringConfig, next.ReverseLookupConfig = req.PeeringConfig, req.ReverseLookupConfig
	next.ServiceDirectoryConfig, next.CloudLoggingConfig = req.ServiceDirectoryConfig, req.CloudLoggingConfig
	dropNullConfigs(&next)
	z.wire = next
	z.nOperations++
	return http.StatusOK, operationWire{
		Kind: kindOperation, ID: strconv.FormatInt(z.nOperations, 10), StartTime: formatTime(s.now()),
		Status: "done", Type: "UPDATE", ZoneContext: &zoneContextWire{OldValue: old, NewValue: next},
	}, nil
}

func (s *Server) deleteZone(r *http.Request) (int, any, error) {
	if _, err := parseQuery(r.URL.Query()); err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := s.lookupZone(r.PathValue("project"), r.PathValue("zone"))
	if err != nil {
		return 0, nil, err
	}
	for k := range z.rrsets {
		if k.name != z.wire.DNSName || (k.typ != "SOA" && k.typ != "NS") {
			return 0, nil, newAPIError(http.StatusBadRequest, reasonContainerNotEmpty,
				"The resource named '%s' cannot be deleted because it contains one or more 'resource records'.", z.wire.Name)
		}
	}
	delete(s.zones, z.project+"/"+z.wire.Name)
	return http.StatusNoContent, nil, nil
}

func (s *Server) listRRSets(r *http.Request) (int, any, error) {
	q, err := parseQuery(r.URL.Query(), "name", "type", "maxResults", "pageToken")
	if err != nil {
		return 0, nil, err
	}
	if q["type"] != "" && q["name"] == "" {
		return 0, nil, invalid("Invalid value for 'parameters.type': the 'name' parameter must be present when 'type' is")
	}
	size, err := parseMaxResults(q, s.pageSize)
	if err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := s.lookupZone(r.PathValue("project"), r.PathValue("zone"))
	if err != nil {
		return 0, nil, err
	}
	var match []RRSet
	for _, rr := range z.sorted() {
		if (q["name"] == "" || rr.Name == q["name"]) && (q["type"] == "" || rr.Type == q["type"]) {
			match = append(match, rr)
		}
	}
	items, next, err := page(match, func(rr RRSet) []string { return []string{rr.Name, rr.Type} }, 2, q["pageToken"], size)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, rrsetListWire{Kind: kindRRSetList, Rrsets: nonNil(wireRRSets(cloneRRSets(items))), NextPageToken: next}, nil
}

func (s *Server) getRRSet(r *http.Request) (int, any, error) {
	if _, err := parseQuery(r.URL.Query()); err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := s.lookupZone(r.PathValue("project"), r.PathValue("zone"))
	if err != nil {
		return 0, nil, err
	}
	name, typ := r.PathValue("name"), r.PathValue("type")
	rr, ok := z.rrsets[rrKey{name, typ}]
	if !ok {
		return 0, nil, notFound("The 'parameters.name' resource named '%s (%s)' does not exist.", name, typ)
	}
	return http.StatusOK, rrsetWire{Kind: kindRRSet, RRSet: cloneRRSet(rr)}, nil
}

func (s *Server) createChange(r *http.Request) (int, any, error) {
	if _, err := parseQuery(r.URL.Query()); err != nil {
		return 0, nil, err
	}
	adds, dels, err := decodeChange(r.Body)
	if err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := s.lookupZone(r.PathValue("project"), r.PathValue("zone"))
	if err != nil {
		return 0, nil, err
	}
	now := s.now()
	res, err := z.apply(adds, dels, strconv.Itoa(len(z.changes)), now, s.changeDelay)
	switch {
	case errors.Is(err, ErrAlreadyExists):
		z.nConflicts++
		s.stats.Conflicts++
	case errors.Is(err, ErrConditionNotMet):
		s.stats.PreconditionsFailed++
	case errors.Is(err, ErrNotFound):
		s.stats.DeletionsNotFound++
	}
	if err != nil {
		return 0, nil, err
	}
	s.stats.Changes++
	s.stats.Overwrites += int64(res.overwrites)
	s.log.Debug("Accepted change", zap.String("zone", z.project+"/"+z.wire.Name), zap.String("change-id", res.change.id),
		zap.Int("additions", len(adds)), zap.Int("deletions", len(dels)), zap.Int("overwrites", res.overwrites))
	return http.StatusOK, res.change.wire(now), nil
}

func (s *Server) getChange(r *http.Request) (int, any, error) {
	if _, err := parseQuery(r.URL.Query()); err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	z, err := s.lookupZone(r.PathValue("project"), r.PathValue("zone"))
	if err != nil {
		return 0, nil, err
	}
	id := r.PathValue("change")
	n, err := strconv.Atoi(id)
	if err != nil || n < 0 || n >= len(z.changes) || strconv.Itoa(n) != id {
		return 0, nil, notFound("The 'parameters.changeId' resource named '%s' does not exist.", id)
	}
	return http.StatusOK, z.changes[n].wire(s.now()), nil
}

// nonNil makes an empty list answer [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
