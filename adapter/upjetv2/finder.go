package upjetv2

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
// whether the managed resource obj, converted into mg and given the
// external name name, exists in the cloud (adapter.ObserveCreate, which
// says what it returns). store is the connector's own
// OperationTrackerStore: mg's entry is removed before it returns. s, the
// kind's schema (sdkschema.Of its config.Resource's TerraformResource),
// names the arguments that would change; nil names none.
func ObserveCreate(ctx context.Context, connector managed.ExternalConnector, store *tjcontroller.OperationTrackerStore, obj *unstructured.Unstructured, args map[string]any, s *recovery.Schema, mg resource.Managed, name string) ([]recovery.ExternalResource, error) {
	connect := func(ctx context.Context, _ client.Object) (adapter.ObserveConn, error) {
		ext, err := connector.Connect(ctx, mg)
		if err != nil {
			return nil, err
		}
		return &observeConn{ext: ext, store: store, mg: mg}, nil
	}
	forget := func(client.Object) { _ = store.RemoveTracker(mg) }
	return adapter.ObserveCreate(ctx, connect, forget, obj, args, s, mg, name)
}

// observeConn is adapter.ObserveConn over an ExternalClient of mg.
type observeConn struct {
	ext   managed.ExternalClient
	store *tjcontroller.OperationTrackerStore
	mg    resource.Managed
}

func (c *observeConn) Key() (string, error) { return trackedID(c.store, c.mg) }

func (c *observeConn) Observe(ctx context.Context) (bool, bool, error) {
	obs, err := c.ext.Observe(ctx, c.mg)
	return obs.ResourceExists, obs.ResourceUpToDate, err
}

func (c *observeConn) Disconnect(ctx context.Context) { _ = c.ext.Disconnect(ctx) }
