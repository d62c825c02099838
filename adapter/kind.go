package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// KindOption configures a Kind.
type KindOption func(*Kind)

// WithNaturalKey records the kind's natural-key fields in every intent's
// lookup keys, so a Finder can look the resource up after its managed
// resource was deleted (e.g. SpecFields("zone", "name")).
func WithNaturalKey(fn KeyFunc) KindOption { return func(k *Kind) { k.keys = fn } }

// WithExternalNameFromID sets how the Terraform ID read from upjet's
// OperationTrackerStore (the Kind's TerraformIDFunc) becomes the external
// name. The default is the ID itself, right for config.IdentifierFromProvider
// kinds.
func WithExternalNameFromID(fn func(tfID string) (string, error)) KindOption {
	return func(k *Kind) { k.nameFromID = fn }
}

// WithObservedKeys makes the kind claim, at no API write or read of its
// own, the key its reconcile's own Observe found vacant just before a
// create: the Terraform ID the kind's GetIDFn built from the external
// name and spec, which a line passes to ObservedKey. tfResource is the
// kind's Terraform resource type, which scopes the key (KeyLabelValue).
// It gives every kind whose ID is known before the create (observe-by-name,
// and a cloud-named kind whose GetIDFn builds its ID from spec alone) the
// key-vacant proof (recovery.ProofKeyVacant) that WithVacantKeys' finders
// check, so that such a kind with no tags adopts what an interrupted
// create made with no operator.
func WithObservedKeys(tfResource string) KindOption {
	return func(k *Kind) { k.keyResource = tfResource }
}

// TerraformIDFunc returns the Terraform ID that the async create of obj
// left in upjet's OperationTrackerStore, or "" when it holds none. A line
// reads it from its upjet's operation tracker.
type TerraformIDFunc func(obj client.Object) (string, error)

// CreatedState is what a succeeded async create left for its callback to
// settle with: the new resource's Terraform ID ("" when none is there),
// or, from a CreatedStateFunc that derives it from the state as upjet
// does (the lines' WorkspaceKind and WithConfiguredExternalName), the
// external name itself, which the Kind's WithExternalNameFromID, the
// identity unless set, then leaves as it is; and the annotations the
// line's own Observe sets beside the external name from the same state. The callback's external-name patch carries
// those annotations too, so that the Observe after the create finds
// nothing to write and makes none of its own (upjet's Terraform CLI
// connector sets upjet.crossplane.io/provider-meta with the external
// name, resource.SetCriticalAnnotations). They never replace the external
// name or the intent annotation.
type CreatedState struct {
	TerraformID string
	Annotations map[string]string
}

// CreatedStateFunc reads, once, the state a succeeded async create of obj
// left (see CreatedState).
type CreatedStateFunc func(obj client.Object) (CreatedState, error)

// WithCreatedState sets how the callback of a succeeded async create
// reads what the create left: fn replaces the Kind's TerraformIDFunc.
func WithCreatedState(fn CreatedStateFunc) KindOption { return func(k *Kind) { k.state = fn } }

// Kind is the create path of one managed kind. A line's Kind wraps its
// connector and callback provider around it: Create, Observed and
// Deleting for the external client, MarkAsync and Created for the async
// create's callback.
type Kind struct {
	a          *Adapter
	gvk        schema.GroupVersionKind
	tfID       TerraformIDFunc
	state      CreatedStateFunc // replaces tfID when set
	keys       KeyFunc
	nameFromID func(string) (string, error)

	mu       sync.Mutex
	async    bool
	inflight map[types.NamespacedName]*flight // by managed resource namespace and name
	// filtering says the kind's controller drops the update event of the
	// callback's external-name patch, patches (EventFilter).
	filtering bool
	patches   map[types.NamespacedName]boundPatch

	// requeue carries Adapter.Requeue's requests to the controller
	// (Requeues).
	requeue chan event.GenericEvent
	// stranded backs off Reconciler's requeues of incomplete creates.
	stranded workqueue.TypedRateLimiter[types.NamespacedName]

	// keyResource is the Terraform resource type of WithObservedKeys, ""
	// without it; vacant holds, by managed resource UID, the key the
	// reconcile's last Observe found vacant (ObservedKey).
	keyResource string
	vacant      map[types.UID]string
}

// flight is a create dispatched by this process whose callback has not
// finished.
type flight struct {
	intent journal.Intent
	mg     client.Object
	unlock func() // releases the create lock; never nil
	// ending says the callback has begun recording the create's end; the
	// flight stays tracked until it has finished, so that an Observe in a
	// concurrent reconcile leaves the external name to the callback
	// instead of patching it a second time.
	ending bool
}

// release releases the flight's create lock.
func (f *flight) release() { f.unlock() }

