package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListability(t *testing.T) {
	awsTree, err := parseTree("testdata/aws", "internal", true)
	if err != nil {
		t.Fatal(err)
	}
	googleTree, err := parseTree("testdata/google", "google/services", false)
	if err != nil {
		t.Fatal(err)
	}
	azTree, err := parseTree("testdata/azurerm", "internal/services", false)
	if err != nil {
		t.Fatal(err)
	}
	awsIdx, googleIdx, azIdx := indexAWS(awsTree), indexGoogle(googleTree), indexAzurerm(azTree)
	consts := newAWSConsts("testdata/awsnames/names", "testdata/awssdk")
	res := &azureIDResolver{t: azTree, vendor: "testdata/azvendor", mod: "github.com/hashicorp/terraform-provider-azurerm", dirs: map[string]*pkg{}}
	list := map[string]func(string, string) listRow{
		"aws":   func(n, _ string) listRow { return listAWS(awsTree, awsIdx, consts, n, "v") },
		"gcp":   func(n, f string) listRow { return listGoogle(googleTree, googleIdx, n, f) },
		"azure": func(n, _ string) listRow { return listAzurerm(azTree, azIdx, res, n) },
	}
	const awsFile = "internal/service/list/resources.go:"
	const googleFile = "google/services/list/resources.go:"
	const azFile = "internal/services/list/resources.go:"
	tests := []struct {
		provider, resource, field string
		want                      [4]string // index_type, global, id_form, tags_own
		evidence                  []string  // substrings of the evidence
	}{
		{"aws", "aws_list_vpc", "tags", [4]string{"ec2:vpc", No, IDAPI, Yes},
			[]string{"index_type: internal/service/list/read.go:9 arn.ARN{Service: ec2 (names.EC2 at names/consts_gen.go:4)", "id_form: " + awsFile + "17 ID set from response field VpcId", "tags_own: " + awsFile + "15 "}},
		{"aws", "aws_list_zone", "tags", [4]string{"route53:hostedzone", Yes, Unknown, Yes},
			[]string{"global: " + awsFile + "34 arn.ARN built without a Region"}},
		{"aws", "aws_list_queue", "tags", [4]string{Unknown, Unknown, IDURL, Yes},
			[]string{"index_type: " + awsFile + "56 arn attribute set from a value not built", "id_form: " + awsFile + "51 ID set from response field QueueUrl"}},
		{"aws", "aws_list_group", "tags", [4]string{Unknown, Unknown, IDArn, No},
			[]string{"tags_own: " + awsFile + "67 the tags map is sent as ResourceGroupTags"}},
		{"aws", "aws_list_host", "tags", [4]string{"ec2:dedicated-host", No, IDAPI, Yes},
			[]string{"ec2.ServiceName at aws-sdk-go/service/ec2/service.go:4"}},
		{"aws", "aws_list_nested", "tags", [4]string{Unknown, No, Unknown, Yes},
			[]string{"resource type is not certain"}},
		{"aws", "aws_list_missing", "tags", [4]string{Unknown, Unknown, Unknown, Unknown}, []string{"not registered"}},
		{"azure", "azurerm_list_widget", "tags", [4]string{"microsoft.demo/widgets", NotApp, IDArm, Yes},
			[]string{"index_type: " + azFile + "21 NewWidgetID builds the ID set at " + azFile + "26; its ARM type is at internal/services/list/parse/widget.go:12", "tags_own: " + azFile + "22 Tags:"}},
		{"azure", "azurerm_list_secret", "tags", [4]string{Unknown, NotApp, Unknown, Yes}, []string{"no d.SetId(id.ID())"}},
		{"azure", "azurerm_list_parent", "tags", [4]string{Unknown, NotApp, Unknown, Unknown}, []string{"NewCertID not resolved"}},
		{"azure", "azurerm_list_slot", "tags", [4]string{"microsoft.web/sites/slots", NotApp, IDArm, Yes},
			[]string{"its ARM type is at vendor/github.com/hashicorp/go-azure-sdk/resource-manager/web/2023-12-01/webapps/id_slot.go:18", "metadata.SetID(id)"}},
		{"gcp", "google_list_network", "labels", [4]string{"compute.googleapis.com/Network", NotApp, IDPath, Yes},
			[]string{"index_type: " + googleFile + "15 create URL {{ComputeBasePath}}projects/{{project}}/global/networks, the product's BaseUrl https://compute.googleapis.com/compute/v1/ at google/services/list/product.go:5", "tags_own: " + googleFile + "14 obj[\"labels\"]"}},
		{"gcp", "google_list_policy", "userLabels", [4]string{"compute.googleapis.com/AlertPolicy", NotApp, Unknown, Yes}, []string{`BaseUrl(Product, config)+"projects/{{project}}/alertPolicies?policyId={{name}}"`}},
		{"gcp", "google_list_template", "labels", [4]string{"compute.googleapis.com/InstanceTemplate", NotApp, Unknown, No},
			[]string{"tags_own: " + googleFile + "45 instanceProperties.Labels set in a InstanceProperties"}},
		{"gcp", "google_list_client", "labels", [4]string{Unknown, NotApp, Unknown, Unknown}, []string{"a client library call"}},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			got := list[tt.provider](tt.resource, tt.field)
			if diff := cmp.Diff(tt.want, [4]string{got.IndexType, got.Global, got.IDForm, got.TagsOwn}); diff != "" {
				t.Errorf("row (-want +got):\n%s\nevidence: %q", diff, got.Evidence)
			}
			ev := strings.Join(got.Evidence, "; ")
			for _, s := range tt.evidence {
				if !strings.Contains(ev, s) {
					t.Errorf("evidence %q lacks %q", ev, s)
				}
			}
		})
	}
}

