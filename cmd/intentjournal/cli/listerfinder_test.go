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

func TestCloudAssignedOf(t *testing.T) {
	kinds := []schema.GroupVersionKind{
		{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "VPC"},
		{Group: "ec2.aws.m.upbound.io", Version: "v1beta1", Kind: "VPC"},
		{Group: "s3.aws.upbound.io", Version: "v1beta2", Kind: "Bucket"},
		{Group: "example.org", Version: "v1", Kind: "Net"},
	}
	shipped, err := kindsOf("aws", "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[schema.GroupKind]bool{{Group: "ec2.aws.upbound.io", Kind: "VPC"}: true, {Group: "ec2.aws.m.upbound.io", Kind: "VPC"}: true}
	if diff := cmp.Diff(want, cloudAssignedOf(shipped, kinds)); diff != "" {
		t.Errorf("cloudAssignedOf (-want +got):\n%s", diff)
	}
	if got := cloudAssignedOf(nil, kinds); len(got) != 0 {
		t.Errorf("cloudAssignedOf(no kinds) = %v, want none", got)
	}
}

// TestListerFinderTypeFlags: --finder '*=NAME' with no argument gives a
// tag lister to every kind it serves and leaves the others without a
// finder, so that one flag covers a provider family; a kind it does not
// serve, named on its own, and a type that needs an argument still fail
// with a usage error.
func TestListerFinderTypeFlags(t *testing.T) {
	vpc := schema.GroupVersionKind{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "VPC"}
	object := schema.GroupVersionKind{Group: "s3.aws.upbound.io", Version: "v1beta1", Kind: "Object"}
	stranger := schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "Net"}
	kinds := []schema.GroupVersionKind{vpc, object, stranger}
	needsArg := FinderType{Usage: "needs:ARG", Build: func(schema.GroupKind, string, FinderEnv) (recovery.Finder, recovery.Deleter, error) {
		return nil, nil, errors.New("built with no argument")
	}}
	cases := map[string]struct {
		reason    string
		spec      string
		listerErr error
		want      []schema.GroupKind // the kinds given a finder
		wantErr   string
		wantIs    error
		wantCode  int
	}{
		"Star": {reason: "every kind the lister lists gets it; aws_s3_object, which it does not list, and a kind of no provider get none",
			spec: "*=lister", want: []schema.GroupKind{vpc.GroupKind()}},
		"OneKind": {reason: "a kind named on its own needs no argument either",
			spec: "VPC=lister", want: []schema.GroupKind{vpc.GroupKind()}},
		"NamedNotListed": {reason: "a kind the lister does not list, named on its own, is refused before anything runs",
			spec: "Object=lister", wantErr: "does not list aws_s3_object", wantIs: ErrKindNotServed, wantCode: ExitUsage},
		"NamedStranger": {reason: "a kind of no shipped provider, named on its own, needs TYPE",
			spec: "Net=lister", wantErr: "is not a kind of provider-upjet-aws", wantIs: ErrKindNotServed, wantCode: ExitUsage},
		"StarListerFails": {reason: "a lister that cannot be built fails the command under '*' too: it serves no kind, and nothing says so otherwise",
			spec: "*=lister", listerErr: errors.New("no credentials"), wantErr: "cannot build the aws tag lister: no credentials", wantCode: ExitError},
		"ArgRequired": {reason: "a type that takes an argument still refuses none",
			spec: "*=needs", wantErr: "the needs finder needs an argument", wantCode: ExitUsage},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := &fakeLister{}
			types := map[string]FinderType{
				"lister": ListerFinderType("aws", func() (inventory.Lister, error) { return l, tc.listerErr }, SpecScope(inventory.Scope{Region: "us-east-1"})),
				"needs":  needsArg,
			}
			finders, _, err := buildFinders(types, []string{tc.spec}, kinds, FinderEnv{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nbuildFinders(%q): %v, want an error containing %q", tc.reason, tc.spec, err, tc.wantErr)
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("%s\nbuildFinders(%q): %v does not wrap %v", tc.reason, tc.spec, err, tc.wantIs)
				}
				if ExitCode(err) != tc.wantCode {
					t.Errorf("%s\nbuildFinders(%q): exit code %d, want %d", tc.reason, tc.spec, ExitCode(err), tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nbuildFinders(%q): %v", tc.reason, tc.spec, err)
			}
			var got []schema.GroupKind
			for gk := range finders {
				got = append(got, gk)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nkinds given a finder (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestListerFinderAbsence: an empty listing proves that a create made
// nothing only for a kind the kinds say sends its tags in the create
// request; a kind tagged after its create, in some partition only, not
// known to be tagged, or given a type of its own (TYPE) is reported,
// never cleared. A --kinds-file's kinds take the place of the shipped
// ones.
func TestListerFinderAbsence(t *testing.T) {
	kinds, err := inventory.ParseKinds(strings.NewReader("group\tkind\tterraform_resource\tid\tid_template\tname_argument\ttags_at_create\n" +
		"ec2.aws.upbound.io\tVPC\taws_vpc\tC\t\t\trequest\n" +
		"example.org\tLate\taws_vpc\tC\t\t\tafter\n" +
		"example.org\tFallback\taws_vpc\tC\t\t\tpartition-fallback\n" +
		"example.org\tUnknown\taws_vpc\tC\t\t\t\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		gk      schema.GroupKind
		arg     string
		env     FinderEnv
		proven  bool
		wantErr string
	}{
		"ShippedRequest":  {gk: schema.GroupKind{Group: "ec2.aws.upbound.io", Kind: "VPC"}, proven: true},
		"KindsRequest":    {gk: schema.GroupKind{Group: "ec2.aws.upbound.io", Kind: "VPC"}, env: FinderEnv{Kinds: kinds}, proven: true},
		"After":           {gk: schema.GroupKind{Group: "example.org", Kind: "Late"}, env: FinderEnv{Kinds: kinds}},
		"Fallback":        {gk: schema.GroupKind{Group: "example.org", Kind: "Fallback"}, env: FinderEnv{Kinds: kinds}},
		"Unknown":         {gk: schema.GroupKind{Group: "example.org", Kind: "Unknown"}, env: FinderEnv{Kinds: kinds}},
		"GivenType":       {gk: schema.GroupKind{Group: "example.org", Kind: "Net"}, arg: "aws_vpc"},
		"NotInKindsFile":  {gk: schema.GroupKind{Group: "example.org", Kind: "Net"}, env: FinderEnv{Kinds: kinds}, wantErr: "is not a kind of"},
		"ShippedNoLonger": {gk: schema.GroupKind{Group: "ec2.aws.m.upbound.io", Kind: "VPC"}, env: FinderEnv{Kinds: kinds}, wantErr: "is not a kind of"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ft := ListerFinderType("aws", func() (inventory.Lister, error) { return &fakeLister{}, nil }, SpecScope(inventory.Scope{Region: "us-east-1"}))
			f, _, err := ft.Build(tc.gk, tc.arg, tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Build: %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tags := map[string]any{recovery.TagCrossplaneKind: "k", recovery.TagCrossplaneName: "net", recovery.TagCrossplaneProviderConfig: "default"}
			obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": map[string]any{"tags": tags}}}}
			c := &recovery.Candidate{Object: obj, Intent: journal.Intent{Resource: journal.ResourceRef{Kind: tc.gk.Kind, Name: "net"}},
				SpecTags: map[string]string{recovery.TagCrossplaneKind: "k", recovery.TagCrossplaneName: "net", recovery.TagCrossplaneProviderConfig: "default"}}
			why := recovery.AbsenceUnproven(f, c)
			if proven := why == ""; proven != tc.proven {
				t.Errorf("an empty listing proves nothing was made: %t (%q), want %t", proven, why, tc.proven)
			}
		})
	}
}
