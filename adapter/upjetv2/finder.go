package upjetv2

import (
	"context"
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
)

// NewObserveFinder returns a recovery.Finder for kinds whose external name
// is known before the create (upjet's NameAsExternalName, or any
// deterministic name): it asks the provider's own ExternalClient, through
// connector, whether a resource with the intent's intended external name
// exists (ObserveCreate; adapter.ObserveFinder). newManaged returns an
// empty managed resource of the kind.
//
// upjet's connectors keep per-UID Terraform state in their
// OperationTrackerStore. Build connector with a store of its own, never the
// reconcilers' (recovery must not touch in-flight reconcile state), and
// pass that store: the finder removes its entry after every lookup, so one
// lookup's state never answers the next.
func NewObserveFinder(connector managed.ExternalConnector, store *tjcontroller.OperationTrackerStore, newManaged func() resource.Managed) recovery.Finder {
	return adapter.ObserveFinder(func(ctx context.Context, obj *unstructured.Unstructured, args map[string]any, name string) ([]recovery.ExternalResource, error) {
		return ObserveCreate(ctx, connector, store, obj, args, nil, newManaged(), name)
	})
}

// ObserveCreate asks the provider's own ExternalClient, through connector,
// whether the managed resource obj, converted into mg (an empty managed
// resource of its kind) and given the external name name, exists in the
// cloud: one Terraform read by the ID the kind's GetIDFn builds from name.
// It returns the resource with the tags the observation reports, or
// nothing when it does not exist, and removes mg's entry from store, the
// connector's own OperationTrackerStore, before it returns. For a
// recovery lookup, obj carries in spec.forProvider the arguments args the
// create sent, so that the
// provider's own comparison of spec and state says whether what it finds
// is what the create sent (adapter.ObservedResource). With args nil (not
// known), the resource is returned unchecked. s, the kind's schema
// (sdkschema.Of its config.Resource's TerraformResource), names the
// arguments that would change; nil names none.
func ObserveCreate(ctx context.Context, connector managed.ExternalConnector, store *tjcontroller.OperationTrackerStore, obj *unstructured.Unstructured, args map[string]any, s *recovery.Schema, mg resource.Managed, name string) ([]recovery.ExternalResource, error) {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), mg); err != nil {
		return nil, fmt.Errorf("cannot convert the managed resource: %w", err)
	}
	meta.SetExternalName(mg, name)
	defer func() { _ = store.RemoveTracker(mg) }()
	ext, err := connector.Connect(ctx, mg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the provider: %w", err)
	}
	defer func() { _ = ext.Disconnect(ctx) }()
	// The Terraform ID the read is made at, which Connect built with the
	// kind's GetIDFn: the key a create's Observe found vacant.
	key, err := trackedID(store, mg)
	if err != nil {
		return nil, err
	}
	if key == "" && name == "" {
		// A read at no ID finds nothing, which would prove nothing.
		return nil, fmt.Errorf("cannot observe %s: no external name, and its GetIDFn builds no Terraform ID from its spec", mg.GetName())
	}
	obs, err := ext.Observe(ctx, mg)
	if err != nil {
		return nil, fmt.Errorf("cannot observe external name %q: %w", name, err)
	}
	if !obs.ResourceExists {
		return nil, nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return nil, fmt.Errorf("cannot read the observation: %w", err)
	}
	// Observe sets the external name the kind's GetExternalNameFn makes
	// of the state: for a kind the cloud names, the only way to know it.
	if n := meta.GetExternalName(mg); n != "" {
		name = n
	}
	r := adapter.ObservedResource(u, name, args, obs.ResourceUpToDate, s)
	if key != name {
		r.Key = key
	}
	return []recovery.ExternalResource{r}, nil
}