// Kind returns the create path of the managed kind gvk. tfID reads the
// new resource's Terraform ID after an async create; nil reads none, and
// Observe settles instead. A nil Adapter returns a nil *Kind.
func (a *Adapter) Kind(gvk schema.GroupVersionKind, tfID TerraformIDFunc, opts ...KindOption) *Kind {
	if a == nil {
		return nil
	}
	k := &Kind{a: a, gvk: gvk, tfID: tfID, inflight: map[types.NamespacedName]*flight{}, vacant: map[types.UID]string{},
		nameFromID: func(id string) (string, error) { return id, nil }, requeue: make(chan event.GenericEvent), stranded: newStrandedBackoff()}
	for _, o := range opts {
		o(k)
	}
	a.kmu.Lock()
	a.kinds = append(a.kinds, k)
	a.kmu.Unlock()
	return k
}

func (k *Kind) track(mg client.Object, in journal.Intent, unlock func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.inflight[client.ObjectKeyFromObject(mg)] = &flight{intent: in, mg: mg.DeepCopyObject().(client.Object), unlock: unlock}
}

func (k *Kind) untrack(key types.NamespacedName) *flight {
	k.mu.Lock()
	defer k.mu.Unlock()
	f := k.inflight[key]
	delete(k.inflight, key)
	return f
}

// claim returns the flight at key for its callback to end, or nil when
// there is none or another callback has claimed it; the flight stays
// tracked until land.
func (k *Kind) claim(key types.NamespacedName) *flight {
	k.mu.Lock()
	defer k.mu.Unlock()
	f := k.inflight[key]
	if f == nil || f.ending {
		return nil
	}
	f.ending = true
	return f
}

// land stops tracking the flight f at key, which its callback has ended.
func (k *Kind) land(key types.NamespacedName, f *flight) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.inflight[key] == f {
		delete(k.inflight, key)
	}
}

func (k *Kind) inFlight(key types.NamespacedName, uid types.UID) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	f, ok := k.inflight[key]
	return ok && f.mg.GetUID() == uid
}

// ReconcileTimeout is the managed reconciler timeout the kind's recovery
// assumes: its Adapter's (Adapter.ReconcileTimeout).
func (k *Kind) ReconcileTimeout() time.Duration { return k.a.ReconcileTimeout() }

// Line returns the crossplane line of the kind's Adapter (Adapter.Line).
func (k *Kind) Line() Line { return k.a.Line() }

// MarkAsync marks the kind async: its Create only dispatches, and Created,
// called from the create callback, settles. A line's WrapCallbacks calls
// it.
func (k *Kind) MarkAsync() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.async = true
}

func (k *Kind) isAsync() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.async
}

func (k *Kind) fields(in journal.Intent) []zap.Field {
	return []zap.Field{
		zap.String("kind", k.gvk.Kind), zap.String("namespace", in.Resource.Namespace), zap.String("resource", in.Resource.Name),
		zap.String("uid", in.Resource.UID), zap.Stringer("intent-id", in.ID),
	}
}

// settle records an outcome and counts it.
func (k *Kind) settle(ctx context.Context, in journal.Intent, o journal.Settlement) (journal.Intent, error) {
	out, err := k.a.record(ctx, in, o)
	if err != nil {
		return out, fmt.Errorf("cannot settle intent %s as %s: %w", in.ID, o.State, err)
	}
	k.a.metrics.Settled.WithLabelValues(k.gvk.Kind, string(o.State)).Inc()
	if o.State.Terminal() {
		k.a.metrics.Open.Dec()
	}
	f := append(k.fields(in), zap.String("state", string(o.State)))
	if o.ExternalName != "" {
		f = append(f, zap.String("external-name", o.ExternalName))
	}
	if o.ErrorClass != "" {
		f = append(f, zap.String("error-class", string(o.ErrorClass)))
	}
	k.a.log.Info("intent settled", f...)
	return out, nil
}

// binding is what bind writes onto a managed resource.
type binding struct {
	// name is the external name to persist.
	name string
	// also are annotations to set with it (CreatedState.Annotations).
	also map[string]string
	// ifVersion, when set, makes the patch a conditional one: the API
	// server applies it only while the object is at that resourceVersion,
	// and answers 409 otherwise.
	ifVersion string
}

