package upjetv1

import (
	"context"
	"strings"

	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/pkg/errors"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

const (
	errGate           = "cannot create: the recovery gate is closed"
	errReadJournal    = "cannot create: cannot read the intent journal"
	errReadAnnot      = "cannot create: the intent annotation is unreadable; the recovery pass resolves it"
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
)

// WrapConnecter returns c with every ExternalClient it connects wrapped
// (see the package doc). A nil *Kind returns c unchanged.
func (k *Kind) WrapConnecter(c managed.ExternalConnecter) managed.ExternalConnecter {
	if k == nil {
		return c
	}
	return &connecter{k: k, inner: c}
}

type connecter struct {
	k     *Kind
	inner managed.ExternalConnecter
}

func (c *connecter) Connect(ctx context.Context, mg resource.Managed) (managed.ExternalClient, error) {
	ec, err := c.inner.Connect(ctx, mg)
	if err != nil {
		return nil, err
	}
	return &external{k: c.k, inner: ec}, nil
}

type external struct {
	k     *Kind
	inner managed.ExternalClient
}

// Observe settles an unsettled intent of a resource that exists and whose
// external name is known, persisting the external name first. It changes
// nothing when the resource carries no intent annotation, the common case.
func (e *external) Observe(ctx context.Context, mg resource.Managed) (managed.ExternalObservation, error) {
	obs, err := e.inner.Observe(ctx, mg)
	if err != nil || !obs.ResourceExists {
		return obs, err
	}
	name := meta.GetExternalName(mg)
	in, has, aerr := journal.AnnotationIntent(mg.GetAnnotations())
	if name == "" || !has || aerr != nil || e.k.inFlight(client.ObjectKeyFromObject(mg), mg.GetUID()) {
		return obs, nil
	}
	k := e.k
	if cur, gerr := k.a.get(ctx, string(mg.GetUID())); gerr == nil && cur.Unsettled() {
		in = cur
		if in.State != journal.StateSucceeded {
			if _, serr := k.settle(ctx, in, journal.Outcome{State: journal.StateSucceeded, ExternalName: name}); serr != nil {
				k.a.log.Warn("cannot settle an observed create", append(k.fields(in), zap.Error(serr))...)
				return obs, nil
			}
		}
	} else if in.Unsettled() {
		// The journal has no unsettled intent (settled already, or an
		// annotation-only intent): only the annotation is left to drop.
		in.State = journal.StateSettled
	}
	rv, berr := k.bind(ctx, client.ObjectKeyFromObject(mg), mg.GetUID(), name, false)
	if berr != nil {
		k.a.log.Warn("cannot persist the external name of an observed create", append(k.fields(in), zap.Error(berr))...)
		return obs, nil
	}
	// The patch moved the resourceVersion on; keep the in-memory object in
	// step so the reconciler's own later writes do not conflict.
	mg.SetResourceVersion(rv)
	mg.SetAnnotations(journal.RemoveAnnotation(mg.GetAnnotations()))
	if in.Unsettled() {
		if _, serr := k.settle(ctx, in, journal.Outcome{State: journal.StateSettled, ExternalName: name}); serr != nil {
			k.a.log.Warn("cannot settle an observed create", append(k.fields(in), zap.Error(serr))...)
		}
	}
	k.a.log.Info("observed create bound", zap.String("kind", k.gvk.Kind), zap.String("resource", mg.GetName()), zap.String("external-name", name))
	return obs, nil
}

// Create begins a durable intent, then dispatches the inner Create. See
// the package doc for the order and what each refusal means.
func (e *external) Create(ctx context.Context, mg resource.Managed) (managed.ExternalCreation, error) {
	k := e.k
	uid := mg.GetUID()
	if err := k.a.Gate().Allow(uid); err != nil {
		if !errors.Is(err, recovery.ErrIntentUnresolved) || !k.a.recoveryDone() {
			if k.a.notOwner(mg, err) {
				// The bucket moved during this reconcile: wake the new
				// owner, which may have seen the pending mark alone.
				k.handBack(ctx, mg)
			}
			return managed.ExternalCreation{}, errors.Wrap(err, errGate)
		}
		// The recovery pass is over and will not retry: an intent left
		// unresolved by the create path's own resolution (a failed
		// lookup) is resolved again here, never created over.
		_, rerr := e.resolveEarlier(ctx, mg)
		return managed.ExternalCreation{}, rerr
	}
	if k.inFlight(client.ObjectKeyFromObject(mg), uid) {
		return managed.ExternalCreation{}, errors.New(errInFlight)
	}
	unlock, err := k.lockCreate(ctx, mg)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	handedOff := false
	defer func() {
		if !handedOff {
			unlock()
		}
	}()
	if done, err := e.earlier(ctx, mg); done || err != nil {
		return managed.ExternalCreation{}, err
	}

	in, err := BuildIntent(mg, IntentInput{GVK: k.gvk, Owner: k.a.owner, Keys: k.keys})
	if err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errBuildIntent)
	}
	if in.Args, err = createArgs(mg); err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errBuildIntent)
	}
	if in.VacantKey, err = k.probeKey(ctx, mg); err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errProbe)
	}
	if h := k.a.beginHook; h != nil {
		if err := h(ctx, in); err != nil {
			return managed.ExternalCreation{}, errors.Wrap(err, errBegin)
		}
	}
	failpoint.Hit(failpoint.BeforeBegin)
	in, err = k.begin(ctx, mg, in)
	if err != nil {
		// Fail closed: nothing is dispatched without a durable intent.
		return managed.ExternalCreation{}, errors.Wrap(err, errBegin)
	}
	k.a.metrics.Begun.WithLabelValues(k.gvk.Kind).Inc()
	k.a.metrics.Open.Inc()
	k.a.log.Info("intent begun", append(k.fields(in), zap.Int("attempt", in.Attempt), zap.Stringer("owner", in.Owner))...)
	ann, err := journal.SetAnnotation(mg.GetAnnotations(), in)
	if err != nil {
		// Nothing was dispatched: the intent is settled as rejected so the
		// next attempt may begin again.
		_, _ = k.settle(ctx, in, journal.Outcome{State: journal.StateFailed, ErrorClass: journal.ErrorClassRejected, Message: err.Error()})
		return managed.ExternalCreation{}, errors.Wrap(err, errAnnotate)
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
	cre, err := e.inner.Create(ctx, mg)
	switch {
	case err != nil && async && notStarted(err):
		// upjet refused to start the operation: the goroutine never ran
		// and no callback will come.
		if f := k.untrack(client.ObjectKeyFromObject(mg)); f != nil {
			k.a.log.Info("async create not started", append(k.fields(in), zap.Error(err))...)
			f.release()
		}
		_, _ = k.settle(ctx, in, journal.Outcome{State: journal.StateFailed, ErrorClass: journal.ErrorClassRejected, Message: err.Error()})
	case err != nil && async:
		// upjet's async Create returns the error of the previous
		// operation (LastOperation keeps it until an Observe clears it)
		// even though it has started this one: the callback settles it.
	case err != nil:
		class := k.a.classifier.Classify(err)
		_, _ = k.settle(ctx, in, journal.Outcome{State: journal.StateFailed, ErrorClass: class, Message: err.Error()})
	case !async:
		// A synchronous client has finished the create.
		if n := meta.GetExternalName(mg); n != "" {
			if _, serr := k.settle(ctx, in, journal.Outcome{State: journal.StateSucceeded, ExternalName: n}); serr == nil {
				_, _ = k.settle(ctx, in, journal.Outcome{State: journal.StateSettled, ExternalName: n})
				mg.SetAnnotations(journal.RemoveAnnotation(mg.GetAnnotations()))
			}
		}
	}
	return cre, err
}

