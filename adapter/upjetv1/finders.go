package upjetv1

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/pkg/errors"
	"github.com/crossplane/crossplane-runtime/pkg/logging"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/upjet/pkg/config"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ujresource "github.com/crossplane/upjet/pkg/resource"
	"github.com/crossplane/upjet/pkg/terraform"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// TagLister lists a cloud's resources of one kind by the tags a create
// sent: the cloud-specific half of the list-by-tags strategy (AWS Resource
// Groups Tagging API, GCP Cloud Asset Inventory, Azure Resource Graph; see
// docs/recovery.md). One lister serves every list-by-tags kind of a
// provider: the query names the kind and its Terraform resource type.
type TagLister interface {
	ListByTags(ctx context.Context, q TagQuery) ([]recovery.ExternalResource, error)
}

// TagListerFn is a function that satisfies TagLister.
type TagListerFn func(ctx context.Context, q TagQuery) ([]recovery.ExternalResource, error)

// ListByTags calls f.
func (f TagListerFn) ListByTags(ctx context.Context, q TagQuery) ([]recovery.ExternalResource, error) {
	return f(ctx, q)
}

var _ TagLister = TagListerFn(nil)

// TagQuery is one list-by-tags lookup.
type TagQuery struct {
	// Kind is the managed kind, TerraformResource its Terraform resource
	// type (aws_vpc): what the lister maps to the cloud's resource type.
	Kind              schema.GroupKind
	TerraformResource string
	// Candidate is the create being resolved. Its intent's provider config
	// (else its managed resource's) names the account to list in.
	Candidate *recovery.Candidate
	// Tags must all be carried by a resource listed:
	// Candidate.ExpectedTags(), the crossplane tags the create sent.
	Tags map[string]string
}

// DerivedFinders is what NewFinders derives from a provider's upjet
// configuration.
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

// KindStrategy is the strategy NewFinders chose for one kind.
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

// FindersOption configures NewFinders.
type FindersOption func(*findersOptions)

type findersOptions struct {
	templates    *strategy.Templates
	lister       TagLister
	log          *zap.Logger
	registerer   prometheus.Registerer
	nameKeyed    map[schema.GroupKind]bool
	apiReader    client.Reader
	newConnector func(kube client.Client, setup terraform.SetupFn, r *config.Resource, store *tjcontroller.OperationTrackerStore) (managed.ExternalConnecter, bool)
}

// WithTemplates sets the ID templates, keyed by Terraform resource type,
// that make a cloud-assigned kind observe-by-template. It replaces
// strategy.DefaultTemplates; a provider that wants those too includes
// them (strategy.DecodeTemplates reads both files' format).
func WithTemplates(t strategy.Templates) FindersOption {
	return func(o *findersOptions) { o.templates = &t }
}

// WithTagLister sets the cloud's tag lister. Without one, a kind whose
// strategy would be list-by-tags is report-only.
func WithTagLister(l TagLister) FindersOption {
	return func(o *findersOptions) { o.lister = l }
}

// WithNameKeyed declares kinds whose spec the cloud keeps unique although
// it assigns the ID (a repeated create meets "already exists"): what
// upjet's configuration does not say. For such a list-by-tags kind, what
// the lister finds holds the key, so a look-alike that carries the
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

// WithFindersLogger sets the logger of NewFinders' startup line. A nil
// logger, the default, logs nothing.
func WithFindersLogger(l *zap.Logger) FindersOption {
	return func(o *findersOptions) { o.log = l }
}

// WithFindersRegisterer sets where intentjournal_finder_kinds is
// registered; the default is controller-runtime's registry, which the
// manager's metrics endpoint serves.
func WithFindersRegisterer(r prometheus.Registerer) FindersOption {
	return func(o *findersOptions) { o.registerer = r }
}

