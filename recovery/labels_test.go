package recovery

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestGCPLabelValue pins LabelEncodingGCP. The hashes are literals: a
// change that moves any of them is a new encoding and needs a new name.
func TestGCPLabelValue(t *testing.T) {
	cases := map[string]struct {
		reason string
		v      string
		want   string
	}{
		"Dots": {
			reason: "a crossplane-kind value: '.' is not allowed, it becomes '_'",
			v:      "recordset.dns.gcp.upbound.io",
			want:   "recordset_dns_gcp_upbound_io",
		},
		"UpperCase": {
			reason: "a crossplane-providerconfig-kind value: upper case is lowered",
			v:      "ClusterProviderConfig",
			want:   "clusterproviderconfig",
		},
		"AlreadyValid": {
			reason: "a valid value is returned unchanged",
			v:      "my-bucket_01",
			want:   "my-bucket_01",
		},
		"UID": {
			reason: "a Kubernetes UID is a valid value",
			v:      "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c",
			want:   "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c",
		},
		"Exactly63": {
			reason: "63 valid bytes fit: no hash",
			v:      strings.Repeat("a", 63),
			want:   strings.Repeat("a", 63),
		},
		"Exactly63Mapped": {
			reason: "63 runes that need mapping still fit once mapped: no hash",
			v:      strings.Repeat("A.", 31) + "A",
			want:   strings.Repeat("a_", 31) + "a",
		},
		"Valid64": {
			reason: "64 valid bytes are too long: 54 bytes, '-' and the hash of the original",
			v:      strings.Repeat("a", 64),
			want:   strings.Repeat("a", 54) + "-ffe054fe",
		},
		"Long": {
			reason: "a long value is mapped, cut to 54 bytes, and the hash is of the original, not the mapped form",
			v:      strings.Repeat("Network.", 9),
			want:   "network_network_network_network_network_network_networ-493113c4",
		},
		"LongDistinctOne": {
			reason: "two long values differing only past the cut stay distinct: this one",
			v:      strings.Repeat("x", 70) + "1",
			want:   strings.Repeat("x", 54) + "-5d023c85",
		},
		"LongDistinctTwo": {
			reason: "two long values differing only past the cut stay distinct: that one",
			v:      strings.Repeat("x", 70) + "2",
			want:   strings.Repeat("x", 54) + "-4b2c4f3b",
		},
		"Empty": {
			reason: "the empty value is valid",
			v:      "",
			want:   "",
		},
		"Unicode": {
			reason: "a non-ASCII rune, upper or lower case, becomes one '_'",
			v:      "Café-Ünïcode",
			want:   "caf_-_n_code",
		},
		"KelvinSign": {
			reason: "only ASCII is lowered: U+212A, which Unicode lowers to 'k', becomes '_'",
			v:      "\u212a",
			want:   "_",
		},
		"InvalidUTF8": {
			reason: "each byte of invalid UTF-8 becomes one '_'",
			v:      "a\xff\xfeb",
			want:   "a__b",
		},
		"Slash": {
			reason: "any other ASCII punctuation becomes '_'",
			v:      "team-a/vpc:1",
			want:   "team-a_vpc_1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := GCPLabelValue(tc.v)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nGCPLabelValue(%q): -want +got:\n%s", tc.reason, tc.v, diff)
			}
			if again := GCPLabelValue(got); again != got {
				t.Errorf("%s\nGCPLabelValue is not idempotent: %q, then %q", tc.reason, got, again)
			}
		})
	}
	if cases["LongDistinctOne"].want == cases["LongDistinctTwo"].want {
		t.Error("two long values differing past the cut encode alike")
	}
}

// TestGCPLabelValueLongCase pins what GCPLabelValue documents for long
// values: values that differ only in case encode alike when short, but
// not when long (the hash is of the original), and the output is still a
// fixed point.
func TestGCPLabelValueLongCase(t *testing.T) {
	if GCPLabelValue("VPC") != GCPLabelValue("vpc") {
		t.Errorf("short values differing only in case: %q and %q, want the same", GCPLabelValue("VPC"), GCPLabelValue("vpc"))
	}
	upper, lower := strings.Repeat("V", 70), strings.Repeat("v", 70)
	gu, gl := GCPLabelValue(upper), GCPLabelValue(lower)
	if gu == gl {
		t.Errorf("long values differing only in case both encode to %q, want distinct hashes", gu)
	}
	if gu[:gcpLabelPrefix] != gl[:gcpLabelPrefix] {
		t.Errorf("long values differing only in case: prefixes %q and %q, want the same mapped prefix", gu[:gcpLabelPrefix], gl[:gcpLabelPrefix])
	}
	for _, g := range []string{gu, gl} {
		if again := GCPLabelValue(g); again != g {
			t.Errorf("GCPLabelValue(%q) = %q: a long value's output is not a fixed point", g, again)
		}
	}
}