// KeyProbe reads, just before a create's intent is begun, the key the
// create will take (for an observe-by-template kind, the Terraform ID its
// template renders from the spec), and whether nothing holds it now. An
// error fails the create, which the reconciler retries. A
// probe that answers vacant must first make its managed resource's claim
// on the key visible to every replica's recovery (the upjet v2 probe
// labels it with the key's hash), so that recovery can tell whether
// another managed resource intends the same key. It may update mg in
// memory (its labels and resourceVersion) to match what it wrote.
type KeyProbe interface {
	ProbeKey(ctx context.Context, mg resource.Managed) (key string, vacant bool, err error)
}

// KeyProbeFn adapts a function to a KeyProbe.
type KeyProbeFn func(ctx context.Context, mg resource.Managed) (key string, vacant bool, err error)

// ProbeKey calls fn.
func (fn KeyProbeFn) ProbeKey(ctx context.Context, mg resource.Managed) (string, bool, error) {
	return fn(ctx, mg)
}

var _ KeyProbe = KeyProbeFn(nil)

// probeKey returns the key the kind's KeyProbe read free for mg's
// create, or "" when the kind has no probe or the key is held (the create
// goes ahead without the key-vacant proof, and will meet "already
// exists"). A probe that fails fails the create, which is retried: every
// create of a probed kind carries the proof, so a crash never leaves one
// for an operator that the probe would have proven.
func (k *Kind) probeKey(ctx context.Context, mg resource.Managed) (string, error) {
	p := k.a.probes[k.gvk.GroupKind()]
	if p == nil {
		return "", nil
	}
	key, vacant, err := p.ProbeKey(ctx, mg)
	switch {
	case err != nil:
		return "", err
	case !vacant:
		k.a.log.Info("the key this create will take is held already; creating anyway, the cloud decides",
			zap.String("kind", k.gvk.Kind), zap.String("namespace", mg.GetNamespace()), zap.String("resource", mg.GetName()), zap.String("key", key))
		return "", nil
	}
	return key, nil
}

