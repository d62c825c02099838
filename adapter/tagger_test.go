package adapter

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// TestTagValues: the map Tag writes, with and without the UID, and
// encoded for GCP labels.
func TestTagValues(t *testing.T) {
	const uid = "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c"
	tags := map[string]string{
		recovery.TagCrossplaneKind:               "recordset.dns.gcp.upbound.io",
		recovery.TagCrossplaneName:               "www.example",
		recovery.TagCrossplaneProviderConfig:     "default",
		recovery.TagCrossplaneNamespace:          "team-a",
		recovery.TagCrossplaneProviderConfigKind: "ClusterProviderConfig",
	}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	gcp := map[string]string{
		recovery.TagCrossplaneKind:               "recordset_dns_gcp_upbound_io",
		recovery.TagCrossplaneName:               "www_example",
		recovery.TagCrossplaneProviderConfig:     "default",
		recovery.TagCrossplaneNamespace:          "team-a",
		recovery.TagCrossplaneProviderConfigKind: "clusterproviderconfig",
	}
	cases := map[string]struct {
		reason   string
		tags     map[string]string
		withUID  bool
		encoding string
		want     map[string]string
		err      error
	}{
		"Raw": {
			reason:  "no encoding writes the values as they are, with the UID",
			tags:    tags,
			withUID: true,
			want:    with(tags, recovery.TagUID, uid),
		},
		"RawNoUID": {
			reason: "an unresolved incomplete create gets no UID tag",
			tags:   tags,
			want:   tags,
		},
		"GCP": {
			reason:   "the GCP encoding encodes every value, the UID's too (a UID encodes to itself)",
			tags:     tags,
			withUID:  true,
			encoding: recovery.LabelEncodingGCP,
			want:     with(gcp, recovery.TagUID, uid),
		},
		"GCPNoUID": {
			reason:   "the GCP encoding without the UID",
			tags:     tags,
			encoding: recovery.LabelEncodingGCP,
			want:     gcp,
		},
		"NilTags": {
			reason:  "no tags: the UID alone",
			withUID: true,
			want:    map[string]string{recovery.TagUID: uid},
		},
		"Unknown": {
			reason:   "an unknown encoding is an error",
			tags:     tags,
			withUID:  true,
			encoding: "gcp",
			err:      recovery.ErrUnknownLabelEncoding,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := maps.Clone(tc.tags)
			got, err := tagValues(tc.tags, uid, tc.withUID, tc.encoding)
			if diff := cmp.Diff(tc.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\ntagValues error: -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ntagValues: -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, tc.tags); diff != "" {
				t.Errorf("%s\ntagValues changed its argument: -before +after:\n%s", tc.reason, diff)
			}
		})
	}
}

// updateRecorder is a client whose only method is Update: it records what
// Tag writes. Any other call panics.
type updateRecorder struct {
	client.Client
	updated []client.Object
}

func (r *updateRecorder) Update(_ context.Context, obj client.Object, _ ...client.UpdateOption) error {
	r.updated = append(r.updated, obj.DeepCopyObject().(client.Object))
	return nil
}

