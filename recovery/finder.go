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
	// TagCrossplaneNamespace is the namespace of a namespaced managed
	// resource (crossplane-runtime v2). It is compared only when the
	// intent's lookup keys recorded it.
	TagCrossplaneNamespace = "crossplane-namespace"
	// TagCrossplaneProviderConfigKind is the kind of a typed provider
	// config reference (crossplane-runtime v2: ProviderConfig or
	// ClusterProviderConfig).
	TagCrossplaneProviderConfigKind = "crossplane-providerconfig-kind"
	// TagIntentID carries the intent ID of the create that made the
	// resource, where the adapter can add it.
	TagIntentID = "intentjournal-intent-id"
	// TagUID carries the UID of the managed resource whose create made the
	// resource. The adapter's tagger writes it beside the crossplane tags,
	// before the create, so it is sent with the create. Unlike the
	// crossplane tags, no other managed resource, in this cluster or any
	// other, has the same value.
	TagUID = "intentjournal-uid"
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
	// SpecTags, when set, are exactly the crossplane tags the create sent,
	// read from the managed resource's spec where a stock provider's
	// tagger wrote them (intentjournal scan, which has no intent):
	// ExpectedTags returns them as they are and derives none, in
	// particular no crossplane-namespace, which upjet v2.3.0's tagger never
	// writes. A listing by them finds what the create made, and the
	// same-named managed resources' of other namespaces too: tags without
	// a namespace prove ownership only weakly.
	SpecTags map[string]string
	// DeadBy is the latest moment the create can have reached the cloud:
	// when recovery first took the intent up (Sightings), by which the
	// process that ran it had stopped. Zero when not known; the Resolver
	// sets it before each lookup.
	DeadBy time.Time
	// inJournal is true when the journal holds the intent (and so must be
	// settled), quarantined when the journal's record is corrupt.
	inJournal, quarantined bool
	// cached is true while Object is the copy Options.Reader served: no
	// decision made from it is carried out unless a patch guarded by its
	// resourceVersion confirms it (see Resolver.patch). live is true once
	// a cached copy proved stale: the candidate is read from the API
	// server from then on.
	cached, live bool
	// stale is set when a patch found the cached copy changed in a way
	// that can change the decision: Resolve decides again from a live
	// read.
	stale bool
}

// Deleted reports whether the managed resource no longer exists.
func (c *Candidate) Deleted() bool { return c.Object == nil }

