package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// fakeLister is an inventory.Lister over a fixed answer; it records the
// queries it was asked. It lists aws_vpc alone.
type fakeLister struct {
	answer  []inventory.Resource
	queries []inventory.Query
}

func (f *fakeLister) List(_ context.Context, q inventory.Query) ([]inventory.Resource, error) {
	f.queries = append(f.queries, q)
	return f.answer, nil
}

func (f *fakeLister) Consistency() inventory.Consistency {
	return inventory.Consistency{ReadAfterWrite: true}
}

func (f *fakeLister) Listing(tf string) inventory.Listing {
	return inventory.Listing{TerraformResource: tf, Listed: tf == "aws_vpc", Evidence: "the fake lists aws_vpc alone"}
}

func TestListerFinderType(t *testing.T) {
	vpc := schema.GroupKind{Group: "ec2.aws.m.upbound.io", Kind: "VPC"}
	arn := "arn:aws:ec2:eu-west-1:123456789012:vpc/vpc-0abc"
	tags := map[string]string{recovery.TagCrossplaneKind: "vpc.ec2.aws.m.upbound.io", recovery.TagCrossplaneName: "net", recovery.TagCrossplaneProviderConfig: "default"}
	cases := map[string]struct {
		reason    string
		gk        schema.GroupKind
		arg       string
		buildErr  error
		wantErr   string
		wantQuery inventory.Query
	}{
		"ShippedKind": {reason: "a stock kind needs no TYPE: the shipped kinds give aws_vpc", gk: vpc,
			wantQuery: inventory.Query{TerraformResource: "aws_vpc", Tags: tags, Scope: inventory.Scope{Region: "eu-west-1", Account: "123456789012"}}},
		"GivenType": {reason: "TYPE names the type of a kind no provider ships", gk: schema.GroupKind{Group: "example.org", Kind: "Net"}, arg: "aws_vpc",
			wantQuery: inventory.Query{TerraformResource: "aws_vpc", Tags: tags, Scope: inventory.Scope{Region: "eu-west-1", Account: "123456789012"}}},
		"UnknownKind": {reason: "a kind no provider ships needs TYPE", gk: schema.GroupKind{Group: "example.org", Kind: "Net"},
			wantErr: "is not a kind of provider-upjet-aws"},
		"NotListed": {reason: "a type the lister does not list is refused: its empty answer would prove nothing", gk: schema.GroupKind{Group: "s3.aws.upbound.io", Kind: "Object"},
			wantErr: "does not list aws_s3_object"},
		"ListerFails": {reason: "a lister that cannot be built fails the kind", gk: vpc, buildErr: errors.New("no credentials"),
			wantErr: "cannot build the aws tag lister: no credentials"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := &fakeLister{answer: []inventory.Resource{{Identifier: arn, Tags: tags}}}
			ft := ListerFinderType("aws", func() (inventory.Lister, error) { return l, tc.buildErr },
				SpecScope(inventory.Scope{Region: "us-east-1", Account: "123456789012"}))
			f, d, err := ft.Build(tc.gk, tc.arg, FinderEnv{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nBuild: %v, want an error containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nBuild: %v", tc.reason, err)
			}
			if d != nil {
				t.Errorf("%s\na tag lister deletes nothing, got a Deleter", tc.reason)
			}
			c := &recovery.Candidate{
				GVK:    tc.gk.WithVersion("v1beta1"),
				Intent: journal.Intent{Resource: journal.ResourceRef{Kind: tc.gk.Kind, Name: "net"}, LookupKeys: tags},
				Object: &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": map[string]any{"region": "eu-west-1"}}}},
			}
			got, err := f.Find(context.Background(), c)
			if err != nil {
				t.Fatalf("%s\nFind: %v", tc.reason, err)
			}
			want := []recovery.ExternalResource{{ID: arn, Tags: tags, Listed: true, MatchedByTags: true}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nFind (-want +got):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]inventory.Query{tc.wantQuery}, l.queries); diff != "" {
				t.Errorf("%s\nqueries (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestShippedCloudAssigned(t *testing.T) {
	kinds := []schema.GroupVersionKind{
		{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "VPC"},
		{Group: "ec2.aws.m.upbound.io", Version: "v1beta1", Kind: "VPC"},
		{Group: "s3.aws.upbound.io", Version: "v1beta2", Kind: "Bucket"},
		{Group: "example.org", Version: "v1", Kind: "Net"},
	}
	got, err := shippedCloudAssigned("aws", kinds)
	if err != nil {
		t.Fatal(err)
	}
	want := map[schema.GroupKind]bool{{Group: "ec2.aws.upbound.io", Kind: "VPC"}: true, {Group: "ec2.aws.m.upbound.io", Kind: "VPC"}: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shippedCloudAssigned (-want +got):\n%s", diff)
	}
	if _, err := shippedCloudAssigned("alibaba", kinds); err == nil || !strings.Contains(err.Error(), "--provider") {
		t.Errorf("shippedCloudAssigned(alibaba): %v, want a --provider error", err)
	}
}