func TestEncodeLabels(t *testing.T) {
	tags := map[string]string{
		TagCrossplaneKind:               "recordset.dns.gcp.upbound.io",
		TagCrossplaneName:               "www",
		TagCrossplaneProviderConfigKind: "ClusterProviderConfig",
		TagUID:                          "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c",
	}
	cases := map[string]struct {
		reason   string
		encoding string
		tags     map[string]string
		want     map[string]string
		err      error
	}{
		"None": {
			reason: "no encoding returns the values as they are",
			tags:   tags,
			want:   tags,
		},
		"GCP": {
			reason:   "the GCP encoding encodes every value and no key",
			encoding: LabelEncodingGCP,
			tags:     tags,
			want: map[string]string{
				TagCrossplaneKind:               "recordset_dns_gcp_upbound_io",
				TagCrossplaneName:               "www",
				TagCrossplaneProviderConfigKind: "clusterproviderconfig",
				TagUID:                          "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c",
			},
		},
		"GCPNil": {
			reason:   "no tags encode to an empty map",
			encoding: LabelEncodingGCP,
			want:     map[string]string{},
		},
		"Unknown": {
			reason:   "an unknown encoding is an error, with no map",
			encoding: "gcp-v0",
			tags:     tags,
			err:      ErrUnknownLabelEncoding,
		},
		"UnversionedName": {
			reason:   "the encoding's name carries its version: plain \"gcp\" is unknown",
			encoding: "gcp",
			tags:     tags,
			err:      ErrUnknownLabelEncoding,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := cloneTags(tc.tags)
			got, err := EncodeLabels(tc.encoding, tc.tags)
			if diff := cmp.Diff(tc.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nEncodeLabels(%q) error: -want +got:\n%s", tc.reason, tc.encoding, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nEncodeLabels(%q): -want +got:\n%s", tc.reason, tc.encoding, diff)
			}
			if diff := cmp.Diff(in, tc.tags); diff != "" {
				t.Errorf("%s\nEncodeLabels changed its argument: -before +after:\n%s", tc.reason, diff)
			}
			if got != nil && tc.tags != nil {
				got["probe"] = "x"
				if _, ok := tc.tags["probe"]; ok {
					t.Errorf("%s\nEncodeLabels returned its argument, not a copy", tc.reason)
				}
			}
		})
	}
	if _, err := EncodeLabels("azure-v1", nil); err == nil || !strings.Contains(err.Error(), `"azure-v1"`) || !strings.Contains(err.Error(), LabelEncodingGCP) {
		t.Errorf("EncodeLabels(\"azure-v1\") error %v: want one naming the encoding asked for and the one known", err)
	}
}

// gcpTags returns tags with every value GCP-encoded.
func gcpTags(t *testing.T, tags map[string]string) map[string]string {
	t.Helper()
	out, err := EncodeLabels(LabelEncodingGCP, tags)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTagsMatchGCPLabels: a resource labelled by a tagger with
// WithLabelEncoding(LabelEncodingGCP) carries the expected tags.
func TestTagsMatchGCPLabels(t *testing.T) {
	want := map[string]string{TagCrossplaneKind: "recordset.dns.gcp.upbound.io", TagCrossplaneName: "www.example", TagCrossplaneProviderConfigKind: "ProviderConfig"}
	cases := map[string]struct {
		reason string
		have   map[string]string
		want   bool
	}{
		"Raw": {
			reason: "the values as they are match",
			have:   want,
			want:   true,
		},
		"Encoded": {
			reason: "the GCP-encoded values match",
			have:   gcpTags(t, want),
			want:   true,
		},
		"Mixed": {
			reason: "each value is compared on its own: some raw, some encoded match",
			have:   map[string]string{TagCrossplaneKind: "recordset_dns_gcp_upbound_io", TagCrossplaneName: "www.example", TagCrossplaneProviderConfigKind: "providerconfig"},
			want:   true,
		},
		"EncodedOtherName": {
			reason: "an encoded value of another name does not match",
			have:   gcpTags(t, map[string]string{TagCrossplaneKind: "recordset.dns.gcp.upbound.io", TagCrossplaneName: "www.other", TagCrossplaneProviderConfigKind: "ProviderConfig"}),
			want:   false,
		},
		"DashForDot": {
			reason: "'.' encodes to '_', never '-': www-example is another name, not an encoding of www.example",
			have:   map[string]string{TagCrossplaneKind: "recordset_dns_gcp_upbound_io", TagCrossplaneName: "www-example", TagCrossplaneProviderConfigKind: "providerconfig"},
			want:   false,
		},
		"Missing": {
			reason: "a missing tag does not match",
			have:   map[string]string{TagCrossplaneKind: "recordset_dns_gcp_upbound_io", TagCrossplaneName: "www_example"},
			want:   false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tagsMatch(want, tc.have); got != tc.want {
				t.Errorf("%s\ntagsMatch(%v, %v) = %v, want %v", tc.reason, want, tc.have, got, tc.want)
			}
		})
	}
}

