package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
)

// get returns the journal's record of uid; in annotation-only mode there is
// no journal and it always returns journal.ErrNotFound, so the callers fall
// back to the resource's intent annotation.
func (a *Adapter) get(ctx context.Context, uid string) (journal.Intent, error) {
	if a.j == nil {
		return journal.Intent{}, journal.ErrNotFound
	}
	return a.j.Get(ctx, uid)
}

// begin records that the create of mg is about to be dispatched. With a
// journal it is Journal.Begin. In annotation-only mode the intent
// annotation itself is the record: it is patched onto mg (the patch names
// mg's UID) before begin returns, so a crash after the dispatch finds it.
// mg's resourceVersion follows the patch, so the reconciler's own later
// writes do not conflict.
func (k *Kind) begin(ctx context.Context, mg client.Object, in journal.Intent) (journal.Intent, error) {
	if k.a.j != nil {
		return k.a.j.Begin(ctx, in)
	}
	prevAttempt := 0
	if prev, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && err == nil {
		prevAttempt = prev.Attempt
	}
	in = journal.Stamp(in, time.Now(), prevAttempt)
	ann, err := journal.SetAnnotation(nil, in)
	if err != nil {
		return journal.Intent{}, fmt.Errorf("cannot encode the intent annotation: %w", err)
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":         mg.GetUID(),
		"annotations": map[string]any{journal.AnnotationKey: ann[journal.AnnotationKey]},
	}})
	if err != nil {
		return journal.Intent{}, fmt.Errorf("cannot encode the intent annotation patch: %w", err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	u.SetNamespace(mg.GetNamespace())
	u.SetName(mg.GetName())
	if err := k.a.kube.Patch(ctx, u, client.RawPatch(types.MergePatchType, body)); err != nil {
		return journal.Intent{}, fmt.Errorf("cannot patch the intent annotation of %s: %w", mg.GetName(), err)
	}
	mg.SetResourceVersion(u.GetResourceVersion())
	return in, nil
}

// record settles in, durably with a journal. In annotation-only mode
// nothing is written here: the outcome becomes durable when the external
// name is patched and the annotation dropped (bind), and until then the
// annotation stays unsettled for Observe or recovery to finish.
func (a *Adapter) record(ctx context.Context, in journal.Intent, o journal.Settlement) (journal.Intent, error) {
	if a.j != nil {
		return a.j.Settle(ctx, in.Resource.UID, in.ID, o)
	}
	in.State, in.Outcome, in.UpdatedAt = o.State, o, time.Now().UTC()
	return in, nil
}
