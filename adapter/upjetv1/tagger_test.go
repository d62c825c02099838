package upjetv1

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/pkg/resource/fake"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/intentjournal/intentjournal/recovery"
)

// TestTaggerOptions: the initializers and NewTagger's options choose the
// field and the label encoding that adapter.Tagger is given.
func TestTaggerOptions(t *testing.T) {
	cases := map[string]struct {
		reason string
		got    *Tagger
		want   string
	}{
		"TagInitializer": {
			reason: "upjet's drop-in writes tags as they are",
			got:    TagInitializer(nil).(*Tagger),
			want:   "spec.forProvider.tags",
		},
		"GCPLabelsInitializer": {
			reason: "the GCP drop-in writes labels, encoded for GCP",
			got:    GCPLabelsInitializer(nil).(*Tagger),
			want:   "spec.forProvider.labels, encoded " + recovery.LabelEncodingGCP,
		},
		"NewTaggerOption": {
			reason: "WithTaggerLabelEncoding sets the encoding",
			got:    NewTagger(nil, "userLabels", WithTaggerLabelEncoding(recovery.LabelEncodingGCP)),
			want:   "spec.forProvider.userLabels, encoded " + recovery.LabelEncodingGCP,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got.t.String()); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestTaggerUnknownEncoding: Initialize hands the encoding to adapter.Tag,
// which refuses an unknown one before any write (the nil client would
// panic on one).
func TestTaggerUnknownEncoding(t *testing.T) {
	mg := &fake.Managed{ObjectMeta: metav1.ObjectMeta{Name: "www", UID: "uid-1"}}
	err := NewTagger(nil, "labels", WithTaggerLabelEncoding("gcp")).Initialize(context.Background(), mg)
	if diff := cmp.Diff(recovery.ErrUnknownLabelEncoding, err, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Initialize error: -want +got:\n%s", diff)
	}
}
