package recovery

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/journal"
)

// Crossplane's external tags, which upjet puts on every taggable resource,
// and the tag intentjournal adds to prove an exact create attempt.
const (
	TagCrossplaneKind           = "crossplane-kind"
	TagCrossplaneName           = "crossplane-name"
	TagCrossplaneProviderConfig = "crossplane-providerconfig"
	// TagIntentID carries the intent ID of the create that made the
	// resource, where the adapter can add it.
	TagIntentID = "intentjournal-intent-id"
)

// Candidate is one unsettled create to resolve.
type Candidate struct {
	// Intent is the merged intent. Intent.Resource is always set; Intent.ID
	// is zero for a resource found only by crossplane-runtime's
	// external-create-pending annotation.
	Intent journal.Intent
	// Sources lists where the candidate was found (SourceJournal,
	// SourceAnnotation, SourceIncompleteCreate); a candidate found by more
	// than one is merged by UID.
	Sources []string
	// GVK is the managed resource's kind.
	GVK schema.GroupVersionKind
	// Object is the managed resource as last read, or nil when it no longer
	// exists (deleted while its create was in flight).
	Object *unstructured.Unstructured
	// inJournal is true when the journal holds the intent (and so must be
	// settled), quarantined when the journal's record is corrupt.
	inJournal, quarantined bool
}

// Deleted reports whether the managed resource no longer exists.
func (c *Candidate) Deleted() bool { return c.Object == nil }

// ExpectedTags returns the crossplane external tags the resource would
// carry if this create made it: from the intent's lookup keys, else derived
// from the managed resource the way crossplane-runtime derives them.
func (c *Candidate) ExpectedTags() map[string]string {
	out := map[string]string{}
	for _, k := range []string{TagCrossplaneKind, TagCrossplaneName, TagCrossplaneProviderConfig} {
		if v, ok := c.Intent.LookupKeys[k]; ok && v != "" {
			out[k] = v
		}
	}
	if _, ok := out[TagCrossplaneKind]; !ok && c.GVK.Kind != "" {
		out[TagCrossplaneKind] = strings.ToLower(c.GVK.GroupKind().String())
	}
	if _, ok := out[TagCrossplaneName]; !ok && c.Intent.Resource.Name != "" {
		out[TagCrossplaneName] = c.Intent.Resource.Name
	}
	if _, ok := out[TagCrossplaneProviderConfig]; !ok && c.Object != nil {
		if pc, _, _ := unstructured.NestedString(c.Object.Object, "spec", "providerConfigRef", "name"); pc != "" {
			out[TagCrossplaneProviderConfig] = pc
		}
	}
	return out
}

// ExternalResource is one cloud resource a Finder found.
type ExternalResource struct {
	// ID is the resource's external name: what crossplane.io/external-name
	// must hold for the provider to observe it.
	ID string
	// Tags are the resource's tags or labels, where the kind has them.
	Tags map[string]string
	// CreatedAt is when the cloud created it, if known. Among several copies
	// the oldest is adopted.
	CreatedAt time.Time
}

// Finder looks up the cloud resources that a candidate's create may have
// made. It returns every match (none, one or several) and an error only
// when the lookup itself failed: "not found" is an empty result, never an
// error. Finders must not return secret values.
type Finder interface {
	Find(ctx context.Context, c *Candidate) ([]ExternalResource, error)
}

// FinderFn adapts a function to a Finder.
type FinderFn func(ctx context.Context, c *Candidate) ([]ExternalResource, error)

// Find calls fn.
func (fn FinderFn) Find(ctx context.Context, c *Candidate) ([]ExternalResource, error) {
	return fn(ctx, c)
}

// Deleter deletes an orphaned cloud resource. It is used only under a
// delete-orphans policy and only for resources whose ownership is proven.
type Deleter interface {
	Delete(ctx context.Context, c *Candidate, r ExternalResource) error
}

// DeleterFn adapts a function to a Deleter.
type DeleterFn func(ctx context.Context, c *Candidate, r ExternalResource) error

// Delete calls fn.
func (fn DeleterFn) Delete(ctx context.Context, c *Candidate, r ExternalResource) error {
	return fn(ctx, c, r)
}

var (
	_ Finder  = FinderFn(nil)
	_ Deleter = DeleterFn(nil)
)

