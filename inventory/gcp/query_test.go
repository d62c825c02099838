package gcp

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/recovery"
)

func TestSearchQuery(t *testing.T) {
	many := map[string]string{}
	for i := range 12 {
		many[fmt.Sprintf("k%02d", i)] = "v"
	}
	long := map[string]string{}
	for i := range 40 {
		long[fmt.Sprintf("key-%02d", i)] = strings.Repeat("x", 60)
	}
	cases := map[string]struct {
		reason string
		tags   map[string]string
		want   string
	}{
		"Encoded": {
			reason: "Each tag is an exact label clause whose value is encoded with GCPLabelValue, in key order, joined with AND.",
			tags:   map[string]string{"crossplane-name": "zone-a", "crossplane-kind": "recordset.dns.gcp.upbound.io", "crossplane-providerconfig-kind": "ClusterProviderConfig"},
			want:   `labels.crossplane-kind="recordset_dns_gcp_upbound_io" AND labels.crossplane-name="zone-a" AND labels.crossplane-providerconfig-kind="clusterproviderconfig"`,
		},
		"LongValue": {
			reason: "A value too long for a label is asked for in its hashed, 63-byte form.",
			tags:   map[string]string{"crossplane-name": strings.Repeat("a", 70)},
			want:   `labels.crossplane-name="` + recovery.GCPLabelValue(strings.Repeat("a", 70)) + `"`,
		},
		"OddKey": {
			reason: "A key the query cannot name plainly is left to the client-side check.",
			tags:   map[string]string{"crossplane-kind": "a", "Team Name": "b", `x"y`: "c"},
			want:   `labels.crossplane-kind="a"`,
		},
		"EmptyValue": {
			reason: "An empty value is left to the client-side check.",
			tags:   map[string]string{"crossplane-kind": "a", "crossplane-namespace": ""},
			want:   `labels.crossplane-kind="a"`,
		},
		"TenComparisons": {
			reason: "At most ten comparisons, as the query syntax documents; the rest are checked client-side.",
			tags:   many,
			want:   `labels.k00="v" AND labels.k01="v" AND labels.k02="v" AND labels.k03="v" AND labels.k04="v" AND labels.k05="v" AND labels.k06="v" AND labels.k07="v" AND labels.k08="v" AND labels.k09="v"`,
		},
		"None": {
			reason: "No tags, no query.",
			tags:   nil,
			want:   "",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, searchQuery(tc.tags)); diff != "" {
				t.Errorf("%s\nsearchQuery (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
	if q := searchQuery(long); len(q) > maxQueryLen {
		t.Errorf("searchQuery of long tags is %d characters, more than the documented %d", len(q), maxQueryLen)
	}
}

func TestCarries(t *testing.T) {
	want := map[string]string{"crossplane-kind": "recordset.dns.gcp.upbound.io", "crossplane-name": "zone-a"}
	cases := map[string]struct {
		reason string
		labels map[string]string
		want   bool
	}{
		"Encoded":     {reason: "Encoded values match.", labels: map[string]string{"crossplane-kind": "recordset_dns_gcp_upbound_io", "crossplane-name": "zone-a", "other": "x"}, want: true},
		"Raw":         {reason: "Raw values match.", labels: map[string]string{"crossplane-kind": "recordset.dns.gcp.upbound.io", "crossplane-name": "zone-a"}, want: true},
		"OneDiffers":  {reason: "One value differing is a stranger.", labels: map[string]string{"crossplane-kind": "recordset_dns_gcp_upbound_io", "crossplane-name": "zone-b"}, want: false},
		"OneMissing":  {reason: "One label missing is a stranger.", labels: map[string]string{"crossplane-kind": "recordset_dns_gcp_upbound_io"}, want: false},
		"NoLabels":    {reason: "No labels carry nothing.", labels: nil, want: false},
		"OtherKeyHas": {reason: "The value under another key does not count.", labels: map[string]string{"crossplane-kind": "recordset_dns_gcp_upbound_io", "name": "zone-a"}, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := carries(tc.labels, want); got != tc.want {
				t.Errorf("%s\ncarries(%v) = %v, want %v", tc.reason, tc.labels, got, tc.want)
			}
		})
	}
}

func TestAssetTypes(t *testing.T) {
	cases := map[string]struct {
		tf   string
		want []string
	}{
		"Network":  {tf: "google_compute_network", want: []string{"compute.googleapis.com/Network"}},
		"Zone":     {tf: "google_dns_managed_zone", want: []string{"dns.googleapis.com/ManagedZone"}},
		"Bucket":   {tf: "google_storage_bucket", want: []string{"storage.googleapis.com/Bucket"}},
		"Topic":    {tf: "google_pubsub_topic", want: []string{"pubsub.googleapis.com/Topic"}},
		"Cluster":  {tf: "google_container_cluster", want: []string{"container.googleapis.com/Cluster"}},
		"Unmapped": {tf: "google_dns_record_set", want: nil},
		"Empty":    {tf: "", want: nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, AssetTypes(tc.tf)); diff != "" {
				t.Errorf("AssetTypes(%q) (-want +got):\n%s", tc.tf, diff)
			}
		})
	}
	AssetTypes("google_compute_network")[0] = "changed"
	if got := AssetTypes("google_compute_network")[0]; got != "compute.googleapis.com/Network" {
		t.Errorf("AssetTypes returned the table's own slice: a caller changed it to %q", got)
	}
}

// clause is one comparison of a search query.
var clause = regexp.MustCompile(`^labels\.([a-z0-9_-]+)="([a-z0-9_-]+)"$`)

// FuzzSearchQuery: for any tags, the query stays within the documented
// limits, and each of its clauses names a tag and its encoded value, once.
func FuzzSearchQuery(f *testing.F) {
	f.Add("crossplane-kind", "recordset.dns.gcp.upbound.io", "crossplane-name", "zone-a")
	f.Add("a", "", `b"c`, `" OR labels.x="y`)
	f.Add("k", strings.Repeat("é", 40), "crossplane-namespace", "AND")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		tags := map[string]string{k1: v1, k2: v2}
		q := searchQuery(tags)
		if len(q) > maxQueryLen {
			t.Fatalf("searchQuery(%q) is %d characters", tags, len(q))
		}
		if q == "" {
			return
		}
		parts := strings.Split(q, " AND ")
		if len(parts) > maxComparisons {
			t.Fatalf("searchQuery(%q) has %d comparisons", tags, len(parts))
		}
		var keys []string
		for _, p := range parts {
			m := clause.FindStringSubmatch(p)
			if m == nil {
				t.Fatalf("searchQuery(%q) = %q: clause %q is not labels.KEY=\"VALUE\"", tags, q, p)
			}
			v, ok := tags[m[1]]
			if !ok || m[2] != recovery.GCPLabelValue(v) {
				t.Fatalf("searchQuery(%q) = %q: clause %q is no tag's encoded value", tags, q, p)
			}
			keys = append(keys, m[1])
		}
		if !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
			t.Fatalf("searchQuery(%q) = %q: keys out of order or repeated", tags, q)
		}
		if len(keys) > len(slices.Collect(maps.Keys(tags))) {
			t.Fatalf("searchQuery(%q) = %q: more clauses than tags", tags, q)
		}
	})
}
