package upjetv2

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/adapter"
)

// Config configures Setup: see adapter.Config.
type Config = adapter.Config

// DefaultReconcileTimeout is the managed reconciler timeout of upjet's
// generated controllers (managed.WithTimeout(3*time.Minute)).
const DefaultReconcileTimeout = adapter.DefaultReconcileTimeout

// Adapter is the crash-safe create path shared by a provider's kinds (the
// line-independent adapter.Adapter: journal, recovery Gate and Resolver,
// owner, metrics), whose kinds KindFor wraps from their upjet
// configuration. A nil *Adapter wraps nothing: KindFor returns a nil
// *Kind, HoldUntilRecovered its manager, ReconcileTimeout the default.
type Adapter struct {
	*adapter.Adapter
}

// Setup makes a provider's create path crash-safe in one call, before the
// manager starts (adapter.Setup on the v2 line): it registers the
// metrics, opens the journal and takes its file lock, and adds the
// recovery.Recoverer, whose Gate keeps every create blocked until the
// recovery pass has scanned, to mgr. Each kind's controller Setup finds
// the Adapter in the manager with KindFor.
func Setup(mgr manager.Manager, c Config, opts ...SetupOption) (*Adapter, error) {
	l := line{o: &setupOptions{}}
	for _, fn := range opts {
		fn(l.o)
	}
	a, err := adapter.Setup(mgr, c, l)
	if err != nil {
		return nil, err
	}
	return &Adapter{Adapter: a}, nil
}

// core returns the line-independent adapter, nil for a nil a.
func (a *Adapter) core() *adapter.Adapter {
	if a == nil {
		return nil
	}
	return a.Adapter
}

// kind returns the wrapper for the managed kind gvk of a plugin SDK or
// framework resource. store is the OperationTrackerStore of upjet's
// controller Options: after an async create it holds the Terraform state,
// and so the new resource's ID. A nil Adapter returns a nil *Kind. KindFor
// chooses opts from the kind's configuration.
func (a *Adapter) kind(gvk schema.GroupVersionKind, store *tjcontroller.OperationTrackerStore, opts ...adapter.KindOption) *Kind {
	if a == nil {
		return nil
	}
	return &Kind{k: a.Adapter.Kind(gvk, func(mg client.Object) (string, error) { return trackedID(store, mg) }, opts...),
		key: func(mg resource.Managed) string {
			id, err := trackedID(store, mg)
			if err != nil {
				return ""
			}
			return id
		}}
}

// HoldUntilRecovered is adapter.Adapter's; a nil Adapter returns mgr.
func (a *Adapter) HoldUntilRecovered(mgr manager.Manager) manager.Manager {
	return a.core().HoldUntilRecovered(mgr)
}

// ReconcileTimeout is adapter.Adapter's; a nil Adapter returns
// DefaultReconcileTimeout.
func (a *Adapter) ReconcileTimeout() time.Duration { return a.core().ReconcileTimeout() }

// Requeue is adapter.Adapter's; a nil Adapter sends nothing.
func (a *Adapter) Requeue(ctx context.Context, match func(namespace, name string) bool) (int, error) {
	return a.core().Requeue(ctx, match)
}

// RequeueBucket is adapter.Adapter's; a nil Adapter returns nil.
func (a *Adapter) RequeueBucket(ctx context.Context, bucketOf func(namespace, name string) int) func(bucket int) {
	return a.core().RequeueBucket(ctx, bucketOf)
}

// withConfiguredExternalName makes the callback of a plugin SDK or
// framework create settle with the external name r's GetExternalNameFn
// makes of the state the create left in store: the name upjet's own
// connectors set after a create and in every Observe (for a templated
// ID, a part of the ID). store is the one given to kind.
func withConfiguredExternalName(store *tjcontroller.OperationTrackerStore, r *config.Resource) adapter.KindOption {
	return adapter.WithCreatedState(trackedCreated(store, r))
}

// SetupOption configures what Setup adds on the v2 line beyond Config.
type SetupOption func(*setupOptions)

type setupOptions struct {
	reconcilerOptions []managed.ReconcilerOption
	// deterministicNames is WithDeterministicExternalNames.
	deterministicNames bool
}

// WithDeterministicExternalNames gives the managed reconciler of every
// wrapped kind whose external name is known before its create (the
// kind's KindFacts: NameAsIdentifier, ParameterAsIdentifier, templated
// IDs bound to arguments and setup) crossplane-runtime's
// managed.WithDeterministicExternalName(true), which upjet's default
// template never passes: a create whose last attempt is incomplete goes
// ahead to Observe the name it would use, instead of stopping with
// "cannot determine creation result". A kind whose ID the cloud assigns
// is left as it is: the recovery pass resolves its incomplete create. A
// provider whose own template already passes the option (provider-upjet-aws
// and -gcp do, for the same kinds) needs none of this; nothing here ever
// sets it false.
func WithDeterministicExternalNames() SetupOption {
	return func(o *setupOptions) { o.deterministicNames = true }
}

// WithReconcilerOptions adds opts to the managed reconciler of every kind
// wrapped through this Adapter: Kind.ReconcilerOptions returns them after
// its own, and the controllers upjet's pipeline generates from
// WrapControllerTemplate append those after upjet's options. It is where a
// generated provider sets a crossplane-runtime option that upjet's
// template has no place for, such as
// managed.WithDeterministicExternalName(true).
func WithReconcilerOptions(opts ...managed.ReconcilerOption) SetupOption {
	return func(o *setupOptions) { o.reconcilerOptions = append(o.reconcilerOptions, opts...) }
}

// line is the v2 line for the shared create path: the tags
// crossplane-runtime v2 derives (intent.go), upjet v2's refusal of a
// second operation (connector.go), the event recorder (recorder.go), and
// what Setup's options add (o, nil when Setup did not make the line).
type line struct {
	o *setupOptions
}

// reconcilerOptions returns WithReconcilerOptions' options.
func (l line) reconcilerOptions() []managed.ReconcilerOption {
	if l.o == nil {
		return nil
	}
	return l.o.reconcilerOptions
}

// deterministicNames reports whether WithDeterministicExternalNames is on.
func (l line) deterministicNames() bool { return l.o != nil && l.o.deterministicNames }

var _ adapter.Line = line{}
