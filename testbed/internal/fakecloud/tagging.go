package fakecloud

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The fake cloud's Resource Groups Tagging API (issue #33): the AWS
// lister of inventory/aws, with the real SDK client, lists the fake
// cloud's objects by tags through it, as it lists an AWS account's.
const (
	// TaggingTarget is GetResources' X-Amz-Target in the Tagging API's
	// JSON 1.1 protocol, which its SDK client posts to the endpoint's
	// root.
	TaggingTarget = "ResourceGroupsTaggingAPI_20170126.GetResources"
	// ARNPrefix starts the ARN of every fake cloud object:
	// arn:aws:fakecloud:local:000000000000:<type>/<id>, the type one of
	// the ARNType values.
	ARNPrefix = "arn:aws:fakecloud:local:000000000000:"
	// TaggingRegion is the region of the fake cloud's Tagging API: the
	// one its ARNs name.
	TaggingRegion = "local"
	// taggingPageSize is GetResources' default ResourcesPerPage.
	taggingPageSize = 50
)

// The resource types of the fake cloud's ARNs, as GetResources'
// ResourceTypeFilters name them (fakecloud:network).
const (
	ARNTypeNetwork   = "network"
	ARNTypeRecordSet = "recordset"
	ARNTypeAddress   = "address"
	ARNTypeBucket    = "bucket"
)

// ARN returns the ARN of the fake cloud object of type typ (an ARNType)
// and ID (a bucket's is its name).
func ARN(typ, id string) string { return ARNPrefix + typ + "/" + id }

// taggingRequest is GetResources' request body.
type taggingRequest struct {
	TagFilters []struct {
		Key    string
		Values []string
	}
	ResourceTypeFilters []string
	ResourcesPerPage    int
	PaginationToken     string
}

// taggingMapping is one ResourceTagMapping of GetResources' answer.
type taggingMapping struct {
	ResourceARN string
	Tags        []taggingTag
}

type taggingTag struct{ Key, Value string }

// tagging serves GetResources: the objects of the ResourceTypeFilters'
// types (every type when none) carrying, for every TagFilter, its key
// with one of its values (any value when none), in ARN order, paged by
// ResourcesPerPage with an offset as the PaginationToken. An error is
// answered as the JSON 1.1 protocol answers it: status 400 and a __type.
func (s *Server) tagging(w http.ResponseWriter, r *http.Request) {
	fail := func(typ, msg string) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "Message": msg})
	}
	if t := r.Header.Get("X-Amz-Target"); t != TaggingTarget {
		fail("UnknownOperationException", fmt.Sprintf("the fake cloud's Tagging API serves GetResources only, not %q", t))
		return
	}
	s.taggingCalls.Add(1)
	var req taggingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		fail("InvalidParameterException", "cannot decode the request: "+err.Error())
		return
	}
	start := 0
	if req.PaginationToken != "" {
		n, err := strconv.Atoi(req.PaginationToken)
		if err != nil || n < 0 {
			fail("PaginationTokenExpiredException", fmt.Sprintf("pagination token %q", req.PaginationToken))
			return
		}
		start = n
	}
	size := req.ResourcesPerPage
	if size <= 0 || size > 100 {
		size = taggingPageSize
	}
	all := s.taggedObjects(req)
	out := map[string]any{"ResourceTagMappingList": []taggingMapping{}, "PaginationToken": ""}
	if start < len(all) {
		end := min(start+size, len(all))
		out["ResourceTagMappingList"] = all[start:end]
		if end < len(all) {
			out["PaginationToken"] = strconv.Itoa(end)
		}
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(out)
}

// taggedObjects returns the mappings of every object req selects, in ARN
// order.
func (s *Server) taggedObjects(req taggingRequest) []taggingMapping {
	want := func(typ string) bool {
		return len(req.ResourceTypeFilters) == 0 || slices.Contains(req.ResourceTypeFilters, "fakecloud:"+typ)
	}
	var out []taggingMapping
	// An index that lags the cloud (Faults.IndexLag) does not show what
	// was created since.
	faults := s.inj.get()
	shown := s.store.now().Add(-faults.IndexLag)
	add := func(typ, id string, tags map[string]string, created time.Time) {
		if !want(typ) || !tagsPass(tags, req) || created.After(shown) {
			return
		}
		m := taggingMapping{ResourceARN: ARN(typ, id)}
		if faults.IndexForeignARNs {
			m.ResourceARN = strings.Replace(m.ResourceARN, ":000000000000:", ":999999999999:", 1)
		}
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			m.Tags = append(m.Tags, taggingTag{k, tags[k]})
		}
		out = append(out, m)
	}
	for _, n := range s.store.ListNetworks(NetworkFilter{}) {
		add(ARNTypeNetwork, n.ID, n.Tags, n.CreatedAt)
	}
	for _, rs := range s.store.ListRecordSets(RecordSetFilter{}) {
		add(ARNTypeRecordSet, rs.ID, rs.Tags, rs.CreatedAt)
	}
	for _, a := range s.store.ListAddresses(AddressFilter{}) {
		add(ARNTypeAddress, a.ID, a.Tags, a.CreatedAt)
	}
	for _, b := range s.store.ListBuckets(BucketFilter{}) {
		add(ARNTypeBucket, b.Name, b.Tags, b.CreatedAt)
	}
	slices.SortFunc(out, func(a, b taggingMapping) int { return strings.Compare(a.ResourceARN, b.ResourceARN) })
	return out
}

// tagsPass reports whether tags satisfy every TagFilter of req: the key
// present, with one of the filter's values when it names any. An object
// with no tags is never listed, as the Tagging API lists only tagged
// resources.
func tagsPass(tags map[string]string, req taggingRequest) bool {
	if len(tags) == 0 {
		return false
	}
	for _, f := range req.TagFilters {
		v, ok := tags[f.Key]
		if !ok || (len(f.Values) > 0 && !slices.Contains(f.Values, v)) {
			return false
		}
	}
	return true
}
