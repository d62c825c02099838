package adapter

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// An ObserveConn is one recovery lookup's connection to a kind's
// in-process connector (plugin SDK or framework), made by a line of its
// upjet types: ObserveCreate's view of an ExternalClient.
type ObserveConn interface {
	// Key returns the Terraform ID the read is made at, which Connect
	// built with the kind's GetIDFn: the key a create's Observe found
	// vacant ("" for a kind whose ID the cloud assigns).
	Key() (string, error)
	// Observe reads the managed resource Connect was given, and says
	// whether its cloud resource exists and is up to date with its spec.
	Observe(ctx context.Context) (exists, upToDate bool, err error)
	// Disconnect ends the connection.
	Disconnect(ctx context.Context)
}

// ConnectFunc connects to a kind's in-process connector for mg.
type ConnectFunc func(ctx context.Context, mg client.Object) (ObserveConn, error)

// ObserveCreate asks the provider's own ExternalClient, through connect,
// whether the managed resource obj, converted into mg (an empty managed
// resource of its kind) and given the external name name, exists in the
// cloud: one Terraform read by the ID the kind's GetIDFn builds from name.
// It returns the resource with the tags the observation reports, or
// nothing when it does not exist, and calls forget(mg), which removes mg
// from the connector's own OperationTrackerStore, before it returns. For
// a recovery lookup, obj carries in spec.forProvider the arguments args
// the create sent, so that the provider's own comparison of spec and
// state says whether what it finds is what the create sent
// (ObservedResource). With args nil (not known), the resource is returned
// unchecked. s, the kind's schema, names the arguments that would change;
// nil names none.
func ObserveCreate(ctx context.Context, connect ConnectFunc, forget func(mg client.Object), obj *unstructured.Unstructured, args map[string]any, s *recovery.Schema, mg client.Object, name string) ([]recovery.ExternalResource, error) {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), mg); err != nil {
		return nil, fmt.Errorf("cannot convert the managed resource: %w", err)
	}
	setAnnotation(mg, recovery.AnnotationExternalName, name)
	defer forget(mg)
	conn, err := connect(ctx, mg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the provider: %w", err)
	}
	defer conn.Disconnect(ctx)
	key, err := conn.Key()
	if err != nil {
		return nil, err
	}
	if key == "" && name == "" {
		// A read at no ID finds nothing, which would prove nothing.
		return nil, fmt.Errorf("cannot observe %s: no external name, and its GetIDFn builds no Terraform ID from its spec", mg.GetName())
	}
	exists, upToDate, err := conn.Observe(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot observe external name %q: %w", name, err)
	}
	if !exists {
		return nil, nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return nil, fmt.Errorf("cannot read the observation: %w", err)
	}
	// Observe sets the external name the kind's GetExternalNameFn makes
	// of the state: for a kind the cloud names, the only way to know it.
	if n := mg.GetAnnotations()[recovery.AnnotationExternalName]; n != "" {
		name = n
	}
	r := ObservedResource(u, name, args, upToDate, s)
	if key != name {
		r.Key = key
	}
	return []recovery.ExternalResource{r}, nil
}

// setAnnotation sets the annotation k of obj to v, as crossplane-runtime's
// meta.AddAnnotations does.
func setAnnotation(obj client.Object, k, v string) {
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	obj.SetAnnotations(a)
}
