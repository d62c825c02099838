package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// Inventory lists a cloud's resources of any kind by the tags a create
// sent: the cloud-specific half of the list-by-tags strategy (AWS Resource
// Groups Tagging API, GCP Cloud Asset Inventory, Azure Resource Graph; see
// docs/recovery.md). One Inventory serves every list-by-tags kind of a
// provider: the query names the kind and its Terraform resource type.
// DeriveFinders turns it into each such kind's recovery.TagLister.
type Inventory interface {
	ListByTags(ctx context.Context, q TagQuery) ([]recovery.ExternalResource, error)
}

// InventoryFn is a function that satisfies Inventory.
type InventoryFn func(ctx context.Context, q TagQuery) ([]recovery.ExternalResource, error)

// ListByTags calls f.
func (f InventoryFn) ListByTags(ctx context.Context, q TagQuery) ([]recovery.ExternalResource, error) {
	return f(ctx, q)
}

var _ Inventory = InventoryFn(nil)

// TagQuery is one list-by-tags lookup.
type TagQuery struct {
	// Kind is the managed kind, TerraformResource its Terraform resource
	// type (aws_vpc): what the inventory maps to the cloud's resource
	// type.
	Kind              schema.GroupKind
	TerraformResource string
	// Candidate is the create being resolved. Its intent's provider config
	// (else its managed resource's) names the account to list in.
	Candidate *recovery.Candidate
	// Tags must all be carried by a resource listed:
	// Candidate.ExpectedTags(), the crossplane tags the create sent.
	Tags map[string]string
}

// DerivedFinders is what a line's NewFinders derives from a provider's
// upjet configuration.
type DerivedFinders struct {
	// Finders holds a recovery.Finder for every kind whose strategy is not
	// report-only: Config.Finders.
	Finders map[schema.GroupKind]recovery.Finder
	// Kinds lists every managed kind the configuration registers, sorted:
	// Config.Kinds. A report-only kind is scanned too, so that its
	// unsettled creates are reported.
	Kinds []schema.GroupVersionKind
	// Strategies holds each kind's strategy and why.
	Strategies map[schema.GroupKind]KindStrategy
	// Probes holds a KeyProbe for every observe-by-template kind when
	// WithVacantKeys is given: Config.KeyProbes.
	Probes map[schema.GroupKind]KeyProbe
}

// KindStrategy is the strategy DeriveFinders chose for one kind.
type KindStrategy struct {
	TerraformResource string
	strategy.Decision
}