// notStarted reports whether an async connector's Create error means the
// operation was refused before its goroutine started: upjet (v1.11, v2.3) says
// "<type> operation that started at <t> is still running".
func notStarted(err error) bool {
	return strings.Contains(err.Error(), "operation that started at") && strings.Contains(err.Error(), "is still running")
}

// earlier deals with an intent left by an earlier create of mg. It returns
// done true (with an error that makes the reconciler requeue and observe
// afresh) when the create must not run now.
func (e *external) earlier(ctx context.Context, mg resource.Managed) (bool, error) {
	k := e.k
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
		return true, errors.Wrap(err, errReadJournal)
	case !prev.Unsettled():
		return false, nil
	case prev.Owner.Epoch == k.a.owner.Epoch && prev.State == journal.StateFailed && prev.Outcome.ErrorClass == journal.ErrorClassRejected:
		// This process saw the cloud refuse it: nothing was made.
		if _, err := k.settle(ctx, prev, journal.Outcome{State: journal.StateSettled}); err != nil {
			return true, errors.Wrap(err, errSettleEarlier)
		}
		return false, nil
	}
	return e.resolveEarlier(ctx, mg)
}

// resolveEarlier resolves the unsettled create intent of mg with the
// recovery Resolver and returns an error that makes the reconciler requeue
// and observe afresh.
func (e *external) resolveEarlier(ctx context.Context, mg resource.Managed) (bool, error) {
	if in, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && err == nil && in.Unsettled() && !e.k.a.inScope(in) {
		// A live peer (another shard, or this shard's previous leader
		// while its Lease lasts) may still be creating: never resolve,
		// never create over it.
		e.k.a.log.Info("create refused: the earlier intent's owner is alive", zap.String("kind", e.k.gvk.Kind),
			zap.String("resource", mg.GetName()), zap.Stringer("owner", in.Owner))
		return true, errors.Errorf(errLivePeer, in.Owner)
	}
	outcome, fresh, err := e.k.resolve(ctx, client.ObjectKeyFromObject(mg), mg.GetUID())
	if err != nil {
		return true, errors.Wrap(err, errResolve)
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
		e.k.a.Gate().Unblock(mg.GetUID())
		return true, errors.New(errNothingEarlier)
	}
	return true, errors.Errorf(errResolved, outcome)
}

// Update calls the inner client.
func (e *external) Update(ctx context.Context, mg resource.Managed) (managed.ExternalUpdate, error) {
	return e.inner.Update(ctx, mg)
}

// Delete calls the inner client. An unsettled intent is left in the
// journal: after the managed resource is gone, recovery treats it as "MR
// deleted" and reports whatever the create made as an orphan.
func (e *external) Delete(ctx context.Context, mg resource.Managed) (managed.ExternalDelete, error) {
	if in, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && (err != nil || in.Unsettled()) {
		e.k.a.log.Info("deleting a resource whose create intent is unsettled; recovery will report what the create left as an orphan",
			zap.String("kind", e.k.gvk.Kind), zap.String("resource", mg.GetName()), zap.String("uid", string(mg.GetUID())),
			zap.Stringer("intent-id", in.ID), zap.String("state", string(in.State)))
	}
	return e.inner.Delete(ctx, mg)
}

// Disconnect calls the inner client.
func (e *external) Disconnect(ctx context.Context) error { return e.inner.Disconnect(ctx) }

var (
	_ managed.ExternalConnecter = (*connecter)(nil)
	_ managed.ExternalClient    = (*external)(nil)
)

// createArgs records in the intent what the create of mg sends, its
// spec.forProvider (recovery.RecordArgs): a resource that recovery would
// take for this create's on a weak proof must match it.
func createArgs(mg resource.Managed) (journal.Arguments, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return journal.Arguments{}, errors.Wrap(err, "cannot convert the managed resource")
	}
	return recovery.RecordArgs(u, mg.GetGeneration())
}
