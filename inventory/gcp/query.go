package gcp

import (
	"maps"
	"slices"
	"strings"

	"github.com/intentjournal/intentjournal/recovery"
)

// The limits of a search query, as Cloud Asset Inventory's query syntax
// documents them (https://cloud.google.com/asset-inventory/docs/query-syntax):
// "Up to 10 comparisons can be made in a query, with a maximum of 2048
// characters."
const (
	maxComparisons = 10
	maxQueryLen    = 2048
)

// searchQuery returns the searchAllResources query that requires every
// tag of tags as a label with its value encoded under
// recovery.LabelEncodingGCP, the way a tagger writes it to a GCP labels
// field: one exact-match clause per tag, labels.KEY="VALUE", joined with
// AND, in the order of the keys. The encoded value holds only [a-z0-9_-],
// so the quotes (a phrase, for the syntax) need no escape inside.
//
// A tag is left to the client-side check (carries) where the server
// cannot be asked for it: a key that is not a plain label key
// ([a-z0-9_-]), an empty value (which labels.KEY="" would not match
// reliably), or a clause past the query's documented limits. Leaving one
// out widens the search, never narrows it: the query can only let
// strangers through, which carries turns away; it never hides a match.
func searchQuery(tags map[string]string) string {
	var b strings.Builder
	n := 0
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		v := recovery.GCPLabelValue(tags[k])
		if !plainLabel(k) || v == "" {
			continue
		}
		clause := "labels." + k + `="` + v + `"`
		sep := ""
		if n > 0 {
			sep = " AND "
		}
		if n == maxComparisons || b.Len()+len(sep)+len(clause) > maxQueryLen {
			break
		}
		b.WriteString(sep)
		b.WriteString(clause)
		n++
	}
	return b.String()
}

// plainLabel reports whether k is a non-empty label key of lower-case
// ASCII letters, digits, '_' and '-': one that a query can name after
// "labels." with no quoting. The crossplane and intentjournal tag keys
// are.
func plainLabel(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// carries reports whether labels holds every tag of want, each with its
// value as recovery expects it: the value itself, or the value encoded
// under recovery.LabelEncodingGCP (recovery.GCPLabelValue), which is what
// a tagger writes to a GCP labels field. It is the check that keeps a
// stranger out whatever the server's query matched.
func carries(labels, want map[string]string) bool {
	for k, v := range want {
		got, ok := labels[k]
		if !ok || got != v && got != recovery.GCPLabelValue(v) {
			return false
		}
	}
	return true
}
