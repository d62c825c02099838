package recovery

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// LabelEncodingGCP names the encoding of tag values that GCP labels
// accept (GCPLabelValue). The name carries a version: a change of the
// scheme gets a new name, so that a value written under one scheme is
// never read under another.
const LabelEncodingGCP = "gcp-v1"

// ErrUnknownLabelEncoding is returned (wrapped) by EncodeLabels for an
// encoding it does not know.
var ErrUnknownLabelEncoding = errors.New("recovery: unknown label encoding")

// gcpLabelMax is the longest GCP label value, in bytes. A value that
// encodes longer is cut to gcpLabelPrefix bytes, a '-' and
// gcpLabelHashLen hex digits of a hash: 54 + 1 + 8 = 63.
const (
	gcpLabelMax     = 63
	gcpLabelHashLen = 8
	gcpLabelPrefix  = gcpLabelMax - 1 - gcpLabelHashLen
)

// GCPLabelValue returns v as a valid GCP label value, under
// LabelEncodingGCP: at most 63 bytes of lower-case letters, digits, '_'
// and '-'. ASCII upper-case letters are lower-cased; every other rune
// outside [a-z0-9_-] (a '.', a '/', any non-ASCII rune, each byte of
// invalid UTF-8) becomes one '_'. When the result is longer than 63
// bytes, GCPLabelValue keeps its first 54 bytes and appends '-' and the
// first 8 hex digits of the SHA-256 of the original v, so that two long
// values that differ only past the cut stay distinct (barring a 32-bit
// hash collision).
//
// A valid value (at most 63 bytes of [a-z0-9_-]) is returned unchanged,
// the empty value included. Every output is valid, so GCPLabelValue is
// idempotent for every input: GCPLabelValue(GCPLabelValue(v)) ==
// GCPLabelValue(v). For a value whose mapped form is at most 63 bytes the
// output is that mapped form. For a longer one the output is 63 bytes
// whose hash is of the original v, not of its mapped form: two long
// values that map alike (differing only in case, say) get different
// outputs, where two short ones get the same. Neither form can be
// decoded: recovery compares a value it expects by encoding it
// (valueMatches), never the other way round.
func GCPLabelValue(v string) string {
	if gcpLabelValid(v) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	for _, r := range v {
		switch {
		case 'A' <= r && r <= 'Z':
			b.WriteRune(r - 'A' + 'a')
		case gcpLabelRune(r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) <= gcpLabelMax {
		return out
	}
	sum := sha256.Sum256([]byte(v))
	return out[:gcpLabelPrefix] + "-" + hex.EncodeToString(sum[:])[:gcpLabelHashLen]
}

// gcpLabelValid reports whether v is a valid GCP label value as
// LabelEncodingGCP defines it.
func gcpLabelValid(v string) bool {
	if len(v) > gcpLabelMax {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !gcpLabelRune(rune(v[i])) {
			return false
		}
	}
	return true
}

// gcpLabelRune reports whether r may stand in a GCP label value.
func gcpLabelRune(r rune) bool {
	return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_' || r == '-'
}

// EncodeLabels returns a copy of tags with every value encoded with
// encoding: "" (none) leaves the values as they are; LabelEncodingGCP
// encodes each with GCPLabelValue. Keys are never changed: the crossplane
// and intentjournal tag keys are valid GCP label keys already. Any other
// encoding returns an error wrapping ErrUnknownLabelEncoding and no map.
func EncodeLabels(encoding string, tags map[string]string) (map[string]string, error) {
	var enc func(string) string
	switch encoding {
	case "":
		enc = func(v string) string { return v }
	case LabelEncodingGCP:
		enc = GCPLabelValue
	default:
		return nil, fmt.Errorf("%w %q: the encodings are %q and none (\"\")", ErrUnknownLabelEncoding, encoding, LabelEncodingGCP)
	}
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		out[k] = enc(v)
	}
	return out, nil
}

// valueMatches reports whether got, a tag or label value found on a cloud
// resource or in a managed resource's spec, is the value want that
// recovery expects: want itself, or want encoded under LabelEncodingGCP
// (GCPLabelValue), which a tagger writes to a GCP labels field
// (adapter.WithLabelEncoding). Recovery needs no configuration to agree
// with the tagger: it accepts either form for any field on any cloud.
//
// Accepting the encoded form is safe: it cannot make one managed
// resource's tags match another's. The crossplane tags hold Kubernetes
// names and namespaces (DNS labels and subdomains: lower-case letters,
// digits, '-' and '.'), a lower-cased group and kind, and a provider
// config kind (ProviderConfig or ClusterProviderConfig, still distinct
// once lower-cased). None of them holds '_', and only the provider config
// kind holds upper case. Over such values GCPLabelValue, which changes
// only upper case and '.', is one to one: two distinct names never encode
// alike, and a value holding '_' is either the encoding of a crossplane
// value or no crossplane value at all. A value too long for a
// label keeps a hash of the original beside its first 54 bytes, so two
// long names sharing those bytes stay apart too. A UID, an intent ID and
// a hex hash are valid label values already and encode to themselves.
func valueMatches(want, got string) bool {
	return got == want || got == GCPLabelValue(want)
}