// ExpectedTags returns the crossplane external tags the resource would
// carry if this create made it: SpecTags when set; else from the intent's
// lookup keys, else derived from the managed resource the way
// crossplane-runtime derives them.
func (c *Candidate) ExpectedTags() map[string]string {
	if len(c.SpecTags) > 0 {
		return maps.Clone(c.SpecTags)
	}
	out := CrossplaneTags(c.Intent.LookupKeys)
	if _, ok := out[TagCrossplaneKind]; !ok && c.GVK.Kind != "" {
		out[TagCrossplaneKind] = strings.ToLower(c.GVK.GroupKind().String())
	}
	if _, ok := out[TagCrossplaneName]; !ok && c.Intent.Resource.Name != "" {
		out[TagCrossplaneName] = c.Intent.Resource.Name
	}
	if _, ok := out[TagCrossplaneNamespace]; !ok && c.Intent.Resource.Namespace != "" {
		// A namespaced managed resource's tags name its namespace: without
		// it, the same name in another namespace would match.
		out[TagCrossplaneNamespace] = c.Intent.Resource.Namespace
	}
	if _, ok := out[TagCrossplaneProviderConfig]; !ok && c.Object != nil {
		if pc, _, _ := unstructured.NestedString(c.Object.Object, "spec", "providerConfigRef", "name"); pc != "" {
			out[TagCrossplaneProviderConfig] = pc
		}
	}
	if _, ok := out[TagCrossplaneProviderConfigKind]; !ok && c.Object != nil {
		if kind, _, _ := unstructured.NestedString(c.Object.Object, "spec", "providerConfigRef", "kind"); kind != "" {
			out[TagCrossplaneProviderConfigKind] = kind
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
	// CreatedAt is when the cloud created it, if the cloud says. A resource
	// created before the create began is never proven ours by crossplane
	// tags alone; one with no creation time is proven by them only weakly
	// (see Judge).
	CreatedAt time.Time
	// MatchedByTags is true when the Finder found the resource by tags
	// alone, not by a key the create needs (NewTagFinder sets it unless
	// the kind is NameKeyed). A look-alike found that way does not stand
	// in the create's way: with nothing of ours beside it, the intent is
	// cleared and the create runs, where a resource holding the natural
	// key is a conflict.
	MatchedByTags bool
	// Key is the key the Finder found the resource at, where it is not
	// the ID: the Terraform ID a kind's GetIDFn builds from the external
	// name and spec, which for a templated kind holds more than the
	// external name (zone and name). Empty means the ID is the key. A
	// resource is proven ours by an intent's VacantKey only at that key.
	Key string
	// KeyChecked is true when the Finder checked which other managed
	// resources hold or intend the key this resource sits at (Key, else ID):
	// KeyHolders names them, each as "Kind namespace/name" (or "Kind
	// name" when cluster-scoped). Only a checked key with no holders
	// proves a resource found at an intent's VacantKey ours
	// (ProofKeyVacant).
	KeyChecked bool
	KeyHolders []string
	// Identifiers are the cloud's own identifiers of the resource that an
	// observation reports (its arn, self link, id), where the Finder
	// observed it: what a listed identifier is verified against.
	Identifiers []string
	// Listed is true when ID is the cloud's own identifier of the
	// resource (an ARN, a GCP full resource name, an Azure ARM ID) as a tag
	// listing returned it, and nothing observed the resource: which
	// external name the provider would observe it at is not known
	// (inventory.Candidates gives the forms it may take). A listed
	// resource is never adopted: its ID is no external name to set
	// (ReasonExternalNameUnknown).
	Listed bool
	// Args says whether applying the arguments the candidate's create
	// sent (Candidate.CreateArgs) to the resource would change it, where
	// the Finder compared them (see "What a match is" in argschema.go):
	// the provider's own Observe does, and the Terraform importer, through
	// a plan of those arguments against the resource's state; any other
	// Finder through CompareArgs on the resource's Schema. A weak proof
	// (Proof.Weak) adopts only a resource whose arguments are ArgsSame;
	// one whose arguments are ArgsDifferent someone else made, and it is
	// never touched.
	Args ArgsMatch
	// ArgsDiffer names the arguments that would change (top-level fields
	// of spec.forProvider), an extra tag or an argument the create left
	// unset among them.
	ArgsDiffer []string
	// ArgsNotCompared names the arguments the create set that could not
	// be compared (sensitive, or write-only).
	ArgsNotCompared []string
}

// AtKey returns the key the resource sits at: Key, else ID.
func (r ExternalResource) AtKey() string {
	if r.Key != "" {
		return r.Key
	}
	return r.ID
}

// ArgsMatch is how a found resource compares with what the create sent.
type ArgsMatch string

// Comparisons of a found resource with the create's arguments.
const (
	// ArgsUnchecked: the Finder did not compare. A weak proof then does
	// not adopt.
	ArgsUnchecked ArgsMatch = ""
	// ArgsSame: every argument the create set has the value the resource
	// holds.
	ArgsSame ArgsMatch = "match"
	// ArgsDifferent: the resource differs from what the create sent in an
	// argument the create set. Found by a weak proof, it is someone
	// else's: adopting it would let the provider rewrite it.
	ArgsDifferent ArgsMatch = "differ"
)

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

// AbsenceProver is a Finder whose answer "nothing of this create's" does
// not always prove that the create made nothing: a tag listing cannot see
// a resource its create did not tag. The resolver asks it before Decide,
// which reports what it would otherwise clear (Rules.AbsenceUnproven).
type AbsenceProver interface {
	// AbsenceUnproven returns why finding nothing of c's create would not
	// prove that it made nothing, or "" when it would.
	AbsenceUnproven(c *Candidate) string
}

// AbsenceUnproven returns f's AbsenceUnproven for c when f is an
// AbsenceProver, else "": a Finder that observes the create's own ID or
// key proves, finding nothing there, that nothing was made.
func AbsenceUnproven(f Finder, c *Candidate) string {
	if ap, ok := f.(AbsenceProver); ok {
		return ap.AbsenceUnproven(c)
	}
	return ""
}

// AbsenceWaiter is a Finder whose answer "nothing of this create's"
// proves that the create made nothing only from a moment on: a listing of
// an index that lags the cloud. Until then Decide keeps the candidate
// unresolved (ReasonAbsenceNotYetProven), its create held, and a later
// pass looks again (Rules.AbsenceProvenAt).
type AbsenceWaiter interface {
	// AbsenceProvenAt returns the moment from which finding nothing of
	// c's create proves it made nothing; zero when it always does.
	AbsenceProvenAt(c *Candidate) time.Time
}

// AbsenceProvenAt returns f's AbsenceProvenAt for c when f is an
// AbsenceWaiter, else zero.
func AbsenceProvenAt(f Finder, c *Candidate) time.Time {
	if aw, ok := f.(AbsenceWaiter); ok {
		return aw.AbsenceProvenAt(c)
	}
	return time.Time{}
}

// TagLister lists the resources of one kind that carry every given tag.
type TagLister func(ctx context.Context, tags map[string]string) ([]ExternalResource, error)

// CandidateTagLister is a TagLister that also sees the candidate it lists
// for (an inventory that needs the managed resource's kind or region).
type CandidateTagLister func(ctx context.Context, c *Candidate, tags map[string]string) ([]ExternalResource, error)

// TagFinderOption configures NewTagFinder.
type TagFinderOption func(*tagFinderOptions)

type tagFinderOptions struct {
	nameKeyed, tagsAfter bool
	// lag is IndexLag's; now the clock for a candidate with no DeadBy.
	lag time.Duration
	now func() time.Time
}

// NameKeyed says whether the kind's spec is unique in the cloud although
// the cloud assigns its ID, so that a repeated create meets "already
// exists" (a route table association, a DNS record). What the lister finds
// then holds the key the create needs: it is not MatchedByTags, and a
// look-alike carrying the managed resource's crossplane tags blocks the
// create (a conflict) instead of being passed over as on an ID-keyed kind,
// where the create would only make a second resource.
func NameKeyed(on bool) TagFinderOption {
	return func(o *tagFinderOptions) { o.nameKeyed = on }
}

// TagsAfterCreate says whether the kind's cloud resource is tagged only
// after the create call, by a second call (terraform-provider-aws's
// aws_route53_zone, aws_ami and others: docs/recovery.md). A create killed
// between the two leaves a resource no tag listing finds, so the listing's
// finding nothing proves nothing: the candidate is reported, never
// cleared, since clearing would let the create run again and make a
// second resource.
func TagsAfterCreate(on bool) TagFinderOption {
	return func(o *tagFinderOptions) { o.tagsAfter = on }
}

// IndexLag says the lister reads an index that may be up to lag behind a
// create that has returned (Cloud Asset Inventory, Azure Resource Graph,
// the AWS Tagging API until its freshness is measured:
// inventory.Consistency). Finding nothing proves the create made nothing
// only once lag has passed since the latest moment the create can have
// reached the cloud (Candidate.DeadBy: when recovery first took the
// intent up, the process that ran it stopped), never since it began: a
// create that retried for minutes made its resource late. Until then the
// candidate stays unresolved, its create held, and a later pass lists
// again (AbsenceWaiter). Zero, the default, is a read-after-write source.
func IndexLag(lag time.Duration) TagFinderOption {
	return func(o *tagFinderOptions) { o.lag = lag }
}

// tagFinder lists by the crossplane tags the create would have set.
type tagFinder struct {
	list CandidateTagLister
	o    tagFinderOptions
}

var (
	_ AbsenceProver = (*tagFinder)(nil)
	_ AbsenceWaiter = (*tagFinder)(nil)
)

// NewTagFinder returns a Finder for kinds whose resources carry tags (an
// AWS VPC, the fake cloud's Network): it lists by the crossplane external
// tags the create would have set. This is the only way to find a resource
// whose ID the cloud assigns when the create's response was lost. What it
// finds is MatchedByTags unless the kind is NameKeyed. Its finding nothing
// proves nothing (AbsenceProver) when the kind is TagsAfterCreate or the
// create did not send the tags (Candidate.SentTags).
func NewTagFinder(list TagLister, opts ...TagFinderOption) Finder {
	return NewCandidateTagFinder(func(ctx context.Context, _ *Candidate, tags map[string]string) ([]ExternalResource, error) {
		return list(ctx, tags)
	}, opts...)
}

// NewCandidateTagFinder is NewTagFinder over a CandidateTagLister.
func NewCandidateTagFinder(list CandidateTagLister, opts ...TagFinderOption) Finder {
	f := &tagFinder{list: list, o: tagFinderOptions{now: time.Now}}
	for _, opt := range opts {
		opt(&f.o)
	}
	return f
}

// Find lists the resources carrying c's expected tags.
func (f *tagFinder) Find(ctx context.Context, c *Candidate) ([]ExternalResource, error) {
	tags := c.ExpectedTags()
	if tags[TagCrossplaneName] == "" || tags[TagCrossplaneKind] == "" {
		return nil, fmt.Errorf("cannot look up %s by tags: the crossplane-kind and crossplane-name tags are unknown", c.Intent.Resource)
	}
	found, err := f.list(ctx, c, tags)
	for i := range found {
		found[i].MatchedByTags = !f.o.nameKeyed
	}
	return found, err
}

// AbsenceUnproven says why a listing by tags cannot see what c's create
// made, if it cannot.
func (f *tagFinder) AbsenceUnproven(c *Candidate) string {
	switch {
	case f.o.tagsAfter:
		return "its kind's cloud resource is tagged only after the create call, so a create interrupted in between leaves a resource no listing by tags finds"
	case !c.SentTags():
		return "its create did not send the crossplane tags (the managed resource's spec did not carry them all when the create began), so no listing by tags finds what it made"
	}
	return ""
}

// AbsenceProvenAt returns when a listing that finds nothing proves c's
// create made nothing: IndexLag after the latest moment the create can
// have reached the cloud (Candidate.DeadBy, else now), zero for a
// read-after-write source.
func (f *tagFinder) AbsenceProvenAt(c *Candidate) time.Time {
	if f.o.lag <= 0 {
		return time.Time{}
	}
	latest := c.DeadBy
	if latest.IsZero() {
		latest = f.o.now()
	}
	return latest.Add(f.o.lag)
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
// else of spec.initProvider (upjet sends both with the create), keyed by
// their JSON names: SpecFields("zone", "name"). adapter.SpecFields reads
// the same fields of a typed managed resource.
func SpecFields(fields ...string) KeyFunc {
	return func(obj *unstructured.Unstructured) (map[string]string, error) {
		out := make(map[string]string, len(fields))
		for _, f := range fields {
			v, found, err := unstructured.NestedString(obj.Object, "spec", "forProvider", f)
			if err != nil || !found || v == "" {
				v, found, err = unstructured.NestedString(obj.Object, "spec", "initProvider", f)
			}
			if err != nil || !found || v == "" {
				return nil, fmt.Errorf("neither spec.forProvider.%s nor spec.initProvider.%s of %s is set", f, f, obj.GetName())
			}
			out[f] = v
		}
		return out, nil
	}
}

func cloneTags(m map[string]string) map[string]string { return maps.Clone(m) }
