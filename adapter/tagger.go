package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// TagOption configures Tag.
type TagOption func(*tagOptions)

// tagOptions is what the TagOptions set.
type tagOptions struct {
	// encoding is the recovery.EncodeLabels encoding of the values; ""
	// writes them as they are.
	encoding string
}

// WithLabelEncoding makes Tag write every value encoded with encoding
// (recovery.EncodeLabels): recovery.LabelEncodingGCP for GCP labels, whose
// values allow only lower-case letters, digits, '_' and '-', at most 63 of
// them, where a crossplane-kind such as recordset.dns.gcp.upbound.io would
// fail the create. "" writes the values as they are, as without the
// option.
func WithLabelEncoding(encoding string) TagOption {
	return func(o *tagOptions) { o.encoding = encoding }
}

// Tag writes tags to spec.forProvider.<field> of the managed resource mg,
// with the tag recovery.TagUID added (mg's UID), and updates mg with one
// Update: what a line's Tagger does after it has read the crossplane tags
// upjet's tagger writes. The UID tag is what lets recovery tell this
// managed resource's cloud resource from a look-alike that another cluster
// with the same manifests made (docs/recovery.md, Ownership); it is
// persisted before the first create, so the create sends it.
//
// A create that is incomplete and not yet resolved was dispatched, if at
// all, without the UID tag, or the tag would be in the spec already (a
// provider upgraded from one without intentjournal, killed with creates in
// flight): adding it then would tell recovery the create sent it
// (recovery.Candidate.SentUIDTag), and recovery would take the create's
// own resource for a look-alike. Tag adds it once recovery has resolved
// the create.
//
// WithLabelEncoding encodes every value written, the UID's too, for a
// field whose cloud restricts its values (a GCP labels field). Recovery
// accepts the encoded values as the tags it expects, so the tagger and the
// finder agree with no option on the recovery side. An unknown encoding
// is an error before anything is written.
func Tag(ctx context.Context, kube client.Client, mg client.Object, field string, tags map[string]string, opts ...TagOption) error {
	var o tagOptions
	for _, opt := range opts {
		opt(&o)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return fmt.Errorf("cannot pave %s to tag it: %w", mg.GetName(), err)
	}
	uid := string(mg.GetUID())
	withUID := !ExternalCreateIncomplete(mg) || recovery.CarriesUIDTag(u, uid)
	values, err := tagValues(tags, uid, withUID, o.encoding)
	if err != nil {
		return fmt.Errorf("cannot tag %s: %w", mg.GetName(), err)
	}
	value := make(map[string]any, len(values))
	for k, v := range maps.All(values) {
		value[k] = v
	}
	if err := unstructured.SetNestedField(u, value, "spec", "forProvider", field); err != nil {
		return fmt.Errorf("cannot set spec.forProvider.%s of %s: %w", field, mg.GetName(), err)
	}
	b, err := json.Marshal(u)
	if err != nil {
		return fmt.Errorf("cannot encode %s after tagging it: %w", mg.GetName(), err)
	}
	if err := json.Unmarshal(b, mg); err != nil {
		return fmt.Errorf("cannot decode %s after tagging it: %w", mg.GetName(), err)
	}
	if err := kube.Update(ctx, mg); err != nil {
		return fmt.Errorf("cannot update the tags of %s: %w", mg.GetName(), err)
	}
	return nil
}

// tagValues returns the map Tag writes: tags, with recovery.TagUID set to
// uid when withUID, every value encoded with encoding
// (recovery.EncodeLabels). tags is not changed.
func tagValues(tags map[string]string, uid string, withUID bool, encoding string) (map[string]string, error) {
	all := maps.Clone(tags)
	if all == nil {
		all = map[string]string{}
	}
	if withUID {
		all[recovery.TagUID] = uid
	}
	out, err := recovery.EncodeLabels(encoding, all)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the tags: %w", err)
	}
	return out, nil
}

// tagsNotOwn are the Terraform resource types whose tags or labels field
// is not the resource's own tags, with what it is instead: tagging the
// field would change what the resource does. Read from the Terraform
// providers' sources (testdata/listability-evidence.tsv's tags_own).
var tagsNotOwn = map[string]string{
	"aws_inspector_resource_group":     "its tags select the EC2 instances an assessment covers",
	"google_compute_instance_template": "its labels label the instances made from the template",
}

// TagsFieldNotOwn reports whether the tags or labels field of the
// Terraform resource type tfResource is something other than the
// resource's own tags, and what: a tagger leaves such a kind alone, since
// a tag written there would change the resource's behaviour (widen a
// selector), not label it.
func TagsFieldNotOwn(tfResource string) (why string, ok bool) {
	why, ok = tagsNotOwn[tfResource]
	return why, ok
}