func TestResourceType(t *testing.T) {
	for _, tt := range []struct{ prefix, want string }{
		{"vpc/\x00", "vpc"},
		{"log-group:\x00", "log-group"},
		{"/restapis/\x00", "/restapis"},
		{"\x00", ""},
		{"root", ""},
	} {
		if got := resourceType(tt.prefix); got != tt.want {
			t.Errorf("resourceType(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
	for _, tt := range []struct{ col, want string }{
		{"networks", "Network"}, {"alertPolicies", "AlertPolicy"}, {"addresses", ""}, {"access", ""}, {"{{name}}", ""},
	} {
		if got := assetKind(tt.col); got != tt.want {
			t.Errorf("assetKind(%q) = %q, want %q", tt.col, got, tt.want)
		}
	}
	if got := armTypeFromFormat("Microsoft.Web/sites/%s/slots/%s"); got != "microsoft.web/sites/slots" {
		t.Errorf("armTypeFromFormat = %q", got)
	}
}

func TestRunListability(t *testing.T) {
	kinds := filepath.Join(t.TempDir(), "kinds.tsv")
	data := "provider\tterraform_resource\tid_known_before_create\texternal_name_config\ttags_or_labels_field\tdetail\ttags_at_create\n" +
		"aws\taws_list_vpc\tC\tx\ttags\t\t\n" +
		"aws\taws_list_zone\tK\tx\ttags\t\t\n" +
		"aws\taws_list_queue\tC\tx\t\t\t\n" +
		"gcp\tgoogle_list_network\tC\tx\tlabels\t\t\n" +
		"azure\tazurerm_list_widget\tC\tx\ttags\t\t\n"
	if err := os.WriteFile(kinds, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := runListability(config{aws: "testdata/aws", google: "testdata/google", azurerm: "testdata/azurerm",
		awsVer: "a", googleVer: "g", azurermVer: "z", kinds: kinds, header: []string{"hello"},
		list: listConfig{awsNames: "testdata/awsnames/names", awsSDKv1: "testdata/awssdk", azureVend: "testdata/azvendor", azurermMod: "github.com/hashicorp/terraform-provider-azurerm"}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		cols := strings.Split(line, "\t")
		if len(cols) == 7 && !strings.HasSuffix(cols[6], " @"+map[string]string{"aws": "a", "gcp": "g", "azure": "z", "provider": "evidence"}[cols[0]]) && cols[0] != "provider" {
			t.Errorf("evidence %q does not name the version", cols[6])
		}
		if len(cols) > 6 {
			cols = cols[:6]
		}
		got = append(got, cols)
	}
	want := [][]string{
		{"# hello"},
		{"provider", "terraform_resource", "index_type", "global", "id_form", "tags_own"},
		{"aws", "aws_list_vpc", "ec2:vpc", "no", "api-id", "yes"},
		{"gcp", "google_list_network", "compute.googleapis.com/Network", "-", "path", "yes"},
		{"azure", "azurerm_list_widget", "microsoft.demo/widgets", "-", "arm-id", "yes"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