// NewFinders derives a recovery.Finder for every managed kind the upjet
// configurations providers register (a v1 provider passes its one, a v2
// provider both scopes'), with no per-kind code: strategy.Classify chooses
// each kind's strategy from KindFacts and the ID templates, and NewFinders
// builds it.
//
//	observe-by-name      NewObserveFinder: the provider's own Observe (a Terraform read) by the
//	                     intent's intended external name, through a connector of the kind
//	observe-by-template  the template rendered from the managed resource's Terraform parameters
//	                     (GetParameters, TF conversions applied) and, where it reads .setup,
//	                     the Terraform setup setup builds; then Observe by the rendered ID as
//	                     the external name (an IdentifierFromProvider kind's GetIDFn makes
//	                     it the Terraform ID)
//	list-by-tags         recovery.NewTagFinder over the TagLister (WithTagLister)
//	report-only          no finder: an unsettled create of the kind is reported
//
// A kind reconciled through the Terraform CLI, which no in-process
// connector serves, and a list-by-tags kind with no TagLister, are
// report-only. Every lookup connects through a connector of NewFinders'
// own, with an OperationTrackerStore of its own, never the reconcilers'.
// kube reads provider configs and secrets for the connectors; scheme
// creates the managed types, so it must know every kind.
//
// NewFinders logs one info line naming every report-only kind and sets
// the gauge intentjournal_finder_kinds{strategy} (docs/operations.md).
func NewFinders(kube client.Client, scheme *runtime.Scheme, setup terraform.SetupFn, providers []*config.Provider, opts ...FindersOption) (*DerivedFinders, error) {
	o := findersOptions{registerer: metrics.Registry, newConnector: newConnector, log: zap.NewNop()}
	for _, fn := range opts {
		fn(&o)
	}
	if o.log == nil {
		o.log = zap.NewNop()
	}
	if o.templates == nil {
		t, err := strategy.DefaultTemplates()
		if err != nil {
			return nil, errors.Wrap(err, "cannot read the default ID templates")
		}
		o.templates = &t
	}
	d := &DerivedFinders{Finders: map[schema.GroupKind]recovery.Finder{}, Strategies: map[schema.GroupKind]KindStrategy{}}
	if o.apiReader != nil {
		d.Probes = map[schema.GroupKind]KeyProbe{}
	}
	store := tjcontroller.NewOperationStore(logging.NewNopLogger())
	// claimants are the kinds of each Terraform resource type, both
	// scopes: where a key's other claimants are looked for. Filled in
	// before any finder runs.
	claimants := map[string][]schema.GroupVersionKind{}
	for _, p := range providers {
		for _, name := range slices.Sorted(maps.Keys(p.Resources)) {
			r := p.Resources[name]
			gvk := GroupVersionKindOf(p, r)
			newManaged, err := managedFactory(scheme, gvk)
			if err != nil {
				return nil, err
			}
			conn, inProcess := o.newConnector(kube, setup, r, store)
			tmpl, _ := o.templates.Lookup(r.Name)
			dec := decide(KindFacts(r), *o.templates, inProcess, o.lister != nil)
			d.Kinds = append(d.Kinds, gvk)
			d.Strategies[gvk.GroupKind()] = KindStrategy{TerraformResource: r.Name, Decision: dec}
			switch dec.Strategy {
			case strategy.ObserveByName:
				d.Finders[gvk.GroupKind()] = NewObserveFinder(conn, store, newManaged)
			case strategy.ObserveByTemplate:
				t := &templateKind{r: r, tmpl: tmpl, kube: kube, setup: setup, conn: conn, store: store, newManaged: newManaged,
					claims: o.apiReader, claimants: claimants}
				d.Finders[gvk.GroupKind()] = recovery.FinderFn(t.find)
				if o.apiReader != nil {
					d.Probes[gvk.GroupKind()] = KeyProbeFn(t.probe)
					claimants[r.Name] = append(claimants[r.Name], gvk)
				}
			case strategy.ListByTags:
				f := newListFinder(gvk.GroupKind(), r.Name, o.lister, o.nameKeyed[gvk.GroupKind()])
				if inProcess {
					// A lister returns IDs and tags: what only a weak
					// proof makes ours is observed, and compared with
					// the create's arguments, before it may be adopted.
					f = recovery.VerifyArgs(f, argsMatcher(conn, store, newManaged))
				}
				d.Finders[gvk.GroupKind()] = f
			}
		}
	}
	slices.SortFunc(d.Kinds, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	if err := d.record(o.log, o.registerer); err != nil {
		return nil, err
	}
	return d, nil
}

// decide is strategy.Classify with what this process can run: a kind no
// in-process connector serves can be neither observed nor, without a
// lister, listed.
func decide(f strategy.Facts, t strategy.Templates, inProcess, hasLister bool) strategy.Decision {
	d := strategy.Classify(f, t)
	switch {
	case !inProcess && (d.Strategy == strategy.ObserveByName || d.Strategy == strategy.ObserveByTemplate):
		return strategy.Decision{Strategy: strategy.ReportOnly,
			Reason: "it is reconciled through the Terraform CLI, and the derived finders observe only through the in-process plugin SDK and framework connectors; " + d.Reason}
	case !hasLister && d.Strategy == strategy.ListByTags:
		return strategy.Decision{Strategy: strategy.ReportOnly,
			Reason: "no tag lister was given (WithTagLister); " + d.Reason}
	}
	return d
}

// GroupVersionKindOf returns the kind upjet generates for r in p: its
// group is r.ShortGroup under p.RootGroup, or p.RootGroup itself when
// ShortGroup is empty.
func GroupVersionKindOf(p *config.Provider, r *config.Resource) schema.GroupVersionKind {
	group := p.RootGroup
	if r.ShortGroup != "" {
		group = strings.ToLower(r.ShortGroup) + "." + p.RootGroup
	}
	return schema.GroupVersionKind{Group: group, Version: r.Version, Kind: r.Kind}
}

// managedFactory returns a constructor of empty managed resources of gvk.
func managedFactory(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (func() xpresource.Managed, error) {
	obj, err := scheme.New(gvk)
	if err != nil {
		return nil, errors.Wrapf(err, "cannot derive the finder of %s: the scheme does not know it", gvk)
	}
	if _, ok := obj.(xpresource.Managed); !ok {
		return nil, errors.Errorf("cannot derive the finder of %s: %T is not a managed resource", gvk, obj)
	}
	if _, ok := obj.(ujresource.Terraformed); !ok {
		return nil, errors.Errorf("cannot derive the finder of %s: %T is not an upjet Terraformed resource", gvk, obj)
	}
	return func() xpresource.Managed {
		o, _ := scheme.New(gvk)
		return o.(xpresource.Managed)
	}, nil
}

// newConnector returns the in-process connector upjet's generated
// controllers use for r, built synchronous (Observe is the same) and
// quiet; false for a kind reconciled through the Terraform CLI.
func newConnector(kube client.Client, setup terraform.SetupFn, r *config.Resource, store *tjcontroller.OperationTrackerStore) (managed.ExternalConnecter, bool) {
	nop := logging.NewNopLogger()
	switch {
	case r.ShouldUseTerraformPluginFrameworkClient():
		return tjcontroller.NewTerraformPluginFrameworkConnector(kube, setup, r, store, tjcontroller.WithTerraformPluginFrameworkLogger(nop)), true
	case r.ShouldUseTerraformPluginSDKClient():
		return tjcontroller.NewTerraformPluginSDKConnector(kube, setup, r, store, tjcontroller.WithTerraformPluginSDKLogger(nop)), true
	}
	return nil, false
}

// KeyLabel is the label a KeyProbe puts on a managed resource whose
// create found its key free: KeyLabelValue of the key. Recovery lists the
// key's claimants by it.
const KeyLabel = "intentjournal.io/key"

// KeyLabelValue returns the value of KeyLabel for key, an ID of the
// Terraform resource type tfResource: the first 60 hex digits of the
// SHA-256 of both, which fit a label value whatever the key holds.
func KeyLabelValue(tfResource, key string) string {
	sum := sha256.Sum256([]byte(tfResource + "\x00" + key))
	return hex.EncodeToString(sum[:])[:60]
}

// templateKind is one observe-by-template kind: its finder and, with
// WithVacantKeys, its KeyProbe.
type templateKind struct {
	r          *config.Resource
	tmpl       *strategy.Template
	kube       client.Client
	setup      terraform.SetupFn
	conn       managed.ExternalConnecter
	store      *tjcontroller.OperationTrackerStore
	newManaged func() xpresource.Managed
	// claims, when set, reads the claimants of a key (WithVacantKeys).
	claims    client.Reader
	claimants map[string][]schema.GroupVersionKind
}

// find is the observe-by-template Finder: the ID the template renders
// from the managed resource's Terraform parameters (and setup, where the
// template reads it), observed as the external name. A resource found at
// the intent's VacantKey carries the key's other claimants.
func (t *templateKind) find(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
	if c.Object == nil {
		return nil, fmt.Errorf("cannot observe %s: the managed resource was deleted", c.Intent.Resource)
	}
	// The key is rendered from what the create sent: a spec edited since
	// names another key.
	obj, args, err := createObject(c)
	if err != nil {
		return nil, err
	}
	mg := t.newManaged()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), mg); err != nil {
		return nil, errors.Wrap(err, "cannot convert the managed resource")
	}
	id, err := t.render(ctx, mg)
	if err != nil {
		return nil, err
	}
	found, err := ObserveCreate(ctx, t.conn, t.store, obj, args, t.newManaged(), id)
	if err != nil || len(found) == 0 || t.claims == nil || c.Intent.VacantKey != id {
		return found, err
	}
	holders, err := t.otherClaimants(ctx, id, c.Object.GetUID())
	if err != nil {
		return nil, err
	}
	found[0].KeyChecked, found[0].KeyHolders = true, holders
	return found, nil
}

