package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
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
	classify := map[string]func(string) result{
		"aws":   func(n string) result { return classifyAWS(awsTree, awsIdx, n, "v") },
		"gcp":   func(n string) result { return classifyGoogle(googleTree, googleIdx, n, "v") },
		"azure": func(n string) result { return classifyAzurerm(azTree, azIdx, n, "v") },
	}
	const awsFile = "internal/service/demo/resources.go:"
	const googleFile = "google/services/demo/resources.go:"
	const azFile = "internal/services/demo/resources.go:"
	tests := []struct {
		provider, resource string
		want               string
		evidence           string // prefix of the evidence
	}{
		{"aws", "aws_demo_request", Request, awsFile + "12 getTagsIn in the create request"},
		{"aws", "aws_demo_after", After, awsFile + "26 createTags call"},
		{"aws", "aws_demo_partition", PartitionFallback, awsFile + "42 IsUnsupportedOperationInPartitionError"},
		{"aws", "aws_demo_unknown", Unknown, "unknown: no tags"},
		{"aws", "aws_demo_interceptor", Unknown, "unknown: Create " + awsFile + "69 sends no tags the scan can see, but " + awsFile + "12 calls getTagsIn"},
		{"aws", "aws_demo_interceptor_after", After, "internal/service/demo/interceptor.go:9 Create sends no tags"},
		{"aws", "aws_demo_helper", Request, awsFile + "80 getTagsIn"},
		{"aws", "aws_demo_framework", Request, awsFile + "96 getTagsIn"},
		{"aws", "aws_default_demo", After, awsFile + "105 aws_default_*"},
		{"aws", "aws_demo_missing", Unknown, "unknown: resource not registered"},
		{"gcp", "google_demo_request", Request, googleFile + "20 obj[\"labels\"]"},
		{"gcp", "google_demo_after", After, googleFile + "34 URL"},
		{"gcp", "google_demo_both", After, googleFile + "47 URL"},
		{"gcp", "google_demo_unknown", Unknown, "unknown: no tags or labels"},
		{"gcp", "google_demo_typed", Request, googleFile + "65 .Labels ="},
		{"gcp", "google_demo_missing", Unknown, "unknown: resource not registered"},
		{"azure", "azurerm_demo_request", Request, azFile + "21 Tags: in the create model"},
		{"azure", "azurerm_demo_after", After, azFile + "32 UpdateTags call"},
		{"azure", "azurerm_demo_unknown", Unknown, "unknown: no tags or labels"},
		{"azure", "azurerm_demo_dns", Request, azFile + "46 Expand in the create request"},
		{"azure", "azurerm_demo_typed", Request, azFile + "59 .Tags = set"},
		{"azure", "azurerm_demo_datasource", Unknown, "unknown: resource not registered"},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			got := classify[tt.provider](tt.resource)
			if diff := cmp.Diff(tt.want, got.Answer); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nevidence: %s", diff, got.Evidence)
			}
			if !strings.HasPrefix(got.Evidence, tt.evidence) {
				t.Errorf("evidence %q, want prefix %q", got.Evidence, tt.evidence)
			}
			if !strings.HasSuffix(got.Evidence, "@v") {
				t.Errorf("evidence %q does not name the source version", got.Evidence)
			}
		})
	}
}

func TestRun(t *testing.T) {
	kinds := filepath.Join(t.TempDir(), "kinds.tsv")
	data := "provider\tterraform_resource\tid_known_before_create\texternal_name_config\ttags_or_labels_field\tdetail\ttags_at_create\n" +
		"aws\taws_demo_request\tK\tx\ttags\t\trequest\n" +
		"aws\taws_demo_notags\tK\tx\t\t\t\n" +
		"gcp\tgoogle_demo_after\tK\tx\tlabels\t\tafter\n" +
		"azure\tazurerm_demo_request\tK\tx\ttags\t\trequest\n"
	if err := os.WriteFile(kinds, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(config{aws: "testdata/aws", google: "testdata/google", azurerm: "testdata/azurerm",
		awsVer: "a", googleVer: "g", azurermVer: "z", kinds: kinds, header: []string{"hello"}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		cols := strings.Split(line, "\t")
		if len(cols) > 3 {
			cols = cols[:3]
		}
		got = append(got, cols)
	}
	want := [][]string{
		{"# hello"},
		{"provider", "terraform_resource", "tags_at_create"},
		{"aws", "aws_demo_request", "request"},
		{"gcp", "google_demo_after", "after"},
		{"azure", "azurerm_demo_request", "request"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
