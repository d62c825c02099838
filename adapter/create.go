package adapter

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

const (
	errGate           = "cannot create: the recovery gate is closed"
	errReadJournal    = "cannot create: cannot read the intent journal"
	errInFlight       = "cannot create: a create of this resource is still in flight"
	errResolve        = "cannot create: cannot resolve the earlier create intent"
	errResolved       = "cannot create: the earlier create intent was resolved as %s; observing afresh"
	errBuildIntent    = "cannot create: cannot build the create intent"
	errProbe          = "cannot create yet: cannot read whether the key this create will take is free"
	errBegin          = "cannot create: cannot record the create intent"
	errAnnotate       = "cannot create: cannot annotate the create intent"
	errSettleEarlier  = "cannot create: cannot settle the earlier rejected create"
	errNothingEarlier = "cannot create yet: the earlier create intent turned out settled; observing afresh"
	errLivePeer       = "cannot create: the earlier create intent belongs to %s, which is alive; waiting for it to settle or for its Lease to expire"
	errKeyHeld        = "cannot create: the key %s this create would take is held already, and a create there may replace what holds it; not dispatched (the resolution was %s)"
)

// AnnotationTakeOverKey, set to "true" on a managed resource, lets its
// create go ahead when the key probe (WithVacantKeys) finds its key held
// already. Without it such a create is never dispatched: some Terraform
// providers replace what holds the key instead of failing
// (terraform-provider-google's DNS record set deletes a same-named record
// set it finds on the zone's first page and adds its own in one change),
// so a create there could silently overwrite someone else's resource. The
// managed resource is paused instead, with a Warning Event and a report
// entry naming what holds the key. Set it only when the resource at the
// key may be replaced by this managed resource's spec.
const AnnotationTakeOverKey = "intentjournal.io/take-over-key"

// wrap returns err with msg before it, as "msg: err".
func wrap(err error, msg string) error { return fmt.Errorf("%s: %w", msg, err) }

// Observed settles an unsettled intent of mg, whose inner Observe found
// the resource existing, once its external name is known, persisting the
// external name first. A line's external client calls it after every
// Observe that reports the resource exists. It changes nothing when mg
// carries no intent annotation, the common case, and never fails the
// Observe: what it cannot do now the next Observe or recovery does.
//
// The patch is conditional on mg's resourceVersion. mg is the copy the
// reconcile read at its start, from the manager's cache; when the create's
// callback bound the name after that read (the callback ends while the
// reconcile waits on a slow Observe, a Terraform refresh), the copy still
// shows the annotation the callback dropped. Then the conditional patch
// fails, one read of the object tells whether a bind has landed, and
// Observed patches only if none has, with no write added to the create.
// Either way mg keeps its resourceVersion: the reconciler's own update of
// the stale copy conflicts, as it would unwrapped, and the next reconcile
// reads afresh, rather than write the stale copy over what changed since.
func (k *Kind) Observed(ctx context.Context, mg client.Object) {
	name := ExternalName(mg)
	in, has, aerr := journal.AnnotationIntent(mg.GetAnnotations())
	key, uid := client.ObjectKeyFromObject(mg), mg.GetUID()
	if name == "" || !has || aerr != nil || k.inFlight(key, uid) {
		return
	}
	annID := in.ID
	if cur, gerr := k.a.get(ctx, string(uid)); gerr == nil && cur.Unsettled() {
		in = cur
		if in.State != journal.StateSucceeded {
			if _, serr := k.settle(ctx, in, journal.Settlement{State: journal.StateSucceeded, ExternalName: name}); serr != nil {
				k.a.log.Warn("cannot settle an observed create", append(k.fields(in), zap.Error(serr))...)
				return
			}
		}
	} else if in.Unsettled() {
		// The journal has no unsettled intent (settled already, or an
		// annotation-only intent): only the annotation is left to drop.
		in.State = journal.StateSettled
	}
	rv, berr := k.bind(ctx, key, uid, binding{name: name, ifVersion: mg.GetResourceVersion()})
	switch {
	case berr == nil:
		// mg was current: keep it in step, so the reconciler's own later
		// writes do not conflict.
		mg.SetResourceVersion(rv)
		mg.SetAnnotations(journal.RemoveAnnotation(mg.GetAnnotations()))
		k.a.log.Info("observed create bound", zap.String("kind", k.gvk.Kind), zap.String("resource", mg.GetName()), zap.String("external-name", name))
	case apierrors.IsConflict(berr):
		patched, ours, err := k.rebind(ctx, key, uid, annID, name)
		if err != nil {
			k.a.log.Warn("cannot persist the external name of an observed create", append(k.fields(in), zap.Error(err))...)
			return
		}
		if !ours {
			k.a.log.Debug("observed create's annotation is stale: a later create's intent is on the object", k.fields(in)...)
			return
		}
		if patched {
			k.a.log.Info("observed create bound", zap.String("kind", k.gvk.Kind), zap.String("resource", mg.GetName()), zap.String("external-name", name))
		}
	default:
		k.a.log.Warn("cannot persist the external name of an observed create", append(k.fields(in), zap.Error(berr))...)
		return
	}
	if in.Unsettled() {
		if _, serr := k.settle(ctx, in, journal.Settlement{State: journal.StateSettled, ExternalName: name}); serr != nil {
			k.a.log.Warn("cannot settle an observed create", append(k.fields(in), zap.Error(serr))...)
		}
	}
}

