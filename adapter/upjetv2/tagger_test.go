package upjetv2

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/intentjournal/intentjournal/recovery"
)

// TestTaggerOptions: the initializers and NewTagger's options choose the
// field and the label encoding that adapter.Tag is given.
func TestTaggerOptions(t *testing.T) {
	type tagger struct{ Field, Encoding string }
	cases := map[string]struct {
		reason string
		got    *Tagger
		want   tagger
	}{
		"TagInitializer": {
			reason: "upjet's drop-in writes tags as they are",
			got:    TagInitializer(nil).(*Tagger),
			want:   tagger{Field: DefaultTagsField},
		},
		"GCPLabelsInitializer": {
			reason: "the GCP drop-in writes labels, encoded for GCP",
			got:    GCPLabelsInitializer(nil).(*Tagger),
			want:   tagger{Field: "labels", Encoding: recovery.LabelEncodingGCP},
		},
		"NewTaggerOption": {
			reason: "WithTaggerLabelEncoding sets the encoding",
			got:    NewTagger(nil, "userLabels", WithTaggerLabelEncoding(recovery.LabelEncodingGCP)),
			want:   tagger{Field: "userLabels", Encoding: recovery.LabelEncodingGCP},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tagger{Field: tc.got.field, Encoding: tc.got.encoding}); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestTaggerUnknownEncoding: Initialize hands the encoding to adapter.Tag,
// which refuses an unknown one before any write (the nil client would
// panic on one).
func TestTaggerUnknownEncoding(t *testing.T) {
	mg := &fake.ModernManaged{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "www", UID: "uid-1"}}
	err := NewTagger(nil, "labels", WithTaggerLabelEncoding("gcp")).Initialize(context.Background(), mg)
	if diff := cmp.Diff(recovery.ErrUnknownLabelEncoding, err, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Initialize error: -want +got:\n%s", diff)
	}
}

// typedManaged is a managed resource of a Terraform resource type.
type typedManaged struct {
	*fake.ModernManaged
	tf string
}

func (m *typedManaged) GetTerraformResourceType() string { return m.tf }

// TestTaggerLeavesSelectorsAlone: a kind whose tags field is not its own
// tags (aws_inspector_resource_group's select instances) is not tagged:
// Initialize returns before any write (the nil client would panic on
// one); any other kind reaches adapter.Tag (here refused for its unknown
// encoding, before a write).
func TestTaggerLeavesSelectorsAlone(t *testing.T) {
	for tf, wantErr := range map[string]error{
		"aws_inspector_resource_group":     nil,
		"google_compute_instance_template": nil,
		"aws_vpc":                          recovery.ErrUnknownLabelEncoding,
	} {
		t.Run(tf, func(t *testing.T) {
			mg := &typedManaged{&fake.ModernManaged{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "www", UID: "uid-1"}}, tf}
			err := NewTagger(nil, "tags", WithTaggerLabelEncoding("unknown")).Initialize(context.Background(), mg)
			if diff := cmp.Diff(wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("Initialize error: -want +got:\n%s", diff)
			}
		})
	}
}
