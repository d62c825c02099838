package adapter

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// typedCacheReader serves the recovery pass's unstructured reads of
// managed resources from the manager's cache through the scheme's typed
// kinds: the informers the controllers watch with, so that the pass adds
// no second, unstructured informer (a LIST and a copy of every managed
// resource) per kind. A kind the scheme does not know is an error, which
// the pass answers with a read from the API server.
type typedCacheReader struct {
	cache  client.Reader
	scheme *runtime.Scheme
}

var errUnstructuredList = errors.New("the recovery's cache reader does not list")

// Get reads key into obj: for an *unstructured.Unstructured, into a typed
// object of its kind, then converted.
func (r typedCacheReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return r.cache.Get(ctx, key, obj, opts...)
	}
	gvk := u.GroupVersionKind()
	o, err := r.scheme.New(gvk)
	if err != nil {
		return fmt.Errorf("cannot read %s from the cache: %w", gvk, err)
	}
	typed, ok := o.(client.Object)
	if !ok {
		return fmt.Errorf("cannot read %s from the cache: %T is not an object", gvk, o)
	}
	if err := r.cache.Get(ctx, key, typed, opts...); err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return fmt.Errorf("cannot convert %s %s from the cache: %w", gvk, key, err)
	}
	u.SetUnstructuredContent(m)
	// The cache's typed copies carry no TypeMeta.
	u.SetGroupVersionKind(gvk)
	return nil
}

// List is not used by the pass, which lists through the API server.
func (r typedCacheReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errUnstructuredList
}
