package upjetv2

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
)

// DefaultTagsField is the spec.forProvider field upjet's
// config.TagInitializer writes.
const DefaultTagsField = adapter.DefaultTagsField

// GCPLabelsField is the spec.forProvider field GCP resources carry their
// labels in.
const GCPLabelsField = adapter.GCPLabelsField

// TagInitializer is the drop-in for upjet's config.TagInitializer: put it
// in a resource's InitializerFns instead. It writes to
// spec.forProvider.tags the crossplane tags this line's crossplane-runtime
// derives (on v2 the namespace and the provider config's kind too, which
// upjet v2.3's own tagger drops) and intentjournal-uid, in the same single
// Update (adapter.Tagger).
var TagInitializer ujconfig.NewInitializerFn = func(kube client.Client) managed.Initializer {
	return NewTagger(kube, DefaultTagsField)
}

// GCPLabelsInitializer is TagInitializer for a GCP provider whose tagger
// writes spec.forProvider.labels (config.NewTagger(kube, "labels")): each
// value encoded with recovery.LabelEncodingGCP, since GCP label values
// allow only lower-case letters, digits, '_' and '-'. Recovery accepts the
// encoded values as the tags it expects.
var GCPLabelsInitializer ujconfig.NewInitializerFn = func(kube client.Client) managed.Initializer {
	return NewTagger(kube, GCPLabelsField, WithTaggerLabelEncoding(recovery.LabelEncodingGCP))
}

// Tagger is upjet's config.Tagger with the managed resource's UID added to
// the tags: adapter.Tagger on this line.
type Tagger struct{ t *adapter.Tagger }

// TaggerOption configures a Tagger.
type TaggerOption = adapter.TagOption

// WithTaggerLabelEncoding makes the Tagger write every value encoded with
// enc (adapter.WithLabelEncoding).
func WithTaggerLabelEncoding(enc string) TaggerOption { return adapter.WithLabelEncoding(enc) }

// NewTagger returns a Tagger writing spec.forProvider.<field>; use it where
// a provider calls upjet's config.NewTagger.
func NewTagger(kube client.Client, field string, opts ...TaggerOption) *Tagger {
	return &Tagger{t: adapter.NewTagger(kube, field, func(o client.Object) map[string]string {
		return resource.GetExternalTags(o.(resource.Managed))
	}, opts...)}
}

// Initialize sets the tags of mg (adapter.Tagger.Initialize).
func (t *Tagger) Initialize(ctx context.Context, mg resource.Managed) error {
	return t.t.Initialize(ctx, mg, adapter.ObserveOnly(mg.GetManagementPolicies()))
}

var _ managed.Initializer = (*Tagger)(nil)