// ReportOnly returns the kinds whose strategy is report-only, sorted.
func (d *DerivedFinders) ReportOnly() []schema.GroupKind {
	var out []schema.GroupKind
	for gk, s := range d.Strategies {
		if s.Strategy == strategy.ReportOnly {
			out = append(out, gk)
		}
	}
	slices.SortFunc(out, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// FindersOption configures DeriveFinders, and so a line's NewFinders.
type FindersOption func(*findersOptions)

type findersOptions struct {
	templates *strategy.Templates
	inventory Inventory
	// lister and scope are WithLister's.
	lister     inventory.Lister
	scope      ListScopeFunc
	log        *zap.Logger
	registerer prometheus.Registerer
	nameKeyed  map[schema.GroupKind]bool
	tagsAfter  map[schema.GroupKind]bool
	// notTagsAfter are WithoutTagsAfterCreate's kinds, with its reason.
	notTagsAfter map[schema.GroupKind]string
	apiReader    client.Reader
	line         []any
}

// WithTemplates sets the ID templates, keyed by Terraform resource type,
// that make a cloud-assigned kind observe-by-template. It replaces
// strategy.DefaultTemplates; a provider that wants those too includes
// them (strategy.DecodeTemplates reads both files' format).
func WithTemplates(t strategy.Templates) FindersOption {
	return func(o *findersOptions) { o.templates = &t }
}

// WithInventory sets the cloud's Inventory. Without one, a kind whose
// strategy would be list-by-tags is report-only.
func WithInventory(inv Inventory) FindersOption {
	return func(o *findersOptions) { o.inventory = inv }
}

// WithNameKeyed declares kinds whose spec the cloud keeps unique although
// it assigns the ID (a repeated create meets "already exists"): what
// upjet's configuration does not say. For such a list-by-tags kind, what
// the inventory finds holds the key, so a look-alike that carries the
// managed resource's crossplane tags blocks the create (a conflict, the
// MR paused) instead of being passed over as on an ID-keyed kind, where
// the create would only meet a 409.
func WithNameKeyed(kinds ...schema.GroupKind) FindersOption {
	return func(o *findersOptions) {
		if o.nameKeyed == nil {
			o.nameKeyed = map[schema.GroupKind]bool{}
		}
		for _, gk := range kinds {
			o.nameKeyed[gk] = true
		}
	}
}

// WithTagsAfterCreate declares kinds whose cloud resource is tagged only
// after the create call (recovery.TagsAfterCreate): what upjet's
// configuration does not say. For such a list-by-tags kind, a listing
// that finds nothing is reported for an operator, never cleared: the
// create may have made an untagged resource before it was interrupted.
// The Terraform resource types the shipped lists name
// (strategy.ShippedTagsAfterCreate) are declared with no call; this adds
// to them.
func WithTagsAfterCreate(kinds ...schema.GroupKind) FindersOption {
	return func(o *findersOptions) {
		if o.tagsAfter == nil {
			o.tagsAfter = map[schema.GroupKind]bool{}
		}
		for _, gk := range kinds {
			o.tagsAfter[gk] = true
		}
	}
}

// WithoutTagsAfterCreate takes kinds off the shipped tags-after-create
// lists (strategy.ShippedTagsAfterCreate), for a stated reason (a provider
// that serves only AWS's commercial partition, where the partition
// fallbacks tag in the create request). DeriveFinders fails without a
// reason, and logs each kind taken off with it: an empty listing then
// clears such a create, which is safe only if the reason holds.
func WithoutTagsAfterCreate(reason string, kinds ...schema.GroupKind) FindersOption {
	return func(o *findersOptions) {
		if o.notTagsAfter == nil {
			o.notTagsAfter = map[schema.GroupKind]string{}
		}
		for _, gk := range kinds {
			o.notTagsAfter[gk] = reason
		}
	}
}

// WithVacantKeys turns on the key-vacant proof (recovery.ProofKeyVacant)
// for the observe-by-template kinds, what lets a kind with no tags (GCP's
// DNS record set) adopt after a crash with no operator:
//
//   - DerivedFinders.Probes gets a KeyProbe per such kind, for
//     Config.KeyProbes. Just before a create's intent is begun, it renders
//     the kind's ID template and observes that ID (one Terraform read);
//     when nothing is there it labels the managed resource KeyLabel, the
//     hash of the key (one API write), and the intent records the key as
//     VacantKey.
//   - The kind's finder, when it finds a resource at an intent's
//     VacantKey, lists every managed resource of the same Terraform
//     resource type (both scopes, every namespace, every shard) that
//     carries the key's label, through apiReader. apiReader must not be a
//     cache (mgr.GetAPIReader()): a label shard's cache does not see the
//     other shards' resources. Any other managed resource there may have
//     made the resource, so none of them is adopted: each is reported,
//     with the others named.
//
// Without it, what a tagless kind's lookup finds after a crash is
// reported and its managed resource paused until an operator binds it.
func WithVacantKeys(apiReader client.Reader) FindersOption {
	return func(o *findersOptions) { o.apiReader = apiReader }
}

// WithFindersLogger sets the logger of the derived finders' startup line.
// The zero Logger, the default, logs nothing.
func WithFindersLogger(l logr.Logger) FindersOption {
	return func(o *findersOptions) { o.log = logging.Zap(l) }
}

// WithFindersRegisterer sets where intentjournal_finder_kinds is
// registered; the default is controller-runtime's registry, which the
// manager's metrics endpoint serves.
func WithFindersRegisterer(r prometheus.Registerer) FindersOption {
	return func(o *findersOptions) { o.registerer = r }
}

// WithLineOption carries v, an option of a line's own NewFinders
// (upjetv2.WithTerraformCLI), that DeriveFinders does not read; the line
// reads it back with LineOptions.
func WithLineOption(v any) FindersOption {
	return func(o *findersOptions) { o.line = append(o.line, v) }
}

// LineOptions returns what WithLineOption carried in opts, in order.
func LineOptions(opts []FindersOption) []any {
	var o findersOptions
	for _, fn := range opts {
		fn(&o)
	}
	return o.line
}

// LookupFunc reads a kind that no in-process connector serves (one
// reconciled through the Terraform CLI) by external name: whether the
// resource that candidate c's create would have made under the external
// name name exists. obj is c's managed resource with the create's
// arguments in spec.forProvider, or as it is when they are unknown. For a
// key probe, c is made from the managed resource and holds no intent. It
// returns the resource (ID its external name, Tags, and Args compared with
// the create's where only a weak proof could make it ours), nothing when
// none exists, and an error when the lookup failed: never nothing for a
// failure. Calls may be batched (upjetv2.WithTerraformCLI: one Terraform
// plan per batch), so it must be safe for concurrent use.
type LookupFunc func(ctx context.Context, c *recovery.Candidate, obj *unstructured.Unstructured, name string) ([]recovery.ExternalResource, error)

// DerivedKind is what a line's NewFinders reads of one kind from its upjet
// configuration, for DeriveFinders.
type DerivedKind struct {
	// GVK is the managed kind.
	GVK schema.GroupVersionKind
	// Facts are the kind's strategy.Facts (its Terraform resource type
	// among them), from the line's KindFacts.
	Facts strategy.Facts
	// Observe observes the kind through the provider's own in-process
	// connector; nil when the kind is reconciled through the Terraform
	// CLI, which no in-process connector serves.
	Observe ObserveFunc
	// Lookup reads the kind where Observe is nil; nil when nothing can
	// (no upjetv2.WithTerraformCLI). The observe-by-name and
	// observe-by-template finders, and the key probe, read through it as
	// through Observe, and a list-by-tags finder compares what it lists
	// with the create's arguments through it.
	Lookup LookupFunc
	// Render renders the kind's ID template tmpl for mg, a managed
	// resource of the kind (typed, as New makes it).
	Render func(ctx context.Context, tmpl *strategy.Template, mg client.Object) (string, error)
	// New returns an empty managed resource of the kind, of its Go type.
	New func() client.Object
}

// DeriveFinders chooses each kind's finder strategy, strategy.Classify on
// its Facts given the templates (WithTemplates, default
// strategy.DefaultTemplates) and whether an Inventory was given
// (WithInventory), and builds its finder with no per-kind code:
//
//	observe-by-name      ObserveFinder: the provider's own Observe by the intent's external name
//	observe-by-template  the template rendered from the managed resource's Terraform parameters
//	                     (GetMergedParameters(true), TF conversions applied) and, where it reads .setup,
//	                     the Terraform setup (the kind's Render); then Observe by the rendered
//	                     ID as the external name (an IdentifierFromProvider kind's GetIDFn
//	                     makes it the Terraform ID)
//	list-by-tags         recovery.NewTagFinder over the Inventory, what a weak proof would
//	                     adopt observed and compared with the create's arguments
//	report-only          no finder: an unsettled create of the kind is reported
//
// A kind with no Observe (reconciled through the Terraform CLI, which no
// in-process connector serves) reads through its Lookup instead; with
// neither, it is report-only, and so is a list-by-tags kind with no
// Inventory. kube writes the key label of the key probes (WithVacantKeys).
//
// DeriveFinders logs one info line naming every report-only kind and sets
// the gauge intentjournal_finder_kinds{strategy} (docs/operations.md).
func DeriveFinders(kube client.Client, kinds []DerivedKind, opts ...FindersOption) (*DerivedFinders, error) {
	o := findersOptions{registerer: metrics.Registry, log: zap.NewNop()}
	for _, fn := range opts {
		fn(&o)
	}
	if err := o.applyTagsAfter(kinds); err != nil {
		return nil, err
	}
	if o.templates == nil {
		t, err := strategy.DefaultTemplates()
		if err != nil {
			return nil, wrap(err, "cannot read the default ID templates")
		}
		o.templates = &t
	}
	d := &DerivedFinders{Finders: map[schema.GroupKind]recovery.Finder{}, Strategies: map[schema.GroupKind]KindStrategy{}}
	if o.apiReader != nil {
		d.Probes = map[schema.GroupKind]KeyProbe{}
	}
	// claimants are the kinds of each Terraform resource type, both
	// scopes: where a key's other claimants are looked for. Filled in
	// before any finder runs.
	claimants := map[string][]schema.GroupVersionKind{}
	for _, k := range kinds {
		gk, tf := k.GVK.GroupKind(), k.Facts.TerraformResource
		inProcess := k.Observe != nil
		tmpl, _ := o.templates.Lookup(tf)
		dec := decide(k.Facts, *o.templates, inProcess, k.Lookup != nil, o.inventory != nil || o.lister != nil)
		if dec.Strategy == strategy.ListByTags && o.lister != nil && o.inventory == nil {
			dec = listedBy(dec, o.lister.Listing(tf))
		}
		d.Kinds = append(d.Kinds, k.GVK)
		d.Strategies[gk] = KindStrategy{TerraformResource: tf, Decision: dec}
		switch dec.Strategy {
		case strategy.ObserveByName:
			n := &nameKind{tfResource: tf, fromSpec: k.Facts.IDFromSpec && !k.Facts.IDKnownBeforeCreate, observe: k.observeFor, claimants: claimants}
			if o.apiReader != nil && inProcess {
				// Its create claims the key its in-process Observe found
				// vacant (WithObservedKeys): a key label of this type.
				// A Terraform CLI kind's create claims none.
				n.claims = o.apiReader
				claimants[tf] = append(claimants[tf], k.GVK)
			}
			d.Finders[gk] = recovery.FinderFn(n.find)
		case strategy.ObserveByTemplate:
			t := &templateKind{tfResource: tf, tmpl: tmpl, kube: kube, observe: k.observeFor(nil), render: k.Render, newManaged: k.New,
				claims: o.apiReader, claimants: claimants}
			find := t.find
			if !inProcess {
				// Each lookup reads on behalf of its own candidate.
				find = func(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
					tc := *t
					tc.observe = k.observeFor(c)
					return tc.find(ctx, c)
				}
			}
			d.Finders[gk] = recovery.FinderFn(find)
			if o.apiReader != nil {
				d.Probes[gk] = KeyProbeFn(t.probe)
				claimants[tf] = append(claimants[tf], k.GVK)
			}
		case strategy.ListByTags:
			if o.lister != nil {
				// What it lists is verified, and compared with the
				// create's arguments, by observing it.
				d.Finders[gk] = newListerFinder(gk, tf, &o, k.observeFor)
				break
			}
			f := newListFinder(gk, tf, o.inventory, o.nameKeyed[gk], o.tagsAfter[gk])
			switch {
			case inProcess:
				// An inventory returns IDs and tags: what only a weak
				// proof makes ours is observed, and compared with the
				// create's arguments, before it may be adopted.
				f = recovery.VerifyArgs(f, argsMatcher(k.Observe))
			case k.Lookup != nil:
				f = recovery.VerifyArgs(f, recovery.MatcherFn(func(ctx context.Context, c *recovery.Candidate, r recovery.ExternalResource) (recovery.ArgsMatch, []string, error) {
					return argsMatcher(k.observeFor(c)).Match(ctx, c, r)
				}))
			}
			d.Finders[gk] = f
		}
	}
	slices.SortFunc(d.Kinds, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	if err := d.record(o.log, o.registerer); err != nil {
		return nil, err
	}
	return d, nil
}

// applyTagsAfter declares tagged-after-create every kind whose Terraform
// resource type a shipped list names (strategy.ShippedTagsAfterCreate),
// then takes off those WithoutTagsAfterCreate names, each with its reason,
// logged.
func (o *findersOptions) applyTagsAfter(kinds []DerivedKind) error {
	if o.tagsAfter == nil {
		o.tagsAfter = map[schema.GroupKind]bool{}
	}
	for _, k := range kinds {
		if strategy.ShippedTagsAfterCreate(k.Facts.TerraformResource) {
			o.tagsAfter[k.GVK.GroupKind()] = true
		}
	}
	for _, gk := range slices.SortedFunc(maps.Keys(o.notTagsAfter), func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) }) {
		reason := o.notTagsAfter[gk]
		if strings.TrimSpace(reason) == "" {
			return fmt.Errorf("cannot derive the finders: WithoutTagsAfterCreate takes %s off the tags-after-create lists without a reason; an empty listing would then clear its creates", gk)
		}
		delete(o.tagsAfter, gk)
		o.log.Info("Kind taken off the tags-after-create lists: an empty listing clears its creates", zap.String("kind", gk.String()), zap.String("reason", reason))
	}
	return nil
}

// decide is strategy.Classify with what this process can run: a kind no
// in-process connector serves is observed only through its lookup
// (hasLookup), and nothing is listed without an inventory.
func decide(f strategy.Facts, t strategy.Templates, inProcess, hasLookup, hasInventory bool) strategy.Decision {
	d := strategy.Classify(f, t)
	observes := d.Strategy == strategy.ObserveByName || d.Strategy == strategy.ObserveByTemplate
	switch {
	case observes && !inProcess && !hasLookup:
		return strategy.Decision{Strategy: strategy.ReportOnly,
			Reason: "it is reconciled through the Terraform CLI, and no Terraform CLI was given to look it up with (upjetv2.WithTerraformCLI); " + d.Reason}
	case observes && !inProcess:
		d.Reason = "looked up through the Terraform CLI, one plan with import blocks per batch; " + d.Reason
	case !hasInventory && d.Strategy == strategy.ListByTags:
		return strategy.Decision{Strategy: strategy.ReportOnly,
			Reason: "no inventory was given (WithInventory); " + d.Reason}
	}
	return d
}

// listedBy is d, a list-by-tags decision, given what the lister's index
// holds of the kind's Terraform resource type: a type the index does not
// list is report-only, since no listing of it can find the create's
// resource or prove it absent.
func listedBy(d strategy.Decision, x inventory.Listing) strategy.Decision {
	if x.Listed {
		if x.Region != "" {
			d.Reason += fmt.Sprintf("; a global service's type, listed in its home region %s", x.Region)
		}
		return d
	}
	return strategy.Decision{Strategy: strategy.ReportOnly,
		Reason: fmt.Sprintf("the lister's index does not list %s (%s); %s", x.TerraformResource, x.Evidence, d.Reason)}
}

// observeFor returns k's reads as an ObserveFunc, for the finders and the
// probe: k.Observe, else k.Lookup on behalf of c; with c nil (the key
// probe), on behalf of a candidate made from the managed resource read.
func (k DerivedKind) observeFor(c *recovery.Candidate) ObserveFunc {
	if k.Observe != nil || k.Lookup == nil {
		return k.Observe
	}
	return func(ctx context.Context, obj *unstructured.Unstructured, _ map[string]any, name string) ([]recovery.ExternalResource, error) {
		cand := c
		if cand == nil {
			cand = probeCandidate(k.GVK, obj)
		}
		return k.Lookup(ctx, cand, obj, name)
	}
}

// probeCandidate returns a candidate for the key probe's read of obj, a
// managed resource of kind gvk about to be created: its identity, and no
// intent yet.
func probeCandidate(gvk schema.GroupVersionKind, obj *unstructured.Unstructured) *recovery.Candidate {
	return &recovery.Candidate{GVK: gvk, Object: obj, Intent: journal.Intent{Resource: journal.ResourceRef{
		APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: string(obj.GetUID()),
	}}}
}

// KeyLabel is the label a KeyProbe puts on a managed resource whose
// create found its key free: KeyLabelValue of the key. Recovery lists the
// key's claimants by it.
const KeyLabel = "intentjournal.io/key"

// KeyLabelValue returns the value of KeyLabel for key, an ID of the
// Terraform resource type tfResource: the first 60 hex digits of the
// SHA-256 of both, which fit a label value whatever the key holds. The key
// is normalised first where one cloud object has IDs of several spellings
// (claimKey), so that two managed resources claiming it are seen as
// claimants of one key.
func KeyLabelValue(tfResource, key string) string {
	sum := sha256.Sum256([]byte(tfResource + "\x00" + claimKey(tfResource, key)))
	return hex.EncodeToString(sum[:])[:60]
}

// claimKey returns the spelling of key, an ID of tfResource, that every
// spelling of the same cloud object's ID shares. An aws_route53_record's
// ID starts with its zone_id as given, which Route 53 takes with or
// without the /hostedzone/ prefix (terraform-provider-aws's cleanZoneID):
// the prefix is dropped.
func claimKey(tfResource, key string) string {
	if tfResource == "aws_route53_record" {
		return strings.TrimPrefix(key, "/hostedzone/")
	}
	return key
}

// newListFinder returns the list-by-tags Finder of gk over inv; a
// name-keyed kind (WithNameKeyed) is recovery.NameKeyed.
func newListFinder(gk schema.GroupKind, tfResource string, inv Inventory, nameKeyed, tagsAfter bool) recovery.Finder {
	return recovery.NewCandidateTagFinder(func(ctx context.Context, c *recovery.Candidate, tags map[string]string) ([]recovery.ExternalResource, error) {
		return inv.ListByTags(ctx, TagQuery{Kind: gk, TerraformResource: tfResource, Candidate: c, Tags: tags})
	}, recovery.NameKeyed(nameKeyed), recovery.TagsAfterCreate(tagsAfter))
}

// newFinderKinds returns the gauge intentjournal_finder_kinds.
func newFinderKinds() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "intentjournal_finder_kinds",
		Help: "Managed kinds by the recovery finder strategy derived for them from the upjet configuration.",
	}, []string{"strategy"})
}

// record logs the startup line and sets the gauge.
func (d *DerivedFinders) record(log *zap.Logger, reg prometheus.Registerer) error {
	g := newFinderKinds()
	if err := reg.Register(g); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return wrap(err, "cannot register intentjournal_finder_kinds")
		}
		existing, ok := are.ExistingCollector.(*prometheus.GaugeVec)
		if !ok {
			return wrap(err, "cannot register intentjournal_finder_kinds")
		}
		g = existing
	}
	counts := map[strategy.Strategy]int{}
	for _, s := range d.Strategies {
		counts[s.Strategy]++
	}
	fields := []zap.Field{zap.Int("kinds", len(d.Kinds))}
	for _, s := range strategy.Strategies {
		g.WithLabelValues(string(s)).Set(float64(counts[s]))
		fields = append(fields, zap.Int(string(s), counts[s]))
	}
	var ro []string
	for _, gk := range d.ReportOnly() {
		ro = append(ro, gk.String())
	}
	fields = append(fields, zap.Strings("report-only-kinds", ro))
	log.Info("Derived the recovery finders from the upjet configuration; report-only kinds are reported, never adopted or cleared", fields...)
	return nil
}