// TestJudgeGCPLabels: Judge proves by crossplane tags a resource whose
// labels hold the GCP-encoded values (judgeProof's tagsMatch).
func TestJudgeGCPLabels(t *testing.T) {
	cases := map[string]struct {
		reason string
		tags   map[string]string
		want   Proof
	}{
		"Encoded": {
			reason: "the expected tags, GCP-encoded, prove it ours after the create began",
			tags:   gcpTags(t, ourTags),
			want:   ProofTags,
		},
		"EncodedOther": {
			reason: "another provider config's tags, GCP-encoded, do not",
			tags:   gcpTags(t, theirTags),
			want:   "",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := candidate(false)
			if diff := cmp.Diff(ourTags, c.ExpectedTags()); diff != "" {
				t.Fatalf("fixture: ExpectedTags: -want +got:\n%s", diff)
			}
			if tc.tags[TagCrossplaneKind] == ourTags[TagCrossplaneKind] {
				t.Fatalf("fixture: the kind %q is not changed by the encoding", ourTags[TagCrossplaneKind])
			}
			r := ExternalResource{ID: "net-1", Tags: tc.tags, CreatedAt: t2, Args: ArgsSame}
			if got := Judge(c, r, DefaultClockSkew).Proof; got != tc.want {
				t.Errorf("%s\nJudge: proof %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

// forProvider returns a managed resource's unstructured content whose
// spec.forProvider.labels is labels.
func forProvider(labels map[string]string) map[string]any {
	m := map[string]any{}
	for k, v := range labels {
		m[k] = v
	}
	return map[string]any{"spec": map[string]any{"forProvider": map[string]any{"name": "www", "labels": m}}}
}

func TestCarriesTagsGCPLabels(t *testing.T) {
	tags := map[string]string{TagCrossplaneKind: "recordset.dns.gcp.upbound.io", TagCrossplaneName: "www", TagCrossplaneNamespace: "team-a"}
	cases := map[string]struct {
		reason string
		obj    map[string]any
		want   bool
	}{
		"Raw": {
			reason: "the spec's labels hold the values as they are",
			obj:    forProvider(tags),
			want:   true,
		},
		"Encoded": {
			reason: "the spec's labels hold the GCP-encoded values, as the GCP tagger writes them",
			obj:    forProvider(gcpTags(t, tags)),
			want:   true,
		},
		"EncodedOtherNamespace": {
			reason: "the spec's labels hold another namespace's encoded values",
			obj:    forProvider(gcpTags(t, map[string]string{TagCrossplaneKind: "recordset.dns.gcp.upbound.io", TagCrossplaneName: "www", TagCrossplaneNamespace: "team-b"})),
			want:   false,
		},
		"Differs": {
			reason: "a value that is neither the expected one nor its encoding",
			obj:    forProvider(map[string]string{TagCrossplaneKind: "recordset-dns-gcp-upbound-io", TagCrossplaneName: "www", TagCrossplaneNamespace: "team-a"}),
			want:   false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CarriesTags(tc.obj, tags); got != tc.want {
				t.Errorf("%s\nCarriesTags = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

func TestCarriesUIDTagGCPLabels(t *testing.T) {
	const uid = "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c"
	cases := map[string]struct {
		reason string
		uid    string
		obj    map[string]any
		want   bool
	}{
		"Encoded": {
			reason: "the labels hold the GCP-encoded UID (a UID encodes to itself)",
			uid:    uid,
			obj:    forProvider(gcpTags(t, map[string]string{TagUID: uid})),
			want:   true,
		},
		"EncodedUnusual": {
			reason: "a UID that is no valid label value is matched in its encoded form",
			uid:    "UID.1",
			obj:    forProvider(gcpTags(t, map[string]string{TagUID: "UID.1"})),
			want:   true,
		},
		"Differs": {
			reason: "another UID does not match",
			uid:    uid,
			obj:    forProvider(gcpTags(t, map[string]string{TagUID: "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1d"})),
			want:   false,
		},
		"NotAString": {
			reason: "a value that is not a string never matches",
			uid:    uid,
			obj:    map[string]any{"spec": map[string]any{"forProvider": map[string]any{"labels": map[string]any{TagUID: 1}}}},
			want:   false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CarriesUIDTag(tc.obj, tc.uid); got != tc.want {
				t.Errorf("%s\nCarriesUIDTag = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

// FuzzGCPLabelValue checks, for every input, the whole of what
// GCPLabelValue documents: a valid output, idempotence, a valid input
// unchanged, one byte per rune, each rune's mapping, and past 63 bytes the
// cut and the hash of the original. No input is skipped.
func FuzzGCPLabelValue(f *testing.F) {
	for _, s := range []string{
		"", "a", "recordset.dns.gcp.upbound.io", "ClusterProviderConfig", "my-bucket_01",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("A.", 40),
		"Café-Ünïcode", "\u212a", "a\xff\xfeb", strings.Repeat("é", 70),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := GCPLabelValue(v)
		if len(got) > gcpLabelMax {
			t.Fatalf("GCPLabelValue(%q) = %q: %d bytes, want at most %d", v, got, len(got), gcpLabelMax)
		}
		for i := 0; i < len(got); i++ {
			if c := got[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
				t.Fatalf("GCPLabelValue(%q) = %q: byte %d (%q) is not in [a-z0-9_-]", v, got, i, c)
			}
		}
		if again := GCPLabelValue(got); again != got {
			t.Fatalf("GCPLabelValue(%q) = %q, but GCPLabelValue of that is %q: not idempotent", v, got, again)
		}
		if !valueMatches(v, got) {
			t.Fatalf("valueMatches(%q, %q) = false for its own encoding", v, got)
		}
		valid := len(v) <= gcpLabelMax && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789_-") == ""
		if valid && got != v {
			t.Fatalf("GCPLabelValue(%q) = %q: a valid value must be returned unchanged", v, got)
		}
		runes := utf8.RuneCountInString(v)
		if runes <= gcpLabelMax {
			if len(got) != runes {
				t.Fatalf("GCPLabelValue(%q) = %q: %d bytes for %d runes, want one byte per rune", v, got, len(got), runes)
			}
		} else {
			sum := sha256.Sum256([]byte(v))
			if want := "-" + hex.EncodeToString(sum[:])[:gcpLabelHashLen]; len(got) != gcpLabelMax || got[gcpLabelPrefix:] != want {
				t.Fatalf("GCPLabelValue(%q) = %q: a long value must end in %q at 63 bytes", v, got, want)
			}
		}
		i := 0
		for _, r := range v {
			if i == gcpLabelPrefix && runes > gcpLabelMax {
				break
			}
			want := byte('_')
			switch {
			case 'A' <= r && r <= 'Z':
				want = byte(r - 'A' + 'a')
			case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '_', r == '-':
				want = byte(r)
			}
			if got[i] != want {
				t.Fatalf("GCPLabelValue(%q) = %q: byte %d is %q for rune %q, want %q", v, got, i, got[i], r, want)
			}
			i++
		}
	})
}

// TestValueMatchesNotSymmetric: recovery encodes what it expects, never
// what it finds: an expected value that is itself an encoding does not
// match the raw form.
func TestValueMatchesNotSymmetric(t *testing.T) {
	if !valueMatches("a.b", "a_b") {
		t.Error(`valueMatches("a.b", "a_b") = false, want true`)
	}
	if valueMatches("a_b", "a.b") {
		t.Error(`valueMatches("a_b", "a.b") = true, want false`)
	}
}
