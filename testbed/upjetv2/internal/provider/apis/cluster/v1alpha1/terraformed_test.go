package v1alpha1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
)

func TestRecordSetTerraformed(t *testing.T) {
	rs := func() *RecordSet {
		r := &RecordSet{}
		r.SetName("www")
		r.Spec.ForProvider = RecordSetParameters{
			Zone:    ptr.To("example-com"),
			Name:    ptr.To("www"),
			Type:    ptr.To("A"),
			Rrdatas: []*string{ptr.To("192.0.2.1")},
			Tags:    map[string]*string{"crossplane-name": ptr.To("www")},
		}
		r.Spec.InitProvider = RecordSetInitParameters{TTL: ptr.To(60.0), Type: ptr.To("CNAME")}
		return r
	}
	cases := map[string]struct {
		reason string
		run    func(*RecordSet) (any, error)
		want   any
	}{
		"GetParameters": {
			reason: "Parameters should be keyed by Terraform attribute names.",
			run:    func(r *RecordSet) (any, error) { return r.GetParameters() },
			want: map[string]any{
				"zone": "example-com", "name": "www", "type": "A",
				"rrdatas": []any{"192.0.2.1"}, "tags": map[string]any{"crossplane-name": "www"},
			},
		},
		"GetMergedParameters": {
			reason: "initProvider should fill gaps in forProvider but never overwrite it.",
			run:    func(r *RecordSet) (any, error) { return r.GetMergedParameters(true) },
			want: map[string]any{
				"zone": "example-com", "name": "www", "type": "A", "ttl": float64(60),
				"rrdatas": []any{"192.0.2.1"}, "tags": map[string]any{"crossplane-name": "www"},
			},
		},
		"SetObservationGetID": {
			reason: "The Terraform ID in the observation should be the resource's ID.",
			run: func(r *RecordSet) (any, error) {
				err := r.SetObservation(map[string]any{"id": "rs-0123456789abcdef", "ttl": 300})
				return r.GetID(), err
			},
			want: "rs-0123456789abcdef",
		},
		"LateInitialize": {
			reason: "Late-initialization should fill the unset ttl from the observed state and report a spec change.",
			run: func(r *RecordSet) (any, error) {
				changed, err := r.LateInitialize([]byte(`{"zone":"example-com","name":"www","type":"A","ttl":300,"rrdatas":["192.0.2.1"]}`))
				return []any{changed, r.Spec.ForProvider.TTL}, err
			},
			want: []any{true, ptr.To(300.0)},
		},
		"ResourceType": {
			reason: "RecordSet should be backed by fakecloud_record_set.",
			run:    func(r *RecordSet) (any, error) { return r.GetTerraformResourceType(), nil },
			want:   "fakecloud_record_set",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.run(rs())
			if err != nil {
				t.Fatalf("%s\nunexpected error: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestNetworkTerraformed(t *testing.T) {
	n := &Network{}
	n.Spec.ForProvider = NetworkParameters{Name: ptr.To("vpc"), CidrBlock: ptr.To("10.0.0.0/16")}
	got, err := n.GetParameters()
	if err != nil {
		t.Fatalf("GetParameters(): %v", err)
	}
	want := map[string]any{"name": "vpc", "cidr_block": "10.0.0.0/16"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetParameters() should use Terraform attribute names; -want, +got:\n%s", diff)
	}
	if err := n.SetObservation(map[string]any{"id": "net-1", "cidr_block": "10.0.0.0/16"}); err != nil {
		t.Fatalf("SetObservation(): %v", err)
	}
	if diff := cmp.Diff("net-1", n.GetID()); diff != "" {
		t.Errorf("GetID(): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff("fakecloud_network", n.GetTerraformResourceType()); diff != "" {
		t.Errorf("GetTerraformResourceType(): -want, +got:\n%s", diff)
	}
}
