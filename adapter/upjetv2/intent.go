package upjetv2

import (
	"fmt"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// IntentInput is what BuildIntent needs besides the managed resource.
type IntentInput = adapter.IntentInput

// BuildIntent returns the intent for creating mg (adapter.BuildIntent):
// its lookup keys are exactly the tags crossplane-runtime v2 derives for
// it, which upjet sends with the create, namespace and provider config
// kind included, plus the natural-key fields.
func BuildIntent(mg resource.Managed, in IntentInput) (journal.Intent, error) {
	return adapter.BuildIntent(mg, in, line{})
}

// ExternalTags returns the tags upjet sends with the create of mg:
// crossplane-runtime's, which add crossplane-namespace for a namespaced
// resource and the provider config's kind for a typed (ModernManaged)
// reference. mg's own GVK may be empty on a typed object, so the kind
// comes from gvk. The provider config is the typed reference's, or a
// ProviderConfig for an untyped (LegacyManaged) one.
func (line) ExternalTags(obj client.Object, gvk schema.GroupVersionKind) (map[string]string, journal.ProviderConfigRef, error) {
	mg, ok := obj.(resource.Managed)
	if !ok {
		return nil, journal.ProviderConfigRef{}, fmt.Errorf("cannot read the tags of %s: %T is not a managed resource", obj.GetName(), obj)
	}
	keys := resource.GetExternalTags(mg)
	keys[recovery.TagCrossplaneKind] = strings.ToLower(gvk.GroupKind().String())
	var pc journal.ProviderConfigRef
	switch r := mg.(type) {
	case resource.TypedProviderConfigReferencer:
		if ref := r.GetProviderConfigReference(); ref != nil && ref.Name != "" {
			pc = journal.ProviderConfigRef{Kind: ref.Kind, Name: ref.Name}
		}
	case resource.ProviderConfigReferencer:
		if ref := r.GetProviderConfigReference(); ref != nil && ref.Name != "" {
			pc = journal.ProviderConfigRef{Kind: "ProviderConfig", Name: ref.Name}
		}
	}
	return keys, pc, nil
}
