package strategy

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// realKinds is the kinds file of the three upjet providers (see
// testdata/README.md at the repository's root).
var realKinds = filepath.Join("..", "..", "testdata", "upjet-provider-kinds.tsv")

func TestDecodeKinds(t *testing.T) {
	h := kindsHeaderV2 + "\n"
	h8 := KindsHeader + "\n"
	cases := map[string]struct {
		reason  string
		in      string
		want    []Facts
		wantErr string // a substring of the error; "" for none
	}{
		"HeaderOnly": {reason: "no kinds is valid", in: h},
		"Kinds": {
			reason: "every column, K and C, tags fields, a CRLF line end, no final newline",
			in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\trequest\r\n" +
				"gcp\tgoogle_dns_managed_zone\tK\tTemplated:params/setup+bound-name\tlabels,userLabels\tprojects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}\tafter\n" +
				"aws\taws_iam_role\tK\tNameAsIdentifier\ttags\t\tpartition-fallback\n" +
				"aws\taws_iam_role_policy\tC\tIdentifierFromProvider\t\t\t",
			want: []Facts{
				{Provider: "aws", TerraformResource: "aws_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}, TagsAtCreate: TagsInRequest},
				{Provider: "gcp", TerraformResource: "google_dns_managed_zone", IDKnownBeforeCreate: true, ExternalNameConfig: "Templated:params/setup+bound-name",
					TagFields: []string{"labels", "userLabels"}, Detail: "projects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}", TagsAtCreate: TagsAfter},
				{Provider: "aws", TerraformResource: "aws_iam_role", IDKnownBeforeCreate: true, ExternalNameConfig: "NameAsIdentifier", TagFields: []string{"tags"}, TagsAtCreate: TagsPartitionFallback},
				{Provider: "aws", TerraformResource: "aws_iam_role_policy", ExternalNameConfig: "IdentifierFromProvider"},
			},
		},
		"Empty":       {reason: "an empty file has no header", in: "", wantErr: "empty; want the header line"},
		"WrongHeader": {reason: "the header is checked", in: "provider\tresource\n", wantErr: "line 1: header"},
		"SixColumnFile": {reason: "a kinds file from before tags_at_create says what to add",
			in: kindsHeaderV1 + "\naws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\n", wantErr: "line 1: a six-column kinds file, without tags_at_create"},
		"SixColumns":   {reason: "seven columns", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\n", wantErr: "line 2: 6 tab-separated columns, want 7"},
		"EightColumns": {reason: "seven columns", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\trequest\t\n", wantErr: "line 2: 8 tab-separated columns"},
		"Evidence": {
			reason: "the eight-column file: a kind with a tags field says where tags_at_create was read",
			in:     h8 + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\trequest\tinternal/service/ec2/vpc.go:150 getTagSpecificationsIn\naws\taws_iam_role_policy\tC\tIdentifierFromProvider\t\t\t\t\n",
			want: []Facts{
				{Provider: "aws", TerraformResource: "aws_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}, TagsAtCreate: TagsInRequest,
					TagsAtCreateEvidence: "internal/service/ec2/vpc.go:150 getTagSpecificationsIn"},
				{Provider: "aws", TerraformResource: "aws_iam_role_policy", ExternalNameConfig: "IdentifierFromProvider"},
			},
		},
		"NoEvidence":       {reason: "the eight-column file needs evidence for a tags field", in: h8 + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\trequest\t \n", wantErr: "tags_at_create_evidence is empty"},
		"EvidenceNoTags":   {reason: "no tags field, no evidence", in: h8 + "aws\taws_x\tC\tIdentifierFromProvider\t\t\t\tx.go:1\n", wantErr: "tags_at_create_evidence \"x.go:1\" for a kind with no tags"},
		"SevenInEightFile": {reason: "the eight-column header wants eight columns", in: h8 + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\trequest\n", wantErr: "line 2: 7 tab-separated columns, want 8"},
		"BlankLine":        {reason: "a blank line is a line with one column", in: h + "\n", wantErr: "line 2: 1 tab-separated columns"},
		"BadID":            {reason: "K or C", in: h + "aws\taws_vpc\tk\tIdentifierFromProvider\t\t\t\n", wantErr: `line 2: id_known_before_create "k", want K or C`},
		"BadProvider":      {reason: "a provider name", in: h + "AWS\taws_vpc\tC\tIdentifierFromProvider\t\t\t\n", wantErr: `provider "AWS"`},
		"BadResource":      {reason: "a resource type", in: h + "aws\t\tC\tIdentifierFromProvider\t\t\t\n", wantErr: `terraform_resource ""`},
		"NoConfig":         {reason: "an external-name config", in: h + "aws\taws_vpc\tC\t\t\t\t\n", wantErr: `external_name_config ""`},
		"BadTags":          {reason: "tags fields are names", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags,\t\trequest\n", wantErr: `tags_or_labels_field "tags,"`},
		"TagsTwice":        {reason: "no tags field twice", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags,tags\t\trequest\n", wantErr: "names tags twice"},
		"NoTagsAt":         {reason: "a kind with a tags field says when its create sends them", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\t\n", wantErr: `tags_at_create "", want request, after or partition-fallback`},
		"BadTagsAt":        {reason: "the values of tags_at_create", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\tlater\n", wantErr: `tags_at_create "later"`},
		"TagsAtNoTags":     {reason: "no tags field, nothing sent", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\t\t\trequest\n", wantErr: `tags_at_create "request" for a kind with no tags or labels field`},
		"Control":          {reason: "no control characters", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\t\tx\ry\t\n", wantErr: "line 2: column 6 holds invalid UTF-8 or a control character"},
		"BadUTF8":          {reason: "UTF-8 only", in: h + "aws\taws_vpc\tC\tIdentifierFromProvider\t\t\xff\t\n", wantErr: "column 6 holds invalid UTF-8"},
		"Duplicate": {
			reason:  "one line per kind",
			in:      h + "aws\taws_vpc\tC\tIdentifierFromProvider\ttags\t\trequest\naws\taws_subnet\tC\tIdentifierFromProvider\ttags\t\trequest\naws\taws_vpc\tK\tNameAsIdentifier\t\t\t\n",
			wantErr: "line 4: aws aws_vpc is already on line 2",
		},
		"TooLong": {reason: "a line past the bound", in: h + "aws\taws_vpc\tC\tx\t\t" + strings.Repeat("a", maxLine), wantErr: "after line 1: bufio.Scanner: token too long"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeKinds(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrBadKinds) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nDecodeKinds: error %v, want ErrBadKinds containing %q", tc.reason, err, tc.wantErr)
				}
				if got != nil {
					t.Errorf("%s\nDecodeKinds returned kinds with an error", tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nDecodeKinds: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDecodeKinds (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRealKindsRoundTrip: the real kinds file decodes, and encodes back to
// the same bytes.
func TestRealKindsRoundTrip(t *testing.T) {
	b, err := os.ReadFile(realKinds)
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := DecodeKinds(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 2202 {
		t.Errorf("%s: %d kinds, want 2202", realKinds, len(kinds))
	}
	var buf bytes.Buffer
	if err := EncodeKinds(&buf, kinds); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, buf.Bytes()) {
		t.Errorf("EncodeKinds(DecodeKinds(%s)) differs from the file", realKinds)
	}
}

// FuzzDecodeKinds checks that any input decodes or gives ErrBadKinds, never
// a panic, and that what decodes encodes and decodes to the same kinds.
func FuzzDecodeKinds(f *testing.F) {
	b, err := os.ReadFile(realKinds)
	if err != nil {
		f.Fatal(err)
	}
	// Short seeds: the fuzzer minimizes every interesting input, and a
	// long one would take the whole run.
	lines := strings.SplitAfter(string(b), "\n")
	f.Add([]byte(strings.Join(lines[:6], "")))
	f.Add([]byte(strings.Join(lines[:3], "") + strings.Join(lines[1:2], "")))
	f.Add([]byte(kindsHeaderV2 + "\r\ngcp\tgoogle_x\tC\tcustom:f\tlabels,userLabels\tdétail {{ .x }}\tafter"))
	f.Add([]byte(KindsHeader + "\r\ngcp\tgoogle_x\tC\tcustom:f\tlabels,userLabels\tdétail {{ .x }}\tafter\tx.go:1"))
	f.Add([]byte(KindsHeader))
	f.Fuzz(func(t *testing.T, b []byte) {
		kinds, err := DecodeKinds(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrBadKinds) {
				t.Fatalf("DecodeKinds: error %v is not ErrBadKinds", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := EncodeKinds(&buf, kinds); err != nil {
			t.Fatal(err)
		}
		back, err := DecodeKinds(&buf)
		if err != nil {
			t.Fatalf("DecodeKinds(EncodeKinds(DecodeKinds(b))): %v\n%s", err, buf.Bytes())
		}
		if diff := cmp.Diff(kinds, back); diff != "" {
			t.Fatalf("round trip changed the kinds (-first +second):\n%s", diff)
		}
		_ = Measure(kinds, Env{})
	})
}
