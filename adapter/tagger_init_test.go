package adapter

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// typedObject is a managed resource of a Terraform resource type.
type typedObject struct {
	*unstructured.Unstructured
	tf string
}

func (o *typedObject) GetTerraformResourceType() string { return o.tf }

// TestTaggerInitialize: the Tagger writes the line's crossplane tags, the
// three keys upjet's tagger always writes, and the UID, with one Update;
// it writes nothing for an observe-only resource or a kind whose tags
// field is not its own.
func TestTaggerInitialize(t *testing.T) {
	const uid = "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c"
	lineTags := func(client.Object) map[string]string {
		return map[string]string{recovery.TagCrossplaneName: "www", "crossplane-namespace": "team-a"}
	}
	cases := map[string]struct {
		reason      string
		tf          string
		observeOnly bool
		want        map[string]any // spec.forProvider.tags; nil: no Update
	}{
		"Tags": {
			reason: "the line's tags, the three keys upjet always writes, and the UID",
			tf:     "aws_vpc",
			want: map[string]any{
				recovery.TagCrossplaneName: "www", "crossplane-namespace": "team-a",
				recovery.TagCrossplaneKind: "", recovery.TagCrossplaneProviderConfig: "",
				recovery.TagUID: uid,
			},
		},
		"ObserveOnly": {
			reason:      "upjet's tagger leaves a resource crossplane only observes alone",
			tf:          "aws_vpc",
			observeOnly: true,
		},
		"SelectorNotTags": {
			reason: "aws_inspector_resource_group's tags select instances: left as the user wrote them",
			tf:     "aws_inspector_resource_group",
		},
		"TemplateLabels": {
			reason: "google_compute_instance_template's labels are its instances'",
			tf:     "google_compute_instance_template",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "ec2.aws.upbound.io/v1beta1", "kind": "VPC",
				"metadata": map[string]any{"name": "www"},
				"spec":     map[string]any{"forProvider": map[string]any{}},
			}}
			u.SetUID(types.UID(uid))
			kube := &updateRecorder{}
			err := NewTagger(kube, DefaultTagsField, lineTags).Initialize(context.Background(), &typedObject{u, tc.tf}, tc.observeOnly)
			if err != nil {
				t.Fatalf("%s\nInitialize: %v", tc.reason, err)
			}
			if tc.want == nil {
				if len(kube.updated) != 0 {
					t.Errorf("%s\nInitialize made %d Updates, want none", tc.reason, len(kube.updated))
				}
				return
			}
			if len(kube.updated) != 1 {
				t.Fatalf("%s\nInitialize made %d Updates, want 1", tc.reason, len(kube.updated))
			}
			got, _, _ := unstructured.NestedMap(u.Object, "spec", "forProvider", "tags")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nspec.forProvider.tags: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestTaggerString: String names the field and the encoding.
func TestTaggerString(t *testing.T) {
	for want, tg := range map[string]*Tagger{
		"spec.forProvider.tags": NewTagger(nil, DefaultTagsField, nil),
		"spec.forProvider.labels, encoded " + recovery.LabelEncodingGCP: NewTagger(nil, GCPLabelsField, nil, WithLabelEncoding(recovery.LabelEncodingGCP)),
	} {
		if got := tg.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
