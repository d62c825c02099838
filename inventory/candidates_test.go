package inventory

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCandidates(t *testing.T) {
	cases := map[string]struct {
		id   string
		want []string
	}{
		"ARNWithSlash":   {id: "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-0abc", want: []string{"arn:aws:ec2:us-east-1:123456789012:vpc/vpc-0abc", "vpc/vpc-0abc", "vpc-0abc"}},
		"ARNWithColon":   {id: "arn:aws:lambda:us-east-1:123456789012:function:my-fn", want: []string{"arn:aws:lambda:us-east-1:123456789012:function:my-fn", "function:my-fn", "my-fn"}},
		"ARNPlain":       {id: "arn:aws:s3:::my-bucket", want: []string{"arn:aws:s3:::my-bucket", "my-bucket"}},
		"ARNNested":      {id: "arn:aws:eks:us-east-1:123456789012:podidentityassociation/c1/a-1", want: []string{"arn:aws:eks:us-east-1:123456789012:podidentityassociation/c1/a-1", "podidentityassociation/c1/a-1", "a-1"}},
		"GCPFullName":    {id: "//compute.googleapis.com/projects/p/global/networks/n", want: []string{"//compute.googleapis.com/projects/p/global/networks/n", "projects/p/global/networks/n", "n"}},
		"ARMID":          {id: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v", want: []string{"/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v", "v"}},
		"PlainName":      {id: "vpc-0abc", want: []string{"vpc-0abc"}},
		"TrailingSlash":  {id: "a/b/", want: []string{"a/b/"}},
		"Empty":          {id: "", want: nil},
		"ShortARN":       {id: "arn:aws:s3", want: []string{"arn:aws:s3"}},
		"GCPServiceOnly": {id: "//compute.googleapis.com", want: []string{"//compute.googleapis.com"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Candidates(tc.id)); diff != "" {
				t.Errorf("Candidates(%q) (-want +got):\n%s", tc.id, diff)
			}
		})
	}
}

// FuzzCandidates: any identifier gives itself first, no empty and no
// repeated candidate, never a panic.
func FuzzCandidates(f *testing.F) {
	for _, s := range []string{"arn:aws:ec2:us-east-1:1:vpc/vpc-1", "//compute.googleapis.com/projects/p/n", "/subscriptions/s/x", "", "arn:::::", "//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		got := Candidates(id)
		if id != "" && (len(got) == 0 || got[0] != id) {
			t.Fatalf("Candidates(%q) = %q: the identifier itself must come first", id, got)
		}
		seen := map[string]bool{}
		for _, c := range got {
			if c == "" || seen[c] {
				t.Fatalf("Candidates(%q) = %q: an empty or repeated candidate", id, got)
			}
			seen[c] = true
		}
	})
}

func TestSameResource(t *testing.T) {
	cases := []struct {
		listed, observed string
		want             bool
	}{
		{"arn:aws:ec2:eu-west-1:1:vpc/vpc-1", "arn:aws:ec2:eu-west-1:1:vpc/vpc-1", true},
		{"arn:aws:ec2:eu-west-1:1:vpc/vpc-1", "arn:aws:ec2:eu-west-1:1:vpc/VPC-1", false},
		{"arn:aws:ec2:eu-west-1:1:vpc/vpc-1", "vpc-1", false},
		{"/subscriptions/s/resourceGroups/G/providers/Microsoft.Network/virtualNetworks/v", "/subscriptions/s/resourcegroups/g/providers/microsoft.network/virtualnetworks/v", true},
		{"/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/v", "/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/w", false},
		{"//compute.googleapis.com/projects/p/global/networks/n", "projects/p/global/networks/n", true},
		{"//compute.googleapis.com/projects/p/global/networks/n", "https://www.googleapis.com/compute/v1/projects/p/global/networks/n", true},
		{"//dns.googleapis.com/projects/p/managedZones/z", "https://dns.googleapis.com/dns/v1/projects/p/managedZones/z", true},
		{"//compute.googleapis.com/projects/p/global/networks/n", "https://evil.example.com/compute/v1/projects/p/global/networks/n", false},
		{"//compute.googleapis.com/projects/p/global/networks/n", "https://www.googleapis.com/compute/v1/projects/other/projects/p/global/networks/n", false},
		{"//compute.googleapis.com/projects/p/global/networks/n", "projects/p/global/networks/m", false},
		{"", "", false},
		{"x", "", false},
	}
	for _, tc := range cases {
		if got := SameResource(tc.listed, tc.observed); got != tc.want {
			t.Errorf("SameResource(%q, %q) = %t, want %t", tc.listed, tc.observed, got, tc.want)
		}
	}
}
