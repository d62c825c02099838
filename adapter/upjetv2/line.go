package upjetv2

import (
	"context"
	"fmt"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// This file holds what the v2 line does differently from the legacy one:
// the rest of the package is shared with adapter/upjetv1, which
// hack/shimgen generates from it (see doc.go).

// Kind wraps the connector and callback provider of one managed kind
// around its shared create path (adapter.Kind). A nil *Kind wraps
// nothing: WrapConnector and WrapCallbacks return their argument, so a
// controller's Setup reads the same with intentjournal on or off.
type Kind struct {
	k *adapter.Kind
	// nameKnown is true for a kind whose external name is known before
	// its create (KindFor: KindFacts' IDKnownBeforeCreate).
	nameKnown bool
	// key reads the Terraform ID the kind's Observe is about to read at,
	// from upjet's OperationTrackerStore; nil reads none.
	key func(mg resource.Managed) string
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

// NotStarted reports whether an async connector's Create error means the
// operation was refused before its goroutine started: upjet v2.3 says
// "<type> operation that started at <t> is still running" (its async
// connectors and Workspace format it alike; TestNotStarted holds it to
// upjet's own).
func (line) NotStarted(err error) bool {
	return strings.Contains(err.Error(), "operation that started at") && strings.Contains(err.Error(), "is still running")
}

// ExternalTags returns the tags upjet sends with the create of mg:
// crossplane-runtime's, which add crossplane-namespace for a namespaced
// resource and the provider config's kind for a typed (ModernManaged)
// reference. mg's own GVK may be empty on a typed object, so the kind
// comes from gvk. The provider config is the typed reference's, or a
// ProviderConfig for an untyped (LegacyManaged) one.
func (line) ExternalTags(obj client.Object, gvk schema.GroupVersionKind) (map[string]string, journal.ProviderConfigRef, error) {
	mg, ok := obj.(resource.Managed)
	if !ok {
		return nil, journal.ProviderConfigRef{}, fmt.Errorf("cannot read the tags of %s: %T is not a managed resource", obj.GetName(), obj)
	}
	keys := resource.GetExternalTags(mg)
	keys[recovery.TagCrossplaneKind] = strings.ToLower(gvk.GroupKind().String())
	var pc journal.ProviderConfigRef
	switch r := mg.(type) {
	case resource.TypedProviderConfigReferencer:
		if ref := r.GetProviderConfigReference(); ref != nil && ref.Name != "" {
			pc = journal.ProviderConfigRef{Kind: ref.Kind, Name: ref.Name}
		}
	case resource.ProviderConfigReferencer:
		if ref := r.GetProviderConfigReference(); ref != nil && ref.Name != "" {
			pc = journal.ProviderConfigRef{Kind: "ProviderConfig", Name: ref.Name}
		}
	}
	return keys, pc, nil
}

// EventRecorder returns the manager's recorder of core Events, which
// recovery posts (IntentAdopted, IntentConflict, ...), as crossplane-runtime
// v2.2's managed reconciler does.
func (line) EventRecorder(mgr manager.Manager, name string) record.EventRecorder {
	//lint:ignore SA1019 recovery posts core Events through a record.EventRecorder, as crossplane-runtime v2.2 does; GetEventRecorder's events.k8s.io recorder is another API.
	return mgr.GetEventRecorderFor(name)
}

// Create returns the callback for the async create of the resource nn.
//
// It always asks cp's callback to request a reconcile, whatever upjet
// passed as requestReconcile. upjet v2's async connectors pass false for a
// failed create when an earlier error is still cached, trusting the
// managed reconciler's rate-limited requeue from the Create that returned
// that error. But a reconcile that runs while the create is in flight
// (woken by the intent annotation written at dispatch, or any other
// change) sees "ongoing async operation", reports the resource up to date
// and replaces that requeue with the poll interval. The resource whose
// create just failed would then wait up to --poll (10 minutes by default)
// for its next attempt, and recovery for its next look-up. upjet v1
// always requests the reconcile; so does this callback. A duplicate
// request is merged by the work queue.
func (c *callbacks) Create(nn types.NamespacedName, _ bool) terraform.CallbackFn {
	inner := c.inner.Create(nn, true)
	return func(err error, ctx context.Context) error {
		c.k.Created(ctx, nn, err)
		return inner(err, ctx)
	}
}

// Update returns cp's callback.
func (c *callbacks) Update(nn types.NamespacedName, requestReconcile bool) terraform.CallbackFn {
	return c.inner.Update(nn, requestReconcile)
}

// Destroy returns cp's callback.
func (c *callbacks) Destroy(nn types.NamespacedName, requestReconcile bool) terraform.CallbackFn {
	return c.inner.Destroy(nn, requestReconcile)
}