// probe is the KeyProbe: it renders mg's key and observes it; when
// nothing is there, it labels mg with the key's hash before it answers
// vacant, so that a crash after the create leaves the claim where every
// replica's recovery reads it.
func (t *templateKind) probe(ctx context.Context, mg xpresource.Managed) (string, bool, error) {
	id, err := t.render(ctx, mg)
	if err != nil {
		return "", false, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return "", false, errors.Wrap(err, "cannot convert the managed resource")
	}
	found, err := ObserveAs(ctx, t.conn, t.store, &unstructured.Unstructured{Object: u}, t.newManaged(), id)
	if err != nil {
		return "", false, err
	}
	if len(found) > 0 {
		return id, false, nil
	}
	v := KeyLabelValue(t.r.Name, id)
	if mg.GetLabels()[KeyLabel] == v {
		return id, true, nil
	}
	obj := t.newManaged()
	obj.SetName(mg.GetName())
	obj.SetNamespace(mg.GetNamespace())
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, KeyLabel, v)
	if err := t.kube.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return "", false, errors.Wrap(err, "cannot label the managed resource with the key it claims")
	}
	// Keep the reconciler's copy in step, so its own writes that follow
	// (the critical annotations) do not conflict.
	labels := mg.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[KeyLabel] = v
	mg.SetLabels(labels)
	mg.SetResourceVersion(obj.GetResourceVersion())
	return id, true, nil
}

