package scan

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

func TestDiscoverKinds(t *testing.T) {
	managed := []string{"crossplane", "managed", "aws"}
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "ec2.aws.upbound.io/v1beta1", APIResources: []metav1.APIResource{
			{Name: "vpcs", Kind: "VPC", Categories: managed, Verbs: metav1.Verbs{"get", "list", "patch"}},
			{Name: "vpcs/status", Kind: "VPC", Categories: managed, Verbs: metav1.Verbs{"get", "patch"}},
			{Name: "subnets", Kind: "Subnet", Categories: managed, Verbs: metav1.Verbs{"get", "list"}},
		}},
		{GroupVersion: "ec2.aws.m.upbound.io/v1beta1", APIResources: []metav1.APIResource{
			{Name: "vpcs", Kind: "VPC", Namespaced: true, Categories: managed, Verbs: metav1.Verbs{"get", "list"}},
		}},
		{GroupVersion: "aws.upbound.io/v1beta1", APIResources: []metav1.APIResource{
			{Name: "providerconfigs", Kind: "ProviderConfig", Categories: []string{"crossplane", "provider", "aws"}, Verbs: metav1.Verbs{"get", "list"}},
		}},
		{GroupVersion: "route53.aws.upbound.io/v1beta1", APIResources: []metav1.APIResource{
			{Name: "records", Kind: "Record", Categories: managed, Verbs: metav1.Verbs{"get"}},
			{Name: "zones", Kind: "Zone", Categories: managed, Verbs: metav1.Verbs{"get", "list"}},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Kind: "Deployment", Namespaced: true, Categories: []string{"all"}, Verbs: metav1.Verbs{"get", "list"}},
		}},
	}}}
	kind := func(gv, kind, resource string, namespaced bool) Kind {
		return Kind{GVK: schema.FromAPIVersionAndKind(gv, kind), Resource: resource, Namespaced: namespaced}
	}
	cases := map[string]struct {
		reason  string
		groups  []string
		want    []Kind
		wantErr error
	}{
		"OneGroup": {
			reason: "A group's listable managed kinds; no subresource.",
			groups: []string{"ec2.aws.upbound.io"},
			want: []Kind{kind("ec2.aws.upbound.io/v1beta1", "Subnet", "subnets.ec2.aws.upbound.io", false),
				kind("ec2.aws.upbound.io/v1beta1", "VPC", "vpcs.ec2.aws.upbound.io", false)},
		},
		"Family": {
			reason: "*.suffix names every group of a provider family, both scopes; the provider config is no managed kind, nor is a kind that cannot be listed.",
			groups: []string{"*.aws.upbound.io", "*.aws.m.upbound.io"},
			want: []Kind{kind("ec2.aws.m.upbound.io/v1beta1", "VPC", "vpcs.ec2.aws.m.upbound.io", true),
				kind("ec2.aws.upbound.io/v1beta1", "Subnet", "subnets.ec2.aws.upbound.io", false),
				kind("ec2.aws.upbound.io/v1beta1", "VPC", "vpcs.ec2.aws.upbound.io", false),
				kind("route53.aws.upbound.io/v1beta1", "Zone", "zones.route53.aws.upbound.io", false)},
		},
		"Overlap": {
			reason: "A kind two patterns name is listed once.",
			groups: []string{"route53.aws.upbound.io", "*.aws.upbound.io"},
			want: []Kind{kind("ec2.aws.upbound.io/v1beta1", "Subnet", "subnets.ec2.aws.upbound.io", false),
				kind("ec2.aws.upbound.io/v1beta1", "VPC", "vpcs.ec2.aws.upbound.io", false),
				kind("route53.aws.upbound.io/v1beta1", "Zone", "zones.route53.aws.upbound.io", false)},
		},
		"NoManagedKind": {
			reason: "A group with no managed kind adds nothing.",
			groups: []string{"apps"},
		},
		"Typo": {
			reason:  "A pattern that names no group is an error: a typo must not scan nothing.",
			groups:  []string{"ec2.aws.upbound.oi"},
			wantErr: ErrNoGroup,
		},
		"SuffixIsNotAGroup": {
			reason:  "*.aws.upbound.io does not name aws.upbound.io itself.",
			groups:  []string{"*.upbound.io.x"},
			wantErr: ErrNoGroup,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := DiscoverKinds(d, tc.groups)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s\nDiscoverKinds(%q): error %v, want %v", tc.reason, tc.groups, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nDiscoverKinds(%q) (-want +got):\n%s", tc.reason, tc.groups, diff)
			}
		})
	}
}
