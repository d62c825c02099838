package adapter

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// typedCacheReader serves unstructured reads of managed resources (the
// recovery pass's, the create path's wait for the cache) from the
// manager's cache through the scheme's typed kinds: the informers the
// controllers watch with. The manager's client reads unstructured objects
// from the API server, and its cache would start a second, unstructured
// informer (a LIST and a copy of every managed resource) per kind. A kind
// the scheme does not know is an error; the pass answers it with a read
// from the API server. Typed reads pass through.
type typedCacheReader struct {
	cache  client.Reader
	scheme *runtime.Scheme
}

var (
	errUnstructuredList = errors.New("the cache reader does not list unstructured objects")
	// errNotInScheme: the manager's scheme has no type for the kind, so
	// no informer of this manager holds it.
	errNotInScheme = errors.New("the kind is not in the manager's scheme")
)

// Get reads key into obj: for an *unstructured.Unstructured, into a typed
// object of its kind, then converted.
func (r typedCacheReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return r.cache.Get(ctx, key, obj, opts...)
	}
	gvk := u.GroupVersionKind()
	typed, err := r.typed(ctx, gvk, key, opts...)
	if err != nil {
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

// typed reads key as the scheme's type of gvk. Its metadata is as good as
// the converted object's, without the cost of the conversion.
func (r typedCacheReader) typed(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey, opts ...client.GetOption) (client.Object, error) {
	o, err := r.scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s from the cache: %w: %v", gvk, errNotInScheme, err)
	}
	typed, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("cannot read %s from the cache: %T is not an object", gvk, o)
	}
	if err := r.cache.Get(ctx, key, typed, opts...); err != nil {
		return nil, err
	}
	return typed, nil
}

// List lists typed objects; an unstructured list, which would make the
// cache start an unstructured informer, is refused.
func (r typedCacheReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*unstructured.UnstructuredList); ok {
		return errUnstructuredList
	}
	return r.cache.List(ctx, list, opts...)
}
