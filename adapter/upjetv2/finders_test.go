package upjetv2

import (
	"testing"

	"github.com/crossplane/upjet/v2/pkg/config"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestGroupVersionKindOf(t *testing.T) {
	p := &config.Provider{RootGroup: "gcp.upbound.io"}
	cases := map[string]struct {
		reason string
		r      *config.Resource
		want   schema.GroupVersionKind
	}{
		"ShortGroup": {reason: "the short group under the root group, lower-cased", r: &config.Resource{ShortGroup: "DNS", Version: "v1beta1", Kind: "RecordSet"},
			want: schema.GroupVersionKind{Group: "dns.gcp.upbound.io", Version: "v1beta1", Kind: "RecordSet"}},
		"RootGroup": {reason: "no short group: the root group itself", r: &config.Resource{Version: "v1alpha1", Kind: "Network"},
			want: schema.GroupVersionKind{Group: "gcp.upbound.io", Version: "v1alpha1", Kind: "Network"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, GroupVersionKindOf(p, tc.r)); diff != "" {
				t.Errorf("%s\nGroupVersionKindOf: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
