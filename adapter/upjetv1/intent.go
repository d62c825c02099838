package upjetv1

import (
	"fmt"
	"strings"

	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// IntentInput is what BuildIntent needs besides the managed resource.
type IntentInput = adapter.IntentInput

// BuildIntent returns the intent for creating mg (adapter.BuildIntent):
// its lookup keys are the crossplane external tags upjet v1 puts on the
// resource (crossplane-kind, crossplane-name, crossplane-providerconfig)
// plus the natural-key fields.
func BuildIntent(mg resource.Managed, in IntentInput) (journal.Intent, error) {
	return adapter.BuildIntent(mg, in, line{})
}

// ExternalTags returns the tags upjet v1 sends with the create of mg:
// crossplane-kind (from gvk: a typed object read from a cache carries no
// TypeMeta), crossplane-name and, when mg refers to one,
// crossplane-providerconfig; and that ProviderConfig.
func (line) ExternalTags(obj client.Object, gvk schema.GroupVersionKind) (map[string]string, journal.ProviderConfigRef, error) {
	mg, ok := obj.(resource.Managed)
	if !ok {
		return nil, journal.ProviderConfigRef{}, fmt.Errorf("cannot read the tags of %s: %T is not a managed resource", obj.GetName(), obj)
	}
	keys := map[string]string{
		recovery.TagCrossplaneKind: strings.ToLower(gvk.GroupKind().String()),
		recovery.TagCrossplaneName: mg.GetName(),
	}
	var pc journal.ProviderConfigRef
	if ref := mg.GetProviderConfigReference(); ref != nil && ref.Name != "" {
		keys[recovery.TagCrossplaneProviderConfig] = ref.Name
		pc = journal.ProviderConfigRef{Kind: "ProviderConfig", Name: ref.Name}
	}
	return keys, pc, nil
}
