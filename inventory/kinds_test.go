package inventory

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const kindHeader = "group\tkind\tterraform_resource\tid\tid_template\tname_argument\ttags_at_create\n"

func TestParseKinds(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    Kinds
		wantErr string
	}{
		"Rows": {
			in: "# comment\n" + kindHeader +
				"ec2.aws.upbound.io\tVPC\taws_vpc\tC\t\t\trequest\n" +
				"route53.aws.m.upbound.io\tRecord\taws_route53_record\tK\t\t\t\n" +
				"s3.aws.upbound.io\tBucket\taws_s3_bucket\tK\t{{ .external_name }}\tbucket\t\n" +
				"dns.gcp.upbound.io\tManagedZone\tgoogle_dns_managed_zone\tK\tprojects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}\t\t\n" +
				"dns.gcp.upbound.io\tRecordSet\tgoogle_dns_record_set\tC\tprojects/{{ .setup.configuration.project }}/managedZones/{{ .parameters.managed_zone }}/rrsets/{{ .parameters.name }}/{{ .parameters.type }}\t\t\n",
			want: Kinds{
				{Group: "ec2.aws.upbound.io", Kind: "VPC"}:          {Group: "ec2.aws.upbound.io", Kind: "VPC", TerraformResource: "aws_vpc", CloudAssigned: true, TagsAtCreate: TagsAtRequest},
				{Group: "route53.aws.m.upbound.io", Kind: "Record"}: {Group: "route53.aws.m.upbound.io", Kind: "Record", TerraformResource: "aws_route53_record"},
				{Group: "s3.aws.upbound.io", Kind: "Bucket"}: {Group: "s3.aws.upbound.io", Kind: "Bucket", TerraformResource: "aws_s3_bucket",
					IDTemplate: "{{ .external_name }}", NameArgument: "bucket"},
				{Group: "dns.gcp.upbound.io", Kind: "ManagedZone"}: {Group: "dns.gcp.upbound.io", Kind: "ManagedZone", TerraformResource: "google_dns_managed_zone",
					IDTemplate: "projects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}"},
				{Group: "dns.gcp.upbound.io", Kind: "RecordSet"}: {Group: "dns.gcp.upbound.io", Kind: "RecordSet", TerraformResource: "google_dns_record_set", CloudAssigned: true,
					IDTemplate: "projects/{{ .setup.configuration.project }}/managedZones/{{ .parameters.managed_zone }}/rrsets/{{ .parameters.name }}/{{ .parameters.type }}"},
			},
		},
		"NoHeader":        {in: "ec2.aws.upbound.io\tVPC\taws_vpc\tC\t\t\t\n", wantErr: "the header is"},
		"TagsAtCreate":    {in: kindHeader + "g\tK\tt\tC\t\t\tsometimes\n", wantErr: `tags_at_create is "sometimes"`},
		"OldHeader":       {in: "group\tkind\tterraform_resource\tid\n", wantErr: "the header is"},
		"Empty":           {in: "# nothing\n", wantErr: "no header line"},
		"Columns":         {in: kindHeader + "ec2.aws.upbound.io\tVPC\taws_vpc\tC\n", wantErr: "4 columns, want 7"},
		"ID":              {in: kindHeader + "ec2.aws.upbound.io\tVPC\taws_vpc\t?\t\t\t\n", wantErr: `id is "?"`},
		"NoType":          {in: kindHeader + "ec2.aws.upbound.io\tVPC\t\tC\t\t\t\n", wantErr: "needs a group, a kind and a Terraform resource type"},
		"Twice":           {in: kindHeader + "g\tK\tt\tC\t\t\t\ng\tK\tu\tK\t\t\t\n", wantErr: "K.g is named twice"},
		"NameArgumentOfC": {in: kindHeader + "g\tK\tt\tC\t\tname\t\n", wantErr: "the cloud assigns its ID"},
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
			{Group: "s3.aws.upbound.io", Kind: "Bucket", TerraformResource: "aws_s3_bucket", IDTemplate: "{{ .external_name }}", NameArgument: "bucket", TagsAtCreate: TagsAfter},
			{Group: "ec2.aws.upbound.io", Kind: "VPC", TerraformResource: "aws_vpc", CloudAssigned: true, TagsAtCreate: TagsAtRequest},
			{Group: "ec2.aws.m.upbound.io", Kind: "VPC", TerraformResource: "aws_vpc", CloudAssigned: true, TagsAtCreate: TagsAtRequest},
			{Group: "route53.aws.upbound.io", Kind: "Record", TerraformResource: "aws_route53_record", CloudAssigned: true},
		}},
		"gcp": {kinds: 2 * 406, probe: []Kind{
			// upjet takes its external name from the provider, but its
			// spec makes its ID (testdata/google-import-ids.tsv).
			{Group: "dns.gcp.upbound.io", Kind: "RecordSet", TerraformResource: "google_dns_record_set", CloudAssigned: true,
				IDTemplate: "projects/{{ if .parameters.project }}{{ .parameters.project }}{{ else }}{{ .setup.configuration.project }}{{ end }}/managedZones/{{ .parameters.managed_zone }}/rrsets/{{ .parameters.name }}/{{ .parameters.type }}"},
			{Group: "compute.gcp.m.upbound.io", Kind: "Network", TerraformResource: "google_compute_network",
				IDTemplate: "projects/{{ .setup.configuration.project }}/global/networks/{{ .external_name }}"},
		}},
		"azure": {kinds: 2 * 767, probe: []Kind{
			{Group: "azure.upbound.io", Kind: "ResourceGroup", TerraformResource: "azurerm_resource_group",
				IDTemplate: "/subscriptions/{{ .setup.configuration.subscription_id }}/resourceGroups/{{ .external_name }}", TagsAtCreate: TagsAtRequest},
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

// TestShippedKindTemplates counts, per provider, the kinds whose ID is
// known before the create and whose template a scan can render: every
// template parses, but for the few that name what upjet's GetIDFn never
// passes (a typo in the provider's configuration), which the shipped
// files list here so that a new one is noticed.
func TestShippedKindTemplates(t *testing.T) {
	refusedTypes := map[string]bool{}
	want := map[string][3]int{ // kinds with a usable template, refused, K kinds without one
		"aws": {594, 2, 140}, "gcp": {454, 4, 4}, "azure": {1170, 8, 28},
	}
	wantRefused := map[string]bool{
		"aws_lightsail_domain_entry": true, "google_sourcerepo_repository": true, "google_spanner_instance": true,
		"azurerm_hpc_cache_access_policy": true, "azurerm_hpc_cache_blob_nfs_target": true, "azurerm_hpc_cache_blob_target": true,
		"azurerm_hpc_cache_nfs_target": true,
	}
	got := map[string][3]int{}
	for provider := range want {
		kinds, err := ShippedKinds(provider)
		if err != nil {
			t.Fatal(err)
		}
		var c [3]int
		for _, k := range kinds {
			if k.CloudAssigned {
				// A template of a kind whose ID the cloud assigns by
				// upjet's configuration reads no external name.
				if x, err := k.ID(); err != nil || x != nil && x.BindsExternalName() {
					t.Errorf("%s.%s: template %q: %v, or it names the external name", k.Kind, k.Group, k.IDTemplate, err)
				}
				continue
			}
			x, err := k.ID()
			switch {
			case k.IDTemplate == "":
				c[2]++
			case err != nil:
				c[1]++
				refusedTypes[k.TerraformResource] = true
			default:
				c[0]++
				if !x.BindsExternalName() && k.NameArgument != "" {
					t.Errorf("%s.%s: a name argument %q, and a template that names no external name", k.Kind, k.Group, k.NameArgument)
				}
			}
		}
		got[provider] = c
	}
	t.Logf("usable templates, refused, K kinds without a template: %v; refused types %v", got, refusedTypes)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRefused, refusedTypes); diff != "" {
		t.Errorf("refused templates' types (-want +got):\n%s", diff)
	}
}

// FuzzParseKinds holds that no input panics the reader, and that what it
// accepts has every kind under its own key, a template only on a kind
// whose ID is known before the create.
func FuzzParseKinds(f *testing.F) {
	f.Add(kindHeader + "s3.aws.upbound.io\tBucket\taws_s3_bucket\tK\t{{ .external_name }}\tbucket\t\n")
	f.Add(kindHeader + "ec2.aws.upbound.io\tVPC\taws_vpc\tC\t\t\t\n")
	f.Add("# c\n" + kindHeader + "g\tK\tt\tK\t{{ .parameters.a }}/{{ .external_name }}\t\t\n")
	f.Fuzz(func(t *testing.T, in string) {
		kinds, err := ParseKinds(strings.NewReader(in))
		if err != nil {
			return
		}
		for key, k := range kinds {
			if key != (KindKey{Group: k.Group, Kind: k.Kind}) {
				t.Fatalf("%v holds %+v", key, k)
			}
			if k.CloudAssigned && k.NameArgument != "" {
				t.Fatalf("%+v: a name argument on a kind the cloud assigns the ID of", k)
			}
			_, _ = k.ID()
		}
	})
}

// TestShippedCoverage counts, per provider and both scopes, the kinds a
// scan of the stock provider can look up with no per-kind flag: at the
// key the kind's ID template renders (--finder '*=terraform'), else by
// the tags its create sent through the cloud's index (the shipped
// listings), and those it cannot. The figures are docs/after-a-crash-
// without-a-rebuild.md's.
func TestShippedCoverage(t *testing.T) {
	// kinds, by key, by tags (not by key), neither: the cloud assigns the
	// ID, neither: a K kind with no usable template
	want := map[string][5]int{
		"aws": {2058, 594, 84, 1238, 142}, "gcp": {812, 506, 2, 296, 8}, "azure": {1534, 1170, 38, 290, 36},
	}
	got := map[string][5]int{}
	for provider := range want {
		kinds, err := ShippedKinds(provider)
		if err != nil {
			t.Fatal(err)
		}
		listings, err := ShippedListings(provider)
		if err != nil {
			t.Fatal(err)
		}
		var c [5]int
		for _, k := range kinds {
			c[0]++
			if x, err := k.ID(); x != nil && err == nil {
				c[1]++
				continue
			}
			if listings.Of(k.TerraformResource).Listed {
				c[2]++
				continue
			}
			if k.CloudAssigned {
				c[3]++
			} else {
				c[4]++
			}
		}
		got[provider] = c
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
