package upjetv2

import (
	"context"
	"testing"

	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/adapter"
)

// recordingCallbacks records the requestReconcile each callback was built
// with.
type recordingCallbacks struct {
	requested map[string]bool
}

func (r *recordingCallbacks) fn(op string, requestReconcile bool) terraform.CallbackFn {
	r.requested[op] = requestReconcile
	return func(error, context.Context) error { return nil }
}

func (r *recordingCallbacks) Create(_ types.NamespacedName, rr bool) terraform.CallbackFn {
	return r.fn("create", rr)
}

func (r *recordingCallbacks) Update(_ types.NamespacedName, rr bool) terraform.CallbackFn {
	return r.fn("update", rr)
}

func (r *recordingCallbacks) Destroy(_ types.NamespacedName, rr bool) terraform.CallbackFn {
	return r.fn("destroy", rr)
}

var _ tjcontroller.CallbackProvider = (*recordingCallbacks)(nil)

// TestCreateCallbackAlwaysRequestsReconcile: upjet v2 builds the callback
// of a failed create with requestReconcile=false when an earlier error is
// cached; the wrapper must ask for the reconcile anyway (see
// callbacks.Create), and leave Update and Destroy as upjet built them.
func TestCreateCallbackAlwaysRequestsReconcile(t *testing.T) {
	nn := types.NamespacedName{Namespace: "team-a", Name: "rs-0"}
	for _, upjet := range []bool{false, true} {
		rec := &recordingCallbacks{requested: map[string]bool{}}
		cp := (&Kind{k: new(adapter.Adapter).Kind(schema.GroupVersionKind{}, nil)}).WrapCallbacks(rec)
		if err := cp.Create(nn, upjet)(nil, context.Background()); err != nil {
			t.Fatalf("Create callback: %v", err)
		}
		cp.Update(nn, upjet)
		cp.Destroy(nn, upjet)
		want := map[string]bool{"create": true, "update": upjet, "destroy": upjet}
		for op, w := range want {
			if got := rec.requested[op]; got != w {
				t.Errorf("upjet passed requestReconcile=%t: %s callback built with %t, want %t", upjet, op, got, w)
			}
		}
	}
}
