package upjetv1

import (
	"context"
	"encoding/json"
	"fmt"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/fieldpath"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	ujconfig "github.com/crossplane/upjet/pkg/config"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// DefaultTagsField is the spec.forProvider field upjet's
// config.TagInitializer writes.
const DefaultTagsField = "tags"

// TagInitializer is the drop-in for upjet's config.TagInitializer: put it in
// a resource's InitializerFns instead. It writes what upjet's tagger writes
// to spec.forProvider.tags (crossplane-kind, crossplane-name,
// crossplane-providerconfig) plus intentjournal-uid, the managed resource's
// UID, in the same single Update.
var TagInitializer ujconfig.NewInitializerFn = func(kube client.Client) managed.Initializer {
	return NewTagger(kube, DefaultTagsField)
}

// Tagger is upjet's config.Tagger with the managed resource's UID added to
// the tags. The tag is persisted in spec.forProvider before the first
// create, so the create sends it, at no API write beyond the one upjet's
// tagger already makes. It is what lets recovery tell this managed
// resource's cloud resource from a look-alike that another cluster with the
// same manifests made: the crossplane tags are the same there, the UID is
// not (docs/recovery.md, Ownership).
type Tagger struct {
	kube  client.Client
	field string
}

// NewTagger returns a Tagger writing spec.forProvider.<field>; use it where
// a provider calls upjet's config.NewTagger (GCP's "labels", for example).
func NewTagger(kube client.Client, field string) *Tagger {
	return &Tagger{kube: kube, field: field}
}

// Initialize sets the tags, as upjet's tagger does: not for a resource that
// is only observed, and with one Update.
func (t *Tagger) Initialize(ctx context.Context, mg resource.Managed) error {
	if sets.New(mg.GetManagementPolicies()...).Equal(sets.New(xpv1.ManagementActionObserve)) {
		return nil
	}
	paved, err := fieldpath.PaveObject(mg)
	if err != nil {
		return fmt.Errorf("cannot pave %s to tag it: %w", mg.GetName(), err)
	}
	tags := map[string]*string{}
	for k, v := range resource.GetExternalTags(mg) {
		tags[k] = &v
	}
	for _, k := range []string{resource.ExternalResourceTagKeyKind, resource.ExternalResourceTagKeyName, resource.ExternalResourceTagKeyProvider} {
		if _, ok := tags[k]; !ok {
			empty := "" // upjet's tagger writes the three keys always
			tags[k] = &empty
		}
	}
	// A create that is incomplete and not yet resolved was dispatched, if
	// at all, without the UID tag, or the tag would be in the spec already
	// (a provider upgraded from one without intentjournal, killed with
	// creates in flight): adding it now would tell recovery the create sent
	// it (recovery.Candidate.SentUIDTag), and recovery would take the
	// create's own resource for a look-alike. It is added once recovery has
	// resolved the create.
	uid := string(mg.GetUID())
	if !meta.ExternalCreateIncomplete(mg) || recovery.CarriesUIDTag(paved.UnstructuredContent(), uid) {
		tags[recovery.TagUID] = &uid
	}
	if err := paved.SetValue("spec.forProvider."+t.field, tags); err != nil {
		return fmt.Errorf("cannot set spec.forProvider.%s of %s: %w", t.field, mg.GetName(), err)
	}
	b, err := paved.MarshalJSON()
	if err != nil {
		return fmt.Errorf("cannot encode %s after tagging it: %w", mg.GetName(), err)
	}
	if err := json.Unmarshal(b, mg); err != nil {
		return fmt.Errorf("cannot decode %s after tagging it: %w", mg.GetName(), err)
	}
	if err := t.kube.Update(ctx, mg); err != nil {
		return fmt.Errorf("cannot update the tags of %s: %w", mg.GetName(), err)
	}
	return nil
}

var _ managed.Initializer = (*Tagger)(nil)

// carriesUIDTag reports whether mg's create sends its UID as a tag (see
// recovery.CarriesUIDTag).
func carriesUIDTag(mg resource.Managed) bool {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return false
	}
	return recovery.CarriesUIDTag(u, string(mg.GetUID()))
}
