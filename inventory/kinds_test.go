package inventory

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const kindHeader = "group\tkind\tterraform_resource\tid\n"

func TestParseKinds(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    Kinds
		wantErr string
	}{
		"Rows": {
			in: "# comment\n" + kindHeader +
				"ec2.aws.upbound.io\tVPC\taws_vpc\tC\n" +
				"route53.aws.m.upbound.io\tRecord\taws_route53_record\tK\n",
			want: Kinds{
				{Group: "ec2.aws.upbound.io", Kind: "VPC"}:          {Group: "ec2.aws.upbound.io", Kind: "VPC", TerraformResource: "aws_vpc", CloudAssigned: true},
				{Group: "route53.aws.m.upbound.io", Kind: "Record"}: {Group: "route53.aws.m.upbound.io", Kind: "Record", TerraformResource: "aws_route53_record"},
			},
		},
		"NoHeader": {in: "ec2.aws.upbound.io\tVPC\taws_vpc\tC\n", wantErr: "the header is"},
		"Empty":    {in: "# nothing\n", wantErr: "no header line"},
		"Columns":  {in: kindHeader + "ec2.aws.upbound.io\tVPC\taws_vpc\n", wantErr: "3 columns, want 4"},
		"ID":       {in: kindHeader + "ec2.aws.upbound.io\tVPC\taws_vpc\t?\n", wantErr: `id is "?"`},
		"NoType":   {in: kindHeader + "ec2.aws.upbound.io\tVPC\t\tC\n", wantErr: "needs a group, a kind and a Terraform resource type"},
		"Twice":    {in: kindHeader + "g\tK\tt\tC\ng\tK\tu\tK\n", wantErr: "K.g is named twice"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseKinds(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseKinds: %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseKinds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShippedKinds: each provider's file parses, holds both scopes of
// its kinds (1,029 AWS, 406 GCP and 767 Azure kinds, as
// testdata/upjet-provider-kinds.tsv counts them), and says of a few what
// that file says: the stock providers configure route53 records and
// Cloud DNS record sets IdentifierFromProvider.
func TestShippedKinds(t *testing.T) {
	cases := map[string]struct {
		kinds int
		probe []Kind
	}{
		"aws": {kinds: 2 * 1029, probe: []Kind{
			{Group: "ec2.aws.upbound.io", Kind: "VPC", TerraformResource: "aws_vpc", CloudAssigned: true},
			{Group: "ec2.aws.m.upbound.io", Kind: "VPC", TerraformResource: "aws_vpc", CloudAssigned: true},
			{Group: "route53.aws.upbound.io", Kind: "Record", TerraformResource: "aws_route53_record", CloudAssigned: true},
		}},
		"gcp": {kinds: 2 * 406, probe: []Kind{
			{Group: "dns.gcp.upbound.io", Kind: "RecordSet", TerraformResource: "google_dns_record_set", CloudAssigned: true},
			{Group: "compute.gcp.m.upbound.io", Kind: "Network", TerraformResource: "google_compute_network"},
		}},
		"azure": {kinds: 2 * 767, probe: []Kind{
			{Group: "azure.upbound.io", Kind: "ResourceGroup", TerraformResource: "azurerm_resource_group"},
		}},
	}
	for provider, tc := range cases {
		t.Run(provider, func(t *testing.T) {
			k, err := ShippedKinds(provider)
			if err != nil {
				t.Fatal(err)
			}
			if len(k) != tc.kinds {
				t.Errorf("%d kinds, want %d", len(k), tc.kinds)
			}
			for _, want := range tc.probe {
				got, ok := k.Of(want.Group, want.Kind)
				if !ok {
					t.Errorf("%s.%s is not shipped", want.Kind, want.Group)
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s.%s (-want +got):\n%s", want.Kind, want.Group, diff)
				}
			}
		})
	}
	if _, err := ShippedKinds("alibaba"); err == nil {
		t.Error("ShippedKinds(alibaba): no error")
	}
}