// bind persists the external name and drops the intent annotation in one
// merge patch, and returns the resourceVersion it left. The patch names
// the UID, so it fails rather than touch a managed resource recreated
// under the same name.
func (k *Kind) bind(ctx context.Context, key types.NamespacedName, uid types.UID, b binding) (string, error) {
	ann := map[string]any{}
	for a, v := range b.also {
		ann[a] = v
	}
	ann[recovery.AnnotationExternalName] = b.name
	ann[journal.AnnotationKey] = nil
	md := map[string]any{"uid": uid, "annotations": ann}
	if b.ifVersion != "" {
		md["resourceVersion"] = b.ifVersion
	}
	body, err := json.Marshal(map[string]any{"metadata": md})
	if err != nil {
		return "", fmt.Errorf("cannot encode the external-name patch: %w", err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	u.SetNamespace(key.Namespace)
	u.SetName(key.Name)
	if err := k.a.kube.Patch(ctx, u, client.RawPatch(types.MergePatchType, body)); err != nil {
		return "", fmt.Errorf("cannot patch the external name of %s: %w", key, err)
	}
	return u.GetResourceVersion(), nil
}

// finish settles a succeeded create: succeeded with the external name
// (durable first), then the patch, then settled.
func (k *Kind) finish(ctx context.Context, in journal.Intent, key types.NamespacedName, uid types.UID, externalName string, also map[string]string) (string, error) {
	if _, err := k.settle(ctx, in, journal.Settlement{State: journal.StateSucceeded, ExternalName: externalName}); err != nil {
		return "", err
	}
	failpoint.Hit(failpoint.AfterSettle)
	rv, err := k.bind(ctx, key, uid, binding{name: externalName, also: also})
	if err != nil {
		return "", err
	}
	if _, err := k.settle(ctx, in, journal.Settlement{State: journal.StateSettled, ExternalName: externalName}); err != nil {
		return rv, err
	}
	return rv, nil
}

// resolve hands the resource's unsettled intent to the recovery Resolver
// (look up; adopt if proven ours; else pause and report) and returns the
// outcome and the resource as the resolver left it.
func (k *Kind) resolve(ctx context.Context, key types.NamespacedName, uid types.UID) (report.Outcome, *unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	if err := k.a.kube.Get(ctx, key, u); err != nil {
		return "", nil, fmt.Errorf("cannot get %s to resolve its create intent: %w", key, err)
	}
	if u.GetUID() != uid {
		return "", nil, fmt.Errorf("cannot resolve the create intent of %s: it was recreated (uid %s, want %s)", key, u.GetUID(), uid)
	}
	entries, ok, err := k.a.resolver.ResolveObject(ctx, u)
	if err != nil {
		return "", nil, err
	}
	if !ok || len(entries) == 0 {
		return "", u, nil
	}
	e := entries[0]
	switch e.Outcome {
	case report.OutcomeAdopted, report.OutcomeCleared, report.OutcomeConflict, report.OutcomeOrphan:
		k.a.metrics.Open.Dec()
	}
	k.a.metrics.Settled.WithLabelValues(k.gvk.Kind, string(e.Outcome)).Inc()
	k.a.log.Info("intent resolved", zap.String("kind", k.gvk.Kind), zap.String("namespace", key.Namespace), zap.String("resource", key.Name), zap.String("uid", string(uid)),
		zap.String("intent-id", e.IntentID), zap.String("outcome", string(e.Outcome)), zap.String("reason", e.Reason),
		zap.String("external-name", e.ExternalName))
	fresh := &unstructured.Unstructured{}
	fresh.SetGroupVersionKind(k.gvk)
	if err := k.a.kube.Get(ctx, key, fresh); err != nil {
		return e.Outcome, nil, fmt.Errorf("cannot get %s after resolving its create intent: %w", key, err)
	}
	return e.Outcome, fresh, nil
}

// ObservedKey records what the reconcile's own Observe of mg read, key
// being the Terraform ID it read at ("" when it read at none, as for a
// kind whose ID the cloud assigns) and vacant true when it found nothing
// there. A line calls it after every Observe of a kind WithObservedKeys
// configures; it does nothing for another kind.
//
// A vacant key is claimed on mg in memory only: mg is labelled KeyLabel,
// the key's hash. crossplane-runtime's managed reconciler persists the
// label with the Update that marks the create pending, which it makes
// after an Observe that found nothing and before it calls Create, and a
// conflict there requeues without creating (crossplane-runtime v2.2.1
// pkg/reconciler/managed/reconciler.go:1289-1312; v1.20 alike). So the
// claim is where every replica's recovery reads it before the create is
// dispatched, at no API write of its own, and Create records the key as
// the intent's VacantKey. A resource being deleted, or one whose earlier
// create is still unsettled (its claim must stay until recovery resolves
// it), claims nothing.
func (k *Kind) ObservedKey(mg client.Object, key string, vacant bool) {
	if k == nil || k.keyResource == "" {
		return
	}
	uid := mg.GetUID()
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.vacant, uid)
	if !vacant || key == "" || mg.GetDeletionTimestamp() != nil {
		return
	}
	if in, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && (err != nil || in.Unsettled()) {
		return
	}
	labels := mg.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[KeyLabel] = KeyLabelValue(k.keyResource, key)
	mg.SetLabels(labels)
	k.vacant[uid] = key
}

// observedKey returns, and forgets, the key the last Observe of mg found
// vacant (ObservedKey), if mg still carries its claim: "" otherwise.
func (k *Kind) observedKey(mg client.Object) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	key, ok := k.vacant[mg.GetUID()]
	delete(k.vacant, mg.GetUID())
	if !ok || mg.GetLabels()[KeyLabel] != KeyLabelValue(k.keyResource, key) {
		return ""
	}
	return key
}