// render renders the kind's ID template for mg.
func (t *templateKind) render(ctx context.Context, mg xpresource.Managed) (string, error) {
	return RenderID(ctx, t.r, t.tmpl, mg, func(ctx context.Context) (map[string]any, error) {
		ts, err := t.setup(ctx, t.kube, mg)
		if err != nil {
			return nil, errors.Wrap(err, "cannot build the Terraform setup")
		}
		return ts.Map(), nil
	})
}

// otherClaimants returns the managed resources of the kind's Terraform
// resource type, but uid, labelled as claiming key: "Kind namespace/name".
func (t *templateKind) otherClaimants(ctx context.Context, key string, uid types.UID) ([]string, error) {
	sel := client.MatchingLabels{KeyLabel: KeyLabelValue(t.r.Name, key)}
	var out []string
	for _, gvk := range t.claimants[t.r.Name] {
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := t.claims.List(ctx, l, sel); err != nil {
			return nil, errors.Wrapf(err, "cannot list the %s that claim %s", gvk.Kind, key)
		}
		for _, o := range l.Items {
			if o.GetUID() == uid {
				continue
			}
			name := o.GetName()
			if ns := o.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
			out = append(out, gvk.Kind+" "+name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// RenderID renders tmpl for the managed resource mg of kind r as upjet's
// GetIDFn would: on mg's Terraform parameters (GetParameters, with r's
// Terraform conversions applied) and, only when tmpl reads .setup, the
// map setup returns. The external name is empty: a template of a
// cloud-assigned kind cannot use it (strategy.Classify).
func RenderID(ctx context.Context, r *config.Resource, tmpl *strategy.Template, mg xpresource.Managed, setup func(context.Context) (map[string]any, error)) (string, error) {
	tr, ok := mg.(ujresource.Terraformed)
	if !ok {
		return "", errors.Errorf("cannot render the ID of %T: not an upjet Terraformed resource", mg)
	}
	params, err := tr.GetParameters()
	if err != nil {
		return "", errors.Wrap(err, "cannot get the Terraform parameters")
	}
	if params, err = r.ApplyTFConversions(params, config.ToTerraform); err != nil {
		return "", errors.Wrap(err, "cannot apply the Terraform conversions")
	}
	s := map[string]any{"configuration": map[string]any{}, "client_metadata": map[string]any{}}
	if tmpl.UsesSetup() {
		if s, err = setup(ctx); err != nil {
			return "", err
		}
	}
	return tmpl.Render("", params, s)
}

// newListFinder returns the list-by-tags Finder of gk over l; a
// name-keyed kind (WithNameKeyed) is recovery.NameKeyed.
func newListFinder(gk schema.GroupKind, tfResource string, l TagLister, nameKeyed bool) recovery.Finder {
	return recovery.FinderFn(func(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
		return recovery.NewTagFinder(func(ctx context.Context, tags map[string]string) ([]recovery.ExternalResource, error) {
			return l.ListByTags(ctx, TagQuery{Kind: gk, TerraformResource: tfResource, Candidate: c, Tags: tags})
		}, recovery.NameKeyed(nameKeyed)).Find(ctx, c)
	})
}

// finderKinds is the gauge intentjournal_finder_kinds.
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
			return errors.Wrap(err, "cannot register intentjournal_finder_kinds")
		}
		existing, ok := are.ExistingCollector.(*prometheus.GaugeVec)
		if !ok {
			return errors.Wrap(err, "cannot register intentjournal_finder_kinds")
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