// TagLister lists the resources of one kind that carry every given tag.
type TagLister func(ctx context.Context, tags map[string]string) ([]ExternalResource, error)

// NewTagFinder returns a Finder for kinds whose resources carry tags (an
// AWS VPC, the fake cloud's Network): it lists by the crossplane external
// tags the create would have set. This is the only way to find a resource
// whose ID the cloud assigns when the create's response was lost.
func NewTagFinder(list TagLister) Finder {
	return FinderFn(func(ctx context.Context, c *Candidate) ([]ExternalResource, error) {
		tags := c.ExpectedTags()
		if tags[TagCrossplaneName] == "" || tags[TagCrossplaneKind] == "" {
			return nil, fmt.Errorf("cannot look up %s by tags: the crossplane-kind and crossplane-name tags are unknown", c.Intent.Resource)
		}
		return list(ctx, tags)
	})
}

// KeyLookup looks up the resources of one kind by their natural key, the
// spec fields the cloud keeps unique (a DNS zone and record name).
type KeyLookup func(ctx context.Context, key map[string]string) ([]ExternalResource, error)

// KeyFunc extracts the natural key from a managed resource. It returns an
// error when a key field is missing.
type KeyFunc func(obj *unstructured.Unstructured) (map[string]string, error)

// NewKeyFinder returns a Finder for name-keyed kinds: the case of the public
// report, where the external name is a server-assigned ID and a repeated
// create fails with 409. The key comes from the managed resource, or from
// the intent's lookup keys when the resource was deleted.
func NewKeyFinder(key KeyFunc, lookup KeyLookup, keyFields ...string) Finder {
	return FinderFn(func(ctx context.Context, c *Candidate) ([]ExternalResource, error) {
		var k map[string]string
		if c.Object != nil {
			var err error
			if k, err = key(c.Object); err != nil {
				return nil, fmt.Errorf("cannot read the natural key of %s: %w", c.Intent.Resource, err)
			}
		} else {
			k = map[string]string{}
			for _, f := range keyFields {
				v, ok := c.Intent.LookupKeys[f]
				if !ok {
					return nil, fmt.Errorf("cannot look up deleted %s: lookup key %q was not recorded", c.Intent.Resource, f)
				}
				k[f] = v
			}
		}
		return lookup(ctx, k)
	})
}

// SpecFields returns a KeyFunc reading string fields of spec.forProvider,
// keyed by their names: SpecFields("zone", "name").
func SpecFields(fields ...string) KeyFunc {
	return func(obj *unstructured.Unstructured) (map[string]string, error) {
		out := make(map[string]string, len(fields))
		for _, f := range fields {
			v, found, err := unstructured.NestedString(obj.Object, "spec", "forProvider", f)
			if err != nil || !found || v == "" {
				return nil, fmt.Errorf("spec.forProvider.%s is not set", f)
			}
			out[f] = v
		}
		return out, nil
	}
}

// Proof says why a found resource is known to be ours.
type Proof string

// Proofs, strongest first. An empty Proof means ownership is not proven.
const (
	// ProofIntentID: the resource carries this intent's ID tag.
	ProofIntentID Proof = "IntentID"
	// ProofRecordedID: the journal recorded this ID as the create's result.
	ProofRecordedID Proof = "RecordedID"
	// ProofTags: the resource carries the crossplane-kind, -name and (when
	// known) -providerconfig tags of this managed resource.
	ProofTags Proof = "CrossplaneTags"
)

// Owned returns how r is proven to be the resource c's create made, or ""
// when it is not. A matching name alone never proves ownership: a resource
// created outside Crossplane may share it.
func Owned(c *Candidate, r ExternalResource) Proof {
	if !c.Intent.ID.IsZero() && r.Tags[TagIntentID] == c.Intent.ID.String() {
		return ProofIntentID
	}
	if id := c.Intent.Outcome.ExternalName; id != "" && id == r.ID && c.Intent.State == journal.StateSucceeded {
		return ProofRecordedID
	}
	want := c.ExpectedTags()
	if want[TagCrossplaneKind] == "" || want[TagCrossplaneName] == "" {
		return ""
	}
	for k, v := range want {
		if r.Tags[k] != v {
			return ""
		}
	}
	// A different intent-ID tag means another create attempt of the same
	// managed resource made it: still ours, as the tags prove.
	return ProofTags
}

func cloneTags(m map[string]string) map[string]string { return maps.Clone(m) }
