package upjetv2

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/sdkschema"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// Inventory lists a cloud's resources of any kind by the tags a create
// sent, for the list-by-tags kinds: see adapter.Inventory.
type Inventory = adapter.Inventory

// InventoryFn is a function that satisfies Inventory.
type InventoryFn = adapter.InventoryFn

// TagQuery is one list-by-tags lookup of an Inventory.
type TagQuery = adapter.TagQuery

// FindersOption configures NewFinders.
type FindersOption = adapter.FindersOption

// DerivedFinders are the finders NewFinders derives: pass its Finders to
// Config.Finders (adapter.DerivedFinders).
type DerivedFinders = adapter.DerivedFinders

// Templates are the ID templates of cloud-assigned kinds, by Terraform
// resource type (strategy.Templates).
type Templates = strategy.Templates

// DecodeTemplates reads ID templates, one a line: a Terraform resource
// type, a tab, its template (strategy.DecodeTemplates).
func DecodeTemplates(r io.Reader) (Templates, error) { return strategy.DecodeTemplates(r) }

// ExternalResource is a cloud resource a lookup found, as an Inventory
// returns it (recovery.ExternalResource).
type ExternalResource = recovery.ExternalResource

// Lister lists a cloud's resources by tag (inventory.Lister): the
// listers of inventory/aws, inventory/gcp and inventory/azure.
type Lister = inventory.Lister

// ListScopeFunc returns the scope (account and region, project, subscription)
// a candidate is listed in (adapter.ListScopeFunc); SetupListScope makes one.
type ListScopeFunc = adapter.ListScopeFunc

// WithTemplates sets the ID templates that make a cloud-assigned kind
// observe-by-template (adapter.WithTemplates).
func WithTemplates(t Templates) FindersOption { return adapter.WithTemplates(t) }

// WithInventory sets the cloud's Inventory; without one, a list-by-tags
// kind is report-only (adapter.WithInventory).
func WithInventory(inv Inventory) FindersOption { return adapter.WithInventory(inv) }

// WithVacantKeys turns on the key-vacant proof for the
// observe-by-template kinds (adapter.WithVacantKeys); apiReader must not
// be a cache (mgr.GetAPIReader()).
func WithVacantKeys(apiReader client.Reader) FindersOption { return adapter.WithVacantKeys(apiReader) }

// WithLister lists the list-by-tags kinds through a cloud's tag lister
// (inventory/aws, inventory/gcp, inventory/azure), in the scope scope
// returns for each candidate, every listed identifier verified by
// observing it with the kind's own Observe (adapter.WithLister). It takes
// the place of WithInventory.
func WithLister(l Lister, scope ListScopeFunc) FindersOption {
	return adapter.WithLister(l, scope)
}

// WithFindersLogger sets the logger of NewFinders' startup line
// (adapter.WithFindersLogger).
func WithFindersLogger(l logr.Logger) FindersOption { return adapter.WithFindersLogger(l) }

// WithFindersRegisterer sets where intentjournal_finder_kinds is
// registered (adapter.WithFindersRegisterer).
func WithFindersRegisterer(r prometheus.Registerer) FindersOption {
	return adapter.WithFindersRegisterer(r)
}

// NewFinders derives a recovery finder for every managed kind the upjet
// configurations providers register (on v2, both scopes), with no
// per-kind code:
// adapter.DeriveFinders on each kind's KindFacts, observed through the
// in-process connector upjet's generated controllers use for it (plugin
// SDK or framework; a kind reconciled through the Terraform CLI has none),
// with its ID template rendered by RenderID. Every lookup connects through
// a connector of NewFinders' own, with an OperationTrackerStore of its
// own, never the reconcilers'. kube reads provider configs and secrets
// for the connectors; scheme creates the managed types, so it must know
// every kind.
//
// What a kind's configuration says comes from Configure: NameKeyed,
// TagsAfterCreate, NotTagsAfterCreate (adapter.WithNameKeyed,
// WithTagsAfterCreate and WithoutTagsAfterCreate). The shipped
// tags-after-create lists apply by Terraform resource type with no call
// (strategy.ShippedTagsAfterCreate).
//
// NewFinders logs one info line naming every report-only kind and sets
// the gauge intentjournal_finder_kinds{strategy} (docs/operations.md).
func NewFinders(kube client.Client, scheme *runtime.Scheme, setup terraform.SetupFn, providers []*config.Provider, opts ...FindersOption) (*DerivedFinders, error) {
	store := tjcontroller.NewOperationStore(logging.NewNopLogger())
	cliLookup, err := cliLookupsOf(opts)
	if err != nil {
		return nil, err
	}
	var kinds []adapter.DerivedKind
	var nameKeyed, tagsAfter []schema.GroupKind
	for _, p := range providers {
		for _, name := range slices.Sorted(maps.Keys(p.Resources)) {
			r := p.Resources[name]
			gvk := GroupVersionKindOf(p, r)
			if adapter.FactsOf(r).NameKeyed {
				nameKeyed = append(nameKeyed, gvk.GroupKind())
			}
			if adapter.FactsOf(r).TagsAfterCreate {
				tagsAfter = append(tagsAfter, gvk.GroupKind())
			}
			if why := adapter.FactsOf(r).NotTagsAfterCreate; why != "" {
				opts = append(opts, adapter.WithoutTagsAfterCreate(why, gvk.GroupKind()))
			}
			newManaged, err := managedFactory(scheme, gvk)
			if err != nil {
				return nil, err
			}
			k := adapter.DerivedKind{
				GVK:   gvk,
				Facts: KindFacts(r),
				New:   func() client.Object { return newManaged() },
				Render: func(ctx context.Context, tmpl *strategy.Template, obj client.Object) (string, error) {
					mg, ok := obj.(xpresource.Managed)
					if !ok {
						return "", fmt.Errorf("cannot render the ID of %T: not a managed resource", obj)
					}
					return RenderID(ctx, r, tmpl, mg, func(ctx context.Context) (map[string]any, error) {
						ts, err := setup(ctx, kube, mg)
						if err != nil {
							return nil, fmt.Errorf("cannot build the Terraform setup: %w", err)
						}
						return ts.Map(), nil
					})
				},
			}
			if conn, inProcess := newConnector(kube, setup, r, store); inProcess {
				s := sdkschema.Of(r.TerraformResource)
				k.Observe = func(ctx context.Context, obj *unstructured.Unstructured, args map[string]any, name string) ([]recovery.ExternalResource, error) {
					return ObserveCreate(ctx, conn, store, obj, args, s, newManaged(), name)
				}
			} else if cliLookup != nil {
				k.Lookup = cliLookup(kube, setup, r, newManaged)
			}
			kinds = append(kinds, k)
		}
	}
	if len(nameKeyed) > 0 {
		opts = append([]FindersOption{adapter.WithNameKeyed(nameKeyed...)}, opts...)
	}
	if len(tagsAfter) > 0 {
		opts = append([]FindersOption{adapter.WithTagsAfterCreate(tagsAfter...)}, opts...)
	}
	return adapter.DeriveFinders(kube, kinds, opts...)
}

