package adapter

import (
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// KeyFunc returns a managed resource's natural-key fields, the lookup keys
// a recovery Finder needs when the resource was deleted while its create was
// in flight (for the fake cloud's RecordSet: "zone" and "name"). It returns
// an error when a key field is missing.
type KeyFunc func(mg client.Object) (map[string]string, error)

// SpecFields returns a KeyFunc reading string fields of spec.forProvider,
// else of spec.initProvider, keyed by their JSON names: recovery.SpecFields
// of the managed resource mg.
func SpecFields(fields ...string) KeyFunc {
	key := recovery.SpecFields(fields...)
	return func(mg client.Object) (map[string]string, error) {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
		if err != nil {
			return nil, fmt.Errorf("cannot convert %s to unstructured: %w", mg.GetName(), err)
		}
		return key(&unstructured.Unstructured{Object: u})
	}
}

// IntentInput is what BuildIntent needs besides the managed resource.
type IntentInput struct {
	// GVK is the managed resource's kind (typed objects read from a cache
	// carry no TypeMeta, so it is not taken from the object).
	GVK schema.GroupVersionKind
	// Owner is the process beginning the intent.
	Owner journal.Owner
	// Keys, when set, adds the natural-key fields to the lookup keys.
	Keys KeyFunc
}

// BuildIntent returns the intent for creating mg, a managed resource of
// line l: its identity, provider config, intended external name when it is
// known before the create (a deterministic name set by an initializer),
// and lookup keys: the tags upjet sends with the create (l.ExternalTags:
// crossplane-kind, crossplane-name, crossplane-providerconfig, and on the
// v2 line the namespace and the provider config's kind) plus the
// natural-key fields; whether the create sends mg's UID as a tag (the
// Tagger wrote it to spec.forProvider), after which recovery accepts only
// resources carrying it; and whether mg's spec carries every crossplane
// tag of the lookup keys (Intent.TaggedSpec), without which a tag
// listing's finding nothing proves nothing. Journal.Begin fills in the
// ID, state and timestamps.
func BuildIntent(mg client.Object, in IntentInput, l Line) (journal.Intent, error) {
	keys, pc, err := l.ExternalTags(mg, in.GVK)
	if err != nil {
		return journal.Intent{}, err
	}
	tagged := carriesTags(mg, recovery.CrossplaneTags(keys))
	if in.Keys != nil {
		nk, err := in.Keys(mg)
		if err != nil {
			return journal.Intent{}, fmt.Errorf("cannot read the natural key: %w", err)
		}
		for k := range nk {
			if _, clash := keys[k]; clash {
				return journal.Intent{}, fmt.Errorf("natural-key field %q clashes with a crossplane tag key", k)
			}
		}
		maps.Copy(keys, nk)
	}
	return journal.Intent{
		Resource: journal.ResourceRef{
			APIVersion: in.GVK.GroupVersion().String(),
			Kind:       in.GVK.Kind,
			Namespace:  mg.GetNamespace(),
			Name:       mg.GetName(),
			UID:        string(mg.GetUID()),
		},
		ProviderConfig: pc,
		ExternalName:   ExternalName(mg),
		LookupKeys:     keys,
		Owner:          in.Owner,
		UIDTag:         carriesUIDTag(mg),
		TaggedSpec:     tagged,
	}, nil
}

// carriesTags reports whether mg's spec carries tags (see
// recovery.CarriesTags).
func carriesTags(mg client.Object, tags map[string]string) bool {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return false
	}
	return recovery.CarriesTags(u, tags)
}

// carriesUIDTag reports whether mg's create sends its UID as a tag (see
// recovery.CarriesUIDTag).
func carriesUIDTag(mg client.Object) bool {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return false
	}
	return recovery.CarriesUIDTag(u, string(mg.GetUID()))
}