// rebind binds name to the managed resource at key, whose copy carrying
// intent annID's annotation turned out older than the object, unless the
// object no longer carries that annotation. patched says rebind patched;
// ours is false when the object carries another intent's annotation, a
// later create's, which rebind leaves alone.
func (k *Kind) rebind(ctx context.Context, key types.NamespacedName, uid types.UID, annID journal.ID, name string) (patched, ours bool, err error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	if err := k.a.kube.Get(ctx, key, u); err != nil {
		return false, false, fmt.Errorf("cannot get %s to bind its external name: %w", key, err)
	}
	if u.GetUID() != uid {
		return false, false, fmt.Errorf("cannot bind the external name of %s: it was recreated (uid %s, want %s)", key, u.GetUID(), uid)
	}
	cur, has, aerr := journal.AnnotationIntent(u.GetAnnotations())
	switch {
	case !has:
		// Bound since the copy was read: by the create's callback, most
		// often.
		return false, true, nil
	case aerr == nil && cur.ID != annID:
		return false, false, nil
	}
	if _, err := k.bind(ctx, key, uid, binding{name: name, ifVersion: u.GetResourceVersion()}); err != nil {
		return false, true, err
	}
	return true, true, nil
}

// Create begins a durable intent for the create of mg, then calls
// dispatch, which runs the inner external client's Create of mg, and
// returns dispatch's error; every refusal before dispatch returns an error
// that makes the reconciler requeue. See the package doc of either line
// for the order and what each refusal means.
func (k *Kind) Create(ctx context.Context, mg client.Object, dispatch func(context.Context) error) error {
	uid := mg.GetUID()
	if err := k.a.Gate().Allow(uid); err != nil {
		if !errors.Is(err, recovery.ErrIntentUnresolved) || !k.a.recoveryDone() {
			if k.a.notOwner(mg, err) {
				// The bucket moved during this reconcile: wake the new
				// owner, which may have seen the pending mark alone.
				k.handBack(ctx, mg)
			}
			return wrap(err, errGate)
		}
		// The recovery pass is over and will not retry: an intent left
		// unresolved by the create path's own resolution (a failed
		// lookup) is resolved again here, never created over.
		_, rerr := k.resolveEarlier(ctx, mg)
		return rerr
	}
	if k.inFlight(client.ObjectKeyFromObject(mg), uid) {
		return errors.New(errInFlight)
	}
	unlock, err := k.lockCreate(ctx, mg)
	if err != nil {
		return err
	}
	handedOff := false
	defer func() {
		if !handedOff {
			unlock()
		}
	}()
	if done, err := k.earlier(ctx, mg); done || err != nil {
		return err
	}

	in, err := BuildIntent(mg, IntentInput{GVK: k.gvk, Owner: k.a.owner, Keys: k.keys}, k.a.line)
	if err != nil {
		return wrap(err, errBuildIntent)
	}
	if in.Args, err = createArgs(mg); err != nil {
		return wrap(err, errBuildIntent)
	}
	var held string
	if in.VacantKey, held, err = k.probeKey(ctx, mg); err != nil {
		return wrap(err, errProbe)
	}
	if held != "" && mg.GetAnnotations()[AnnotationTakeOverKey] != "true" {
		return k.refuseHeld(ctx, mg, in, held)
	}
	if h := k.a.beginHook; h != nil {
		if err := h(ctx, in); err != nil {
			return wrap(err, errBegin)
		}
	}
	failpoint.Hit(failpoint.BeforeBegin)
	in, err = k.begin(ctx, mg, in)
	if err != nil {
		// Fail closed: nothing is dispatched without a durable intent.
		return wrap(err, errBegin)
	}
	k.a.metrics.Begun.WithLabelValues(k.gvk.Kind).Inc()
	k.a.metrics.Open.Inc()
	k.a.log.Info("intent begun", append(k.fields(in), zap.Int("attempt", in.Attempt), zap.Stringer("owner", in.Owner))...)
	ann, err := journal.SetAnnotation(mg.GetAnnotations(), in)
	if err != nil {
		// Nothing was dispatched: the intent is settled as rejected so the
		// next attempt may begin again.
		_, _ = k.settle(ctx, in, journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassRejected, Message: err.Error()})
		return wrap(err, errAnnotate)
	}
	// crossplane-runtime persists every annotation with its critical
	// annotation update right after Create returns: no extra API write.
	mg.SetAnnotations(ann)

	async := k.isAsync()
	if async {
		// The create lock is held until the callback.
		k.track(mg, in, unlock)
		handedOff = true
	}
	failpoint.Hit(failpoint.AfterBegin)
	err = dispatch(ctx)
	switch {
	case err != nil && async && k.a.line.NotStarted(err):
		// upjet refused to start the operation: the goroutine never ran
		// and no callback will come.
		if f := k.untrack(client.ObjectKeyFromObject(mg)); f != nil {
			k.a.log.Info("async create not started", append(k.fields(in), zap.Error(err))...)
			f.release()
		}
		_, _ = k.settle(ctx, in, journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassRejected, Message: err.Error()})
	case err != nil && async:
		// upjet's async Create returns the error of the previous
		// operation (LastOperation keeps it until an Observe clears it)
		// even though it has started this one: the callback settles it.
	case err != nil:
		class := k.a.classifier.Classify(err)
		_, _ = k.settle(ctx, in, journal.Settlement{State: journal.StateFailed, ErrorClass: class, Message: err.Error()})
	case !async:
		// A synchronous client has finished the create.
		if n := ExternalName(mg); n != "" {
			if _, serr := k.settle(ctx, in, journal.Settlement{State: journal.StateSucceeded, ExternalName: n}); serr == nil {
				_, _ = k.settle(ctx, in, journal.Settlement{State: journal.StateSettled, ExternalName: n})
				mg.SetAnnotations(journal.RemoveAnnotation(mg.GetAnnotations()))
			}
		}
	}
	return err
}

