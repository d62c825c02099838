package adapter

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// DefaultTagsField is the spec.forProvider field upjet's
// config.TagInitializer writes.
const DefaultTagsField = "tags"

// GCPLabelsField is the spec.forProvider field GCP resources carry their
// labels in, where a GCP provider's tagger writes crossplane's tags.
const GCPLabelsField = "labels"

// A Tagger is the managed.Initializer each line puts where upjet's
// config.Tagger goes: upjet's crossplane tags plus the managed resource's
// UID (Tag), persisted in spec.forProvider before the first create, so
// the create sends them, at no API write beyond the one upjet's tagger
// already makes. The UID is what lets recovery tell this managed
// resource's cloud resource from a look-alike that another cluster with
// the same manifests made: the crossplane tags are the same there, the
// UID is not (docs/recovery.md, Ownership).
type Tagger struct {
	kube  client.Client
	field string
	tags  func(client.Object) map[string]string
	opts  []TagOption
}

// NewTagger returns a Tagger writing spec.forProvider.<field>. tags
// returns the crossplane tags of a managed resource as the line's
// crossplane-runtime derives them (resource.GetExternalTags).
func NewTagger(kube client.Client, field string, tags func(client.Object) map[string]string, opts ...TagOption) *Tagger {
	return &Tagger{kube: kube, field: field, tags: tags, opts: opts}
}

// String says what t writes: the field, and the encoding of the values
// when they are encoded ("spec.forProvider.labels, encoded gcp").
func (t *Tagger) String() string {
	var o tagOptions
	for _, fn := range t.opts {
		fn(&o)
	}
	if o.encoding == "" {
		return "spec.forProvider." + t.field
	}
	return "spec.forProvider." + t.field + ", encoded " + o.encoding
}

// Initialize sets the tags of mg, as upjet's tagger does: not for a
// resource that is only observed (observeOnly: ObserveOnly of its
// management policies), and with one Update. It leaves alone a kind
// whose tags field is not its own tags (TagsFieldNotOwn:
// aws_inspector_resource_group's tags select instances), which upjet's
// tagger would rewrite.
func (t *Tagger) Initialize(ctx context.Context, mg client.Object, observeOnly bool) error {
	if observeOnly {
		return nil
	}
	if tr, ok := mg.(interface{ GetTerraformResourceType() string }); ok {
		if _, notOwn := TagsFieldNotOwn(tr.GetTerraformResourceType()); notOwn {
			return nil // its tags field is not its own tags: left as the user wrote it
		}
	}
	tags := t.tags(mg)
	for _, k := range []string{recovery.TagCrossplaneKind, recovery.TagCrossplaneName, recovery.TagCrossplaneProviderConfig} {
		if _, ok := tags[k]; !ok {
			tags[k] = "" // upjet's tagger writes the three keys always
		}
	}
	return Tag(ctx, t.kube, mg, t.field, tags, t.opts...)
}
