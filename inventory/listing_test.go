package inventory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const listingHeader = "terraform_resource\tlisted\tindex_types\tregion\tevidence\n"

func TestParseListings(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    Listings
		wantErr string
	}{
		"Rows": {
			in: "# comment\n" + listingHeader +
				"aws_vpc\tyes\tec2:vpc\t\tEC2\n" +
				"aws_cloudfront_distribution\tyes\ta,b\tus-east-1\tglobal\n" +
				"aws_s3_object\tno\t\t\tnot in the API\n",
			want: Listings{
				"aws_vpc":                     {TerraformResource: "aws_vpc", Listed: true, IndexTypes: []string{"ec2:vpc"}, Evidence: "EC2"},
				"aws_cloudfront_distribution": {TerraformResource: "aws_cloudfront_distribution", Listed: true, IndexTypes: []string{"a", "b"}, Region: "us-east-1", Evidence: "global"},
				"aws_s3_object":               {TerraformResource: "aws_s3_object", Evidence: "not in the API"},
			},
		},
		"NoHeader":        {in: "aws_vpc\tyes\tec2:vpc\t\tEC2\n", wantErr: "the header is"},
		"Empty":           {in: "# nothing\n", wantErr: "no header line"},
		"Columns":         {in: listingHeader + "aws_vpc\tyes\tec2:vpc\tEC2\n", wantErr: "4 columns, want 5"},
		"Listed":          {in: listingHeader + "aws_vpc\tmaybe\t\t\tEC2\n", wantErr: `listed is "maybe"`},
		"NoEvidence":      {in: listingHeader + "aws_vpc\tyes\t\t\t \n", wantErr: "has no evidence"},
		"NoType":          {in: listingHeader + "\tyes\t\t\tEC2\n", wantErr: "no Terraform resource type"},
		"NotListedRegion": {in: listingHeader + "aws_x\tno\t\tus-east-1\twhy\n", wantErr: "is not listed, yet names"},
		"Twice":           {in: listingHeader + "aws_x\tno\t\t\twhy\naws_x\tno\t\t\twhy\n", wantErr: "named twice"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseListings(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseListings: %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseListings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShippedListings: each lister's file parses, names the kinds the
// issue's review found outside its index as not listed, and gives every
// global AWS service its home region.
func TestShippedListings(t *testing.T) {
	want := map[string]map[string]Listing{
		"aws": {
			"aws_s3_object":                     {Listed: false},
			"aws_inspector_resource_group":      {Listed: false},
			"aws_sqs_queue":                     {Listed: false},
			"aws_cloudfront_distribution":       {Listed: true, Region: "us-east-1"},
			"aws_globalaccelerator_accelerator": {Listed: true, Region: "us-west-2"},
			"aws_vpc":                           {Listed: true},
		},
		"gcp": {
			"google_compute_instance_template": {Listed: false},
			"google_compute_network":           {Listed: true},
		},
		"azure": {
			"azurerm_key_vault_secret": {Listed: false},
			"azurerm_virtual_network":  {Listed: true},
		},
	}
	for provider, rows := range want {
		l, err := ShippedListings(provider)
		if err != nil {
			t.Fatal(err)
		}
		for tf, w := range rows {
			got := l.Of(tf)
			if got.Listed != w.Listed || got.Region != w.Region {
				t.Errorf("%s %s: listed %t in %q, want %t in %q", provider, tf, got.Listed, got.Region, w.Listed, w.Region)
			}
		}
		if l.Of(provider + "_not_a_type").Listed {
			t.Errorf("%s: a type the file does not name is listed", provider)
		}
	}
	if _, err := ShippedListings("alibaba"); err == nil {
		t.Error("ShippedListings(alibaba): no error, want one: no lister ships for it")
	}
}

func TestListingsWith(t *testing.T) {
	l := Listings{"a": {TerraformResource: "a", Listed: true, Evidence: "e"}}
	got, err := l.With(Listing{TerraformResource: "a", Evidence: "taken off"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Of("a").Listed || !l.Of("a").Listed {
		t.Errorf("With: the copy must replace the row and leave the original: got %+v, original %+v", got.Of("a"), l.Of("a"))
	}
	if _, err := l.With(Listing{TerraformResource: "b", Listed: true}); err == nil {
		t.Error("With a row without evidence: no error, want one")
	}
}

func FuzzParseListings(f *testing.F) {
	f.Add(listingHeader + "aws_vpc\tyes\tec2:vpc\t\tEC2\n")
	f.Add(listingHeader + "aws_x\tno\t\t\twhy\n#c\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ParseListings(strings.NewReader(in))
		if err != nil {
			return
		}
		for tf, x := range l {
			if tf == "" || tf != x.TerraformResource || strings.TrimSpace(x.Evidence) == "" {
				t.Errorf("accepted a row without a type or evidence: %+v", x)
			}
			if !x.Listed && (len(x.IndexTypes) > 0 || x.Region != "") {
				t.Errorf("accepted an unlisted row with index types or a region: %+v", x)
			}
		}
	})
}

// TestListingsAgreeWithSources holds the shipped listings to what
// hack/tagsderive -listability read from the Terraform providers' sources
// (testdata/listability-evidence.tsv): where the source is certain, a
// listed type's index type is the one its ARN, asset name or ARM ID is
// built with; a type whose ARN has no region is listed in a home region;
// a type whose ID is a URL, or whose tags field is not its own tags, is
// not listed. Where the source is not certain, the listing's evidence
// stands alone.
func TestListingsAgreeWithSources(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "listability-evidence.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	shipped := map[string]Listings{}
	for _, p := range []string{"aws", "gcp", "azure"} {
		if shipped[p], err = ShippedListings(p); err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "provider\t") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 7 {
			t.Fatalf("%q: %d columns, want 7", line, len(c))
		}
		provider, tf, indexType, global, idForm, tagsOwn := c[0], c[1], c[2], c[3], c[4], c[5]
		x := shipped[provider].Of(tf)
		if (idForm == "url" || tagsOwn == "no") && x.Listed {
			t.Errorf("%s: listed, but its source says its ID is a %s and its tags field is its own: %s (%s)", tf, idForm, tagsOwn, c[6])
		}
		if !x.Listed {
			continue
		}
		checked++
		if global == "yes" && x.Region == "" {
			t.Errorf("%s: its ARN has no region (%s), and the listing names no home region", tf, c[6])
		}
		if global == "no" && x.Region != "" {
			t.Errorf("%s: its ARN has the provider's region (%s), and the listing lists it in %s", tf, c[6], x.Region)
		}
		if indexType == "unknown" || len(x.IndexTypes) == 0 {
			continue
		}
		got := x.IndexTypes[0]
		if provider == "azure" {
			_, got, _ = strings.Cut(got, ":")
		}
		if got != "" && !strings.EqualFold(got, indexType) {
			t.Errorf("%s: listed as %s, its source builds %s (%s)", tf, got, indexType, c[6])
		}
	}
	if checked == 0 {
		t.Error("no listed type was checked against its source")
	}
	t.Logf("%d listed types checked against the sources", checked)
}