// TestTagLabelEncoding: Tag with WithLabelEncoding writes encoded values in
// its one Update, and an unknown encoding writes nothing. The spec it
// writes is what recovery's CarriesTags and CarriesUIDTag accept as the
// tags the finder expects.
func TestTagLabelEncoding(t *testing.T) {
	const uid = "0f4d3c55-7e2b-4c1a-9d8e-6b5a4f3e2d1c"
	tags := map[string]string{
		recovery.TagCrossplaneKind:           "recordset.dns.gcp.upbound.io",
		recovery.TagCrossplaneName:           "www",
		recovery.TagCrossplaneProviderConfig: "default",
	}
	mr := func(pending bool) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "dns.gcp.upbound.io/v1beta1",
			"kind":       "RecordSet",
			"metadata":   map[string]any{"name": "www", "uid": uid},
			"spec":       map[string]any{"forProvider": map[string]any{"name": "www.example.com."}},
		}}
		u.SetUID(types.UID(uid))
		if pending {
			u.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)})
		}
		return u
	}
	cases := map[string]struct {
		reason  string
		pending bool
		opts    []TagOption
		want    map[string]any // spec.forProvider.labels written; nil: no Update
		err     error
	}{
		"GCP": {
			reason: "the labels hold the GCP-encoded values and the UID",
			opts:   []TagOption{WithLabelEncoding(recovery.LabelEncodingGCP)},
			want: map[string]any{
				recovery.TagCrossplaneKind:           "recordset_dns_gcp_upbound_io",
				recovery.TagCrossplaneName:           "www",
				recovery.TagCrossplaneProviderConfig: "default",
				recovery.TagUID:                      uid,
			},
		},
		"GCPPending": {
			reason:  "an unresolved incomplete create gets the encoded values but no UID",
			pending: true,
			opts:    []TagOption{WithLabelEncoding(recovery.LabelEncodingGCP)},
			want: map[string]any{
				recovery.TagCrossplaneKind:           "recordset_dns_gcp_upbound_io",
				recovery.TagCrossplaneName:           "www",
				recovery.TagCrossplaneProviderConfig: "default",
			},
		},
		"NoOption": {
			reason: "without the option the values are written as they are",
			want: map[string]any{
				recovery.TagCrossplaneKind:           "recordset.dns.gcp.upbound.io",
				recovery.TagCrossplaneName:           "www",
				recovery.TagCrossplaneProviderConfig: "default",
				recovery.TagUID:                      uid,
			},
		},
		"Unknown": {
			reason: "an unknown encoding is an error before any write",
			opts:   []TagOption{WithLabelEncoding("gcp-v0")},
			err:    recovery.ErrUnknownLabelEncoding,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := &updateRecorder{}
			mg := mr(tc.pending)
			err := Tag(context.Background(), kube, mg, "labels", tags, tc.opts...)
			if diff := cmp.Diff(tc.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nTag error: -want +got:\n%s", tc.reason, diff)
			}
			if tc.want == nil {
				if len(kube.updated) != 0 {
					t.Errorf("%s\nTag made %d Updates, want none", tc.reason, len(kube.updated))
				}
				if _, found, _ := unstructured.NestedFieldNoCopy(mg.Object, "spec", "forProvider", "labels"); found {
					t.Errorf("%s\nTag changed mg after an error", tc.reason)
				}
				return
			}
			if len(kube.updated) != 1 {
				t.Fatalf("%s\nTag made %d Updates, want 1", tc.reason, len(kube.updated))
			}
			sent := kube.updated[0].(*unstructured.Unstructured)
			got, _, _ := unstructured.NestedMap(sent.Object, "spec", "forProvider", "labels")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nspec.forProvider.labels: -want +got:\n%s", tc.reason, diff)
			}
			if !recovery.CarriesTags(sent.Object, tags) {
				t.Errorf("%s\nrecovery.CarriesTags does not accept what Tag wrote", tc.reason)
			}
			if _, withUID := tc.want[recovery.TagUID]; recovery.CarriesUIDTag(sent.Object, uid) != withUID {
				t.Errorf("%s\nrecovery.CarriesUIDTag = %v, want %v", tc.reason, !withUID, withUID)
			}
		})
	}
}

// TestTagsFieldNotOwnAgreesWithSources: the types a tagger leaves alone
// are exactly those whose tags field the Terraform providers' sources
// send as something other than the resource's tags
// (testdata/listability-evidence.tsv, hack/tagsderive -listability).
func TestTagsFieldNotOwnAgreesWithSources(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "listability-evidence.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	fromSources := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		c := strings.Split(line, "\t")
		if len(c) == 7 && c[5] == "no" {
			fromSources[c[1]] = true
		}
	}
	got := map[string]bool{}
	for tf := range tagsNotOwn {
		got[tf] = true
	}
	if diff := cmp.Diff(fromSources, got); diff != "" {
		t.Errorf("types whose tags field is not their own: sources (-) against TagsFieldNotOwn (+):\n%s", diff)
	}
}