// cliLookupFunc returns the lookup of r, a kind reconciled through the
// Terraform CLI, which has no in-process connector to observe through.
type cliLookupFunc func(kube client.Client, setup terraform.SetupFn, r *config.Resource, newManaged func() xpresource.Managed) adapter.LookupFunc

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
		return nil, fmt.Errorf("cannot derive the finder of %s: the scheme does not know it: %w", gvk, err)
	}
	if _, ok := obj.(xpresource.Managed); !ok {
		return nil, fmt.Errorf("cannot derive the finder of %s: %T is not a managed resource", gvk, obj)
	}
	if _, ok := obj.(ujresource.Terraformed); !ok {
		return nil, fmt.Errorf("cannot derive the finder of %s: %T is not an upjet Terraformed resource", gvk, obj)
	}
	return func() xpresource.Managed {
		o, _ := scheme.New(gvk)
		return o.(xpresource.Managed)
	}, nil
}

// newConnector returns the in-process connector upjet's generated
// controllers use for r, built synchronous (Observe is the same) and
// quiet; false for a kind reconciled through the Terraform CLI.
func newConnector(kube client.Client, setup terraform.SetupFn, r *config.Resource, store *tjcontroller.OperationTrackerStore) (managed.ExternalConnector, bool) {
	nop := logging.NewNopLogger()
	switch {
	case r.ShouldUseTerraformPluginFrameworkClient():
		return tjcontroller.NewTerraformPluginFrameworkConnector(kube, setup, r, store, tjcontroller.WithTerraformPluginFrameworkLogger(nop)), true
	case r.ShouldUseTerraformPluginSDKClient():
		return tjcontroller.NewTerraformPluginSDKConnector(kube, setup, r, store, tjcontroller.WithTerraformPluginSDKLogger(nop)), true
	}
	return nil, false
}

// RenderID renders tmpl for the managed resource mg of kind r as upjet's
// GetIDFn would: on mg's Terraform parameters with spec.initProvider
// merged under spec.forProvider (GetMergedParameters(true): a field set in
// both takes forProvider's value), as upjet's connectors merge them with
// management policies on, the default of provider-upjet-aws, -gcp and
// -azure, and with r's Terraform conversions applied; and, only when tmpl
// reads .setup, the map setup returns. A field set only in initProvider
// is sent with the create, so the ID the create takes depends on it. The external name is empty: a template of a
// cloud-assigned kind cannot use it (strategy.Classify).
func RenderID(ctx context.Context, r *config.Resource, tmpl *strategy.Template, mg xpresource.Managed, setup func(context.Context) (map[string]any, error)) (string, error) {
	tr, ok := mg.(ujresource.Terraformed)
	if !ok {
		return "", fmt.Errorf("cannot render the ID of %T: not an upjet Terraformed resource", mg)
	}
	params, err := tr.GetMergedParameters(true)
	if err != nil {
		return "", fmt.Errorf("cannot get the Terraform parameters: %w", err)
	}
	if params, err = r.ApplyTFConversions(params, config.ToTerraform); err != nil {
		return "", fmt.Errorf("cannot apply the Terraform conversions: %w", err)
	}
	s := map[string]any{"configuration": map[string]any{}, "client_metadata": map[string]any{}}
	if tmpl.UsesSetup() {
		if s, err = setup(ctx); err != nil {
			return "", err
		}
	}
	return tmpl.Render("", params, s)
}
