package fakeclouddns

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// systemParams are the query parameters every Cloud DNS method takes. The
// dns/v1 client sends alt=json and prettyPrint=false on every call and
// clientOperationId when the caller sets it; the others are Google's
// standard parameters. They are accepted and, apart from alt, ignored.
var systemParams = map[string]bool{
	"alt": true, "prettyPrint": true, "quotaUser": true, "userIp": true, "key": true,
	"$.xgafv": true, "access_token": true, "oauth_token": true, "clientOperationId": true,
}

// unsupportedParams are parameters the real API takes and the fake does
// not implement; they answer 400 rather than being ignored, so that a
// caller that depends on them notices.
var unsupportedParams = map[string]string{
	"fields": "partial responses ('fields') are not implemented by the fake",
	"filter": "'filter' is not implemented by the fake; use 'name' and 'type'",
}

// parseQuery checks a request's query parameters and returns the
// method-specific ones. Unknown, unsupported or repeated parameters, and
// alt other than json, answer 400.
func parseQuery(v url.Values, method ...string) (map[string]string, error) {
	out := map[string]string{}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error is the same on every run
	for _, k := range keys {
		vals := v[k]
		if len(vals) != 1 {
			return nil, invalid("Invalid value for 'parameters.%s': the parameter is repeated", k)
		}
		switch {
		case k == "alt":
			if vals[0] != "json" {
				return nil, invalid("Invalid value for 'parameters.alt': '%s'", vals[0])
			}
		case systemParams[k]:
		case unsupportedParams[k] != "":
			return nil, invalid("%s", unsupportedParams[k])
		case contains(method, k):
			out[k] = vals[0]
		default:
			return nil, invalid("Invalid JSON payload received. Unknown name \"%s\": Cannot bind query parameter.", k)
		}
	}
	return out, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// parseMaxResults reads maxResults: absent or 0 means def.
func parseMaxResults(q map[string]string, def int) (int, error) {
	s, ok := q["maxResults"]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, invalid("Invalid value for 'parameters.maxResults': '%s'", s)
	}
	if n == 0 {
		return def, nil
	}
	return n, nil
}

// pageTokenVersion heads every page token the fake issues.
const pageTokenVersion = "dnsfake1"

// encodePageToken returns the token that resumes a list after the item
// whose sort key is key (a zone's name, or a record set's name and type):
// base64url of the JSON array [pageTokenVersion, key...]. Tokens name a
// position, not an offset: a record set added or deleted between two pages
// neither shifts nor repeats the others. Cloud DNS documents its pages as
// possibly an inconsistent view of a zone that changes meanwhile.
func encodePageToken(key ...string) string {
	b, _ := json.Marshal(append([]string{pageTokenVersion}, key...)) // strings always marshal
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodePageToken reads a token encodePageToken made with n key parts.
// Anything else answers 400, as Cloud DNS answers a token it did not issue.
func decodePageToken(tok string, n int) ([]string, error) {
	bad := invalid("Invalid value for 'parameters.pageToken': '%s'", tok)
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return nil, bad
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != n+1 || parts[0] != pageTokenVersion {
		return nil, bad
	}
	return parts[1:], nil
}

// page returns the items after the position tok names (all of them when
// tok is empty), at most size of them, and the token of the next page,
// empty on the last. items must be sorted by key, whose keys have keyLen
// parts; size must be positive.
func page[T any](items []T, key func(T) []string, keyLen int, tok string, size int) ([]T, string, error) {
	start := 0
	if tok != "" {
		after, err := decodePageToken(tok, keyLen)
		if err != nil {
			return nil, "", err
		}
		start = sort.Search(len(items), func(i int) bool { return compareKeys(key(items[i]), after) > 0 })
	}
	end := min(start+size, len(items))
	next := ""
	if end < len(items) {
		next = encodePageToken(key(items[end-1])...)
	}
	return items[start:end], next, nil
}

func compareKeys(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}
