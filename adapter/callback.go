package adapter

import (
	"context"
	"errors"
	"maps"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Created records how the async create of the managed resource at key
// ended (err is the create's error) and releases the create's lock. A
// line's create callback calls it before the callback it wraps runs, so
// that the reconcile that callback requests already sees the external
// name. A create this process did not dispatch (none in flight at key) is
// left alone. The create stays in flight until Created returns: Observed
// in a concurrent reconcile leaves it to the callback, rather than patch
// the external name a second time.
//
// It never fails the callback: whatever it cannot record stays unsettled
// in the journal, and Observe or the next recovery pass finishes it.
func (k *Kind) Created(ctx context.Context, key types.NamespacedName, err error) {
	failpoint.Hit(failpoint.AfterCreate)
	if f := k.claim(key); f != nil {
		k.created(ctx, f, err)
		k.land(key, f)
		f.release()
	}
}

// created records how an async create ended; see Created.
func (k *Kind) created(ctx context.Context, f *flight, cerr error) {
	in := f.intent
	key, uid := client.ObjectKeyFromObject(f.mg), f.mg.GetUID()
	if cerr == nil {
		st, err := k.createdState(f)
		id := st.TerraformID
		if err == nil && id == "" {
			err = errNoID
		}
		if err != nil {
			k.a.log.Warn("cannot settle a succeeded create now; Observe will", append(k.fields(in), zap.Error(err))...)
			return
		}
		en, err := k.nameFromID(id)
		if err != nil || en == "" {
			k.a.log.Warn("cannot derive the external name; Observe will settle", append(k.fields(in), zap.String("tf-id", id), zap.Error(err))...)
			return
		}
		// The patch records the success too: crossplane-runtime records it
		// in an update that retries a conflict only five times within
		// milliseconds, and when the async create's own writes (this
		// patch, upjet's status update) keep changing the resource, all
		// five can lose; its pending mark left alone would stop the
		// resource at "cannot determine creation result" for good (1 of
		// 4,000 creates with no kill, docs/demo.md). Should its update land
		// after this patch, it writes its own success mark over this one.
		also := maps.Clone(st.Annotations)
		if also == nil {
			also = map[string]string{}
		}
		also[recovery.AnnotationExternalCreateSucceed] = time.Now().UTC().Format(time.RFC3339)
		// The reconcile the callback requests next sees the name: the
		// patch's own event need not wake another (EventFilter).
		k.expectPatch(key, boundPatch{uid: uid, name: en, also: also})
		if _, err := k.finish(ctx, in, key, uid, en, also); err != nil {
			k.forgetPatch(key)
			k.a.log.Warn("cannot settle a succeeded create now; Observe or recovery will", append(k.fields(in), zap.Error(err))...)
		}
		return
	}
	class := k.a.classifier.Classify(cerr)
	if _, err := k.settle(ctx, in, journal.Settlement{State: journal.StateFailed, ErrorClass: class, Message: errorMessage(cerr)}); err != nil {
		k.a.log.Warn("cannot record a failed create; recovery will look it up", append(k.fields(in), zap.Error(err))...)
		return
	}
	if class != journal.ErrorClassConflict {
		return
	}
	// Something with this resource's natural key exists. Retrying would
	// only meet the same 409: look it up once and adopt it if it is
	// provably ours, else pause the resource and report it.
	outcome, _, err := k.resolve(ctx, key, uid)
	if err != nil {
		k.a.log.Warn("cannot resolve a create conflict now; the next create attempt will", append(k.fields(in), zap.Error(err))...)
		return
	}
	if outcome == report.OutcomeConflict {
		k.a.log.Info("create conflict reported; resource paused", append(k.fields(in), zap.String("outcome", string(outcome)))...)
	}
}

// createdState reads what the succeeded create left through the kind's
// CreatedStateFunc, or its TerraformIDFunc; nothing without either.
func (k *Kind) createdState(f *flight) (CreatedState, error) {
	switch {
	case k.state != nil:
		return k.state(f.mg)
	case k.tfID != nil:
		id, err := k.tfID(f.mg)
		return CreatedState{TerraformID: id}, err
	}
	return CreatedState{}, nil
}

// errorMessage returns err's text, or "" for nil.
func errorMessage(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var errNoID = errors.New("the async create succeeded but its state (upjet's operation tracker, or the Terraform CLI workspace) holds no ID")