// Deleting logs, before a line's external client deletes mg, that mg's
// create intent is unsettled, if it is. The intent is left in the journal:
// after the managed resource is gone, recovery treats it as "MR deleted"
// and reports whatever the create made as an orphan.
func (k *Kind) Deleting(mg client.Object) {
	if in, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && (err != nil || in.Unsettled()) {
		k.a.log.Info("deleting a resource whose create intent is unsettled; recovery will report what the create left as an orphan",
			zap.String("kind", k.gvk.Kind), zap.String("resource", mg.GetName()), zap.String("uid", string(mg.GetUID())),
			zap.Stringer("intent-id", in.ID), zap.String("state", string(in.State)))
	}
}

// KeyProbe reads, just before a create's intent is begun, the key the
// create will take (for an observe-by-template kind, the Terraform ID its
// template renders from the spec), and whether nothing holds it now. An
// error fails the create, which the reconciler retries. A
// probe that answers vacant must first make its managed resource's claim
// on the key visible to every replica's recovery (the derived finders'
// probe labels it with the key's hash, KeyLabel), so that recovery can
// tell whether another managed resource intends the same key. It may
// update mg in memory (its labels and resourceVersion) to match what it
// wrote.
type KeyProbe interface {
	ProbeKey(ctx context.Context, mg client.Object) (key string, vacant bool, err error)
}

// KeyProbeFn adapts a function to a KeyProbe.
type KeyProbeFn func(ctx context.Context, mg client.Object) (key string, vacant bool, err error)

// ProbeKey calls fn.
func (fn KeyProbeFn) ProbeKey(ctx context.Context, mg client.Object) (string, bool, error) {
	return fn(ctx, mg)
}

var _ KeyProbe = KeyProbeFn(nil)

// probeKey returns the key the kind's KeyProbe read free for mg's
// create as vacant; with no probe, the key the reconcile's own Observe
// found vacant (ObservedKey). held is the key when the probe found it
// held. A probe that fails fails the create, which is retried: every
// create of a probed kind carries the proof, so a crash never leaves one
// for an operator that the probe would have proven.
func (k *Kind) probeKey(ctx context.Context, mg client.Object) (vacant, held string, err error) {
	p := k.a.probes[k.gvk.GroupKind()]
	if p == nil {
		// The key the reconcile's own Observe found vacant, if the
		// kind claims it (WithObservedKeys).
		return k.observedKey(mg), "", nil
	}
	key, free, err := p.ProbeKey(ctx, mg)
	switch {
	case err != nil:
		return "", "", err
	case !free:
		return "", key, nil
	}
	return key, "", nil
}

