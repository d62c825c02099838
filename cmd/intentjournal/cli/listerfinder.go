package cli

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/recovery"
)

// ScopeFunc returns where candidate c's create would have made its
// resource: the account and region, project or subscription a cloud's
// Lister lists in.
type ScopeFunc func(ctx context.Context, c *recovery.Candidate) (inventory.Scope, error)

// SpecScope returns the ScopeFunc of a stock upjet provider's managed
// resources: the region (AWS) and project (GCP) spec.forProvider names,
// where it names them, else def's. What a provider config adds (an
// assumed role's account) is not read: the scan lists with the operator's
// own credentials, in def's account, project or subscription.
func SpecScope(def inventory.Scope) ScopeFunc {
	return func(_ context.Context, c *recovery.Candidate) (inventory.Scope, error) {
		s := def
		if c.Object != nil {
			if v, ok, _ := unstructured.NestedString(c.Object.Object, "spec", "forProvider", "region"); ok && v != "" {
				s.Region = v
			}
			if v, ok, _ := unstructured.NestedString(c.Object.Object, "spec", "forProvider", "project"); ok && v != "" {
				s.Project = v
			}
		}
		return s, nil
	}
}

// ListerFinderType returns the --finder type of a cloud's tag lister
// (inventory/aws, inventory/gcp, inventory/azure), which a cloud's build
// of the CLI adds with WithFinderType: KIND=NAME[:TYPE] looks a candidate
// of KIND up by the crossplane tags its create sent, listing resources of
// the Terraform resource type TYPE in the scope scope gives. Without TYPE,
// the type is the kind's in the scan's kinds (--provider, --kinds-file),
// else in provider's shipped kinds (inventory.ShippedKinds), so that
// --finder '*=NAME' serves every kind of a stock provider-upjet-aws, -gcp
// or -azure with no per-kind flag. A listing that finds nothing proves
// that the create made nothing only for a kind the kinds say sends its
// tags in the create request (inventory.Kind.TagsMayFollowCreate): for
// any other, the candidate is reported, never cleared. A kind
// the lister does not list, or that is not the provider's, is an error
// wrapping ErrKindNotServed: under '*' it is left without a finder, named
// on its own it fails the command.
//
// newLister is called once, when the first kind is built. What a lister
// returns is the cloud's identifier of each resource, not its external
// name: it is found Listed (recovery.ExternalResource), never adopted, and
// the report names the external names it may stand for. A lister that
// reads an index (inventory.Consistency) proves nothing by an empty
// listing within its lag; scan never clears on one anyway.
func ListerFinderType(provider string, newLister func() (inventory.Lister, error), scope ScopeFunc) FinderType {
	lister := sync.OnceValues(newLister)
	return FinderType{
		Usage: fmt.Sprintf("%s tag lister: [:TYPE] lists the resources of Terraform resource type TYPE (default: the kind's, for the kinds of provider-upjet-%s) "+
			"that carry the crossplane tags the create sent; found by their cloud identifiers, never adopted", provider, provider),
		ArgOptional: true,
		Build: func(gk schema.GroupKind, arg string, env FinderEnv) (recovery.Finder, recovery.Deleter, error) {
			kinds := env.Kinds
			if kinds == nil {
				var err error
				if kinds, err = inventory.ShippedKinds(provider); err != nil {
					return nil, nil, err
				}
			}
			k, known := kinds.Of(gk.Group, gk.Kind)
			tf := arg
			if tf == "" {
				if !known {
					return nil, nil, kindNotServed("%s is not a kind of provider-upjet-%s: give its Terraform resource type, --finder %s=...:TYPE", gk, provider, gk.Kind)
				}
				tf = k.TerraformResource
			}
			l, err := lister()
			if err != nil {
				return nil, nil, fmt.Errorf("cannot build the %s tag lister: %w", provider, err)
			}
			if x := l.Listing(tf); !x.Listed {
				return nil, nil, kindNotServed("the %s tag lister does not list %s (the Terraform type of %s): %s", provider, tf, gk, x.Evidence)
			}
			// A kind not known to send its tags in the create request
			// may have made a resource no listing finds yet.
			tagsAfter := !known || k.TerraformResource != tf || k.TagsMayFollowCreate()
			return newListerFinder(l, tf, scope, tagsAfter), nil, nil
		},
	}
}

// newListerFinder returns the Finder that lists tfResource's resources
// carrying a candidate's crossplane tags through l, in scope's scope.
// With tagsAfter, its finding nothing proves nothing
// (recovery.TagsAfterCreate).
func newListerFinder(l inventory.Lister, tfResource string, scope ScopeFunc, tagsAfter bool) recovery.Finder {
	opts := []recovery.TagFinderOption{recovery.TagsAfterCreate(tagsAfter)}
	if c := l.Consistency(); !c.ReadAfterWrite {
		opts = append(opts, recovery.IndexLag(c.Lag))
	}
	return recovery.NewCandidateTagFinder(func(ctx context.Context, c *recovery.Candidate, tags map[string]string) ([]recovery.ExternalResource, error) {
		s, err := scope(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("cannot tell where %s's create would have made its resource: %w", c.Intent.Resource, err)
		}
		listed, err := l.List(ctx, inventory.Query{TerraformResource: tfResource, Tags: tags, Scope: s})
		if err != nil {
			return nil, err
		}
		out := make([]recovery.ExternalResource, 0, len(listed))
		for _, r := range listed {
			out = append(out, recovery.ExternalResource{ID: r.Identifier, Tags: r.Tags, CreatedAt: r.CreatedAt, Listed: true})
		}
		return out, nil
	}, opts...)
}
