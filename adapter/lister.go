package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/recovery"
)

// ListScopeFunc returns where candidate c's create would have made its
// resource: the account and region, project or subscription that the
// provider config c's managed resource names resolves to, as the provider
// resolves its credentials.
type ListScopeFunc func(ctx context.Context, c *recovery.Candidate) (inventory.Scope, error)

// WithLister lists the list-by-tags kinds through l, a cloud's tag lister
// (inventory/aws, inventory/gcp, inventory/azure), in the scope scope
// returns for each candidate. Unlike an Inventory, a Lister returns the
// cloud's own identifiers (an ARN, a full resource name, an ARM ID): each
// is turned into the Terraform IDs it may stand for
// (inventory.Candidates), each of those observed with the kind's own
// Observe, and one accepted only where the observed resource reports the
// listed identifier (inventory.SameResource on its arn, self link or id).
// A listed resource none of whose candidates verifies fails the lookup:
// reported, never adopted on a mapping nobody checked, never cleared.
// Where l reads an index (inventory.Consistency), a listing that finds
// nothing proves the create made nothing only once the index's lag has
// passed since the latest moment the create can have reached the cloud
// (recovery.IndexLag): until then the intent waits, its create held. It
// takes the place of WithInventory.
func WithLister(l inventory.Lister, scope ListScopeFunc) FindersOption {
	return func(o *findersOptions) { o.lister, o.scope = l, scope }
}

// newListerFinder returns the list-by-tags Finder of gk over o's Lister,
// verifying what it lists through observe.
func newListerFinder(gk schema.GroupKind, tfResource string, o *findersOptions, observe func(c *recovery.Candidate) ObserveFunc) recovery.Finder {
	opts := []recovery.TagFinderOption{recovery.NameKeyed(o.nameKeyed[gk]), recovery.TagsAfterCreate(o.tagsAfter[gk])}
	if c := o.lister.Consistency(); !c.ReadAfterWrite {
		opts = append(opts, recovery.IndexLag(c.Lag))
	}
	return recovery.NewCandidateTagFinder(func(ctx context.Context, c *recovery.Candidate, tags map[string]string) ([]recovery.ExternalResource, error) {
		scope, err := o.scope(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("cannot tell where %s's create would have made its resource: %w", c.Intent.Resource, err)
		}
		listed, err := o.lister.List(ctx, inventory.Query{TerraformResource: tfResource, Tags: tags, Scope: scope})
		if err != nil {
			return nil, err
		}
		out := make([]recovery.ExternalResource, 0, len(listed))
		for _, r := range listed {
			v, err := verifyListed(ctx, c, observe(c), r)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}, opts...)
}

// verifyListed returns the listed resource r as the Terraform ID that the
// kind's Observe, on behalf of c, shows to be r: the first of r's
// candidate IDs whose observation reports r's identifier. The found
// resource keeps r's tags and creation time, which the listing knows
// better, and the observation's comparison with the create's arguments.
// A deleted managed resource cannot be observed (Observe needs its
// provider config): r is returned by its identifier, for the report.
func verifyListed(ctx context.Context, c *recovery.Candidate, observe ObserveFunc, r inventory.Resource) (recovery.ExternalResource, error) {
	listed := recovery.ExternalResource{ID: r.Identifier, Tags: r.Tags, CreatedAt: r.CreatedAt, Listed: true}
	if c.Object == nil || observe == nil {
		return listed, nil
	}
	obj, args, err := createObject(c)
	if err != nil {
		return recovery.ExternalResource{}, err
	}
	cands := inventory.Candidates(r.Identifier)
	var errs []error
	for _, id := range cands {
		found, err := observe(ctx, obj, args, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", id, err))
			continue
		}
		if len(found) == 0 || !reports(found[0], r.Identifier) {
			continue
		}
		v := found[0]
		v.Tags, v.CreatedAt = r.Tags, r.CreatedAt
		return v, nil
	}
	err = fmt.Errorf("the cloud lists %s carrying %s's tags, but observing its candidate IDs (%s) shows it at none of them: which external name it has cannot be told",
		r.Identifier, c.Intent.Resource, strings.Join(cands, ", "))
	if len(errs) > 0 {
		err = fmt.Errorf("%w; lookups failed: %w", err, errors.Join(errs...))
	}
	return recovery.ExternalResource{}, err
}

// reports says whether the observed resource f reports identifier among
// its cloud identifiers.
func reports(f recovery.ExternalResource, identifier string) bool {
	for _, id := range f.Identifiers {
		if inventory.SameResource(identifier, id) {
			return true
		}
	}
	return false
}