// refuseHeld handles a create whose key the probe found held, on a
// managed resource that does not allow taking it over
// (AnnotationTakeOverKey): the create is not dispatched. Its intent is
// begun and settled at once as refused for a conflict, so that the
// recovery Resolver decides as for a create the cloud refused as
// "already exists": what holds the key is adopted only when proven this
// managed resource's (its UID tag: a create of its own whose record was
// lost); anything else pauses the managed resource, with a Warning Event
// and a report entry that names it, until an operator decides.
func (k *Kind) refuseHeld(ctx context.Context, mg client.Object, in journal.Intent, held string) error {
	fields := []zap.Field{zap.String("kind", k.gvk.Kind), zap.String("namespace", mg.GetNamespace()), zap.String("resource", mg.GetName()), zap.String("key", held)}
	k.a.log.Info("create not dispatched: the key it would take is held already", fields...)
	in, err := k.begin(ctx, mg, in)
	if err != nil {
		return wrap(err, errBegin)
	}
	k.a.metrics.Begun.WithLabelValues(k.gvk.Kind).Inc()
	k.a.metrics.Open.Inc()
	msg := fmt.Sprintf("not dispatched: the probe found %s held before the create (annotate %s=true to take it over)", held, AnnotationTakeOverKey)
	if _, err := k.settle(ctx, in, journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassConflict, Message: msg}); err != nil {
		return wrap(err, errBegin)
	}
	outcome, fresh, err := k.resolve(ctx, client.ObjectKeyFromObject(mg), mg.GetUID())
	if err != nil {
		return wrap(err, errResolve)
	}
	if fresh != nil {
		// Carry what the resolver wrote (paused, or the external name it
		// adopted) into the object the reconciler writes back.
		mg.SetAnnotations(fresh.GetAnnotations())
		mg.SetResourceVersion(fresh.GetResourceVersion())
	}
	return fmt.Errorf(errKeyHeld, held, outcome)
}

// earlier deals with an intent left by an earlier create of mg. It returns
// done true (with an error that makes the reconciler requeue and observe
// afresh) when the create must not run now.
func (k *Kind) earlier(ctx context.Context, mg client.Object) (bool, error) {
	uid := string(mg.GetUID())
	prev, err := k.a.get(ctx, uid)
	switch {
	case errors.Is(err, journal.ErrNotFound):
		ann, has, aerr := journal.AnnotationIntent(mg.GetAnnotations())
		if !has || (aerr == nil && !ann.Unsettled()) {
			return false, nil
		}
		// An unsettled or unreadable annotation with no journal record
		// (annotation-only intent, or a lost journal): resolve it.
	case errors.Is(err, journal.ErrCorrupt):
		// What the earlier create did is unknown: resolve from the
		// annotation and the resource's identity.
	case err != nil:
		return true, wrap(err, errReadJournal)
	case !prev.Unsettled():
		return false, nil
	case prev.Owner.Epoch == k.a.owner.Epoch && prev.State == journal.StateFailed && prev.Outcome.ErrorClass == journal.ErrorClassRejected:
		// This process saw the cloud refuse it: nothing was made.
		if _, err := k.settle(ctx, prev, journal.Settlement{State: journal.StateSettled}); err != nil {
			return true, wrap(err, errSettleEarlier)
		}
		return false, nil
	}
	return k.resolveEarlier(ctx, mg)
}

// resolveEarlier resolves the unsettled create intent of mg with the
// recovery Resolver and returns an error that makes the reconciler requeue
// and observe afresh.
func (k *Kind) resolveEarlier(ctx context.Context, mg client.Object) (bool, error) {
	if in, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && err == nil && in.Unsettled() && !k.a.inScope(in) {
		// A live peer (another shard, or this shard's previous leader
		// while its Lease lasts) may still be creating: never resolve,
		// never create over it.
		k.a.log.Info("create refused: the earlier intent's owner is alive", zap.String("kind", k.gvk.Kind),
			zap.String("resource", mg.GetName()), zap.Stringer("owner", in.Owner))
		return true, fmt.Errorf(errLivePeer, in.Owner)
	}
	outcome, fresh, err := k.resolve(ctx, client.ObjectKeyFromObject(mg), mg.GetUID())
	if err != nil {
		return true, wrap(err, errResolve)
	}
	if fresh != nil {
		// Carry what the resolver wrote (external name, paused, the
		// intent annotation) into the object the reconciler will write
		// its critical annotations from.
		mg.SetAnnotations(fresh.GetAnnotations())
		mg.SetResourceVersion(fresh.GetResourceVersion())
	}
	if outcome == "" {
		// Nothing was left unsettled: nothing blocks the next create.
		k.a.Gate().Unblock(mg.GetUID())
		return true, errors.New(errNothingEarlier)
	}
	return true, fmt.Errorf(errResolved, outcome)
}

// createArgs records in the intent what the create of mg sends, its
// spec.forProvider (recovery.RecordArgs): a resource that recovery would
// take for this create's on a weak proof must match it.
func createArgs(mg client.Object) (journal.Arguments, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return journal.Arguments{}, wrap(err, "cannot convert the managed resource")
	}
	return recovery.RecordArgs(u, mg.GetGeneration())
}
