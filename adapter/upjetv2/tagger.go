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
const DefaultTagsField = "tags"

// TagInitializer is the drop-in for upjet's config.TagInitializer: put it in
// a resource's InitializerFns instead. It writes to spec.forProvider.tags
// what upjet's tagger writes (crossplane-kind, crossplane-name,
// crossplane-providerconfig), the rest of crossplane-runtime v2's external
// tags (a namespaced resource's namespace and provider config kind, which
// upjet v2.3's tagger drops) and intentjournal-uid, the managed resource's
// UID, in the same single Update.
var TagInitializer ujconfig.NewInitializerFn = func(kube client.Client) managed.Initializer {
	return NewTagger(kube, DefaultTagsField)
}

// GCPLabelsField is the spec.forProvider field GCP resources carry their
// labels in, where a GCP provider's tagger writes crossplane's tags.
const GCPLabelsField = "labels"

// GCPLabelsInitializer is TagInitializer for GCP: put it in a resource's
// InitializerFns where a provider's tagger writes spec.forProvider.labels
// (config.NewTagger(kube, "labels")). It writes the same tags to labels,
// each value encoded with recovery.LabelEncodingGCP (recovery.GCPLabelValue),
// since GCP label values allow only lower-case letters, digits, '_' and
// '-', at most 63 of them: a raw crossplane-kind such as
// recordset.dns.gcp.upbound.io would fail the create. Recovery accepts the
// encoded values as the tags it expects, so the finder needs no option to
// agree with it.
var GCPLabelsInitializer ujconfig.NewInitializerFn = func(kube client.Client) managed.Initializer {
	return NewTagger(kube, GCPLabelsField, WithTaggerLabelEncoding(recovery.LabelEncodingGCP))
}

// Tagger is upjet's config.Tagger with the managed resource's UID added to
// the tags (adapter.Tag). The tag is persisted in spec.forProvider before
// the first create, so the create sends it, at no API write beyond the
// one upjet's tagger already makes. It is what lets recovery tell this
// managed resource's cloud resource from a look-alike that another
// cluster with the same manifests made: the crossplane tags are the same
// there, the UID is not (docs/recovery.md, Ownership).
type Tagger struct {
	kube     client.Client
	field    string
	encoding string
}

// TaggerOption configures a Tagger.
type TaggerOption func(*Tagger)

// WithTaggerLabelEncoding makes the Tagger write every value encoded with
// enc (adapter.WithLabelEncoding): recovery.LabelEncodingGCP for GCP
// labels. An unknown encoding makes Initialize fail before it writes.
func WithTaggerLabelEncoding(enc string) TaggerOption {
	return func(t *Tagger) { t.encoding = enc }
}

// NewTagger returns a Tagger writing spec.forProvider.<field>; use it where
// a provider calls upjet's config.NewTagger. For GCP's "labels" give it
// WithTaggerLabelEncoding(recovery.LabelEncodingGCP), or use
// GCPLabelsInitializer.
func NewTagger(kube client.Client, field string, opts ...TaggerOption) *Tagger {
	t := &Tagger{kube: kube, field: field}
	for _, opt := range opts {
		opt(t)
	}
	return t
}

// Initialize sets the tags, as upjet's tagger does: not for a resource that
// is only observed, and with one Update. It leaves alone a kind whose tags
// field is not its own tags (adapter.TagsFieldNotOwn:
// aws_inspector_resource_group's tags select instances), which upjet's
// tagger would rewrite.
func (t *Tagger) Initialize(ctx context.Context, mg resource.Managed) error {
	if adapter.ObserveOnly(mg.GetManagementPolicies()) {
		return nil
	}
	if tr, ok := mg.(interface{ GetTerraformResourceType() string }); ok {
		if _, notOwn := adapter.TagsFieldNotOwn(tr.GetTerraformResourceType()); notOwn {
			return nil // its tags field is not its own tags: left as the user wrote it
		}
	}
	tags := resource.GetExternalTags(mg)
	for _, k := range []string{resource.ExternalResourceTagKeyKind, resource.ExternalResourceTagKeyName, resource.ExternalResourceTagKeyProvider} {
		if _, ok := tags[k]; !ok {
			tags[k] = "" // upjet's tagger writes the three keys always
		}
	}
	return adapter.Tag(ctx, t.kube, mg, t.field, tags, adapter.WithLabelEncoding(t.encoding))
}

var _ managed.Initializer = (*Tagger)(nil)
