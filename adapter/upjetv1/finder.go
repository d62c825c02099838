package upjetv1

import (
	"context"
	"fmt"

	"github.com/crossplane/crossplane-runtime/pkg/errors"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/intentjournal/intentjournal/recovery"
)

// NewObserveFinder returns a recovery.Finder for kinds whose external name
// is known before the create (upjet's NameAsExternalName, or any
// deterministic name): it asks the provider's own ExternalClient, through
// connecter, whether a resource with the intent's intended external name
// exists (ObserveCreate). newManaged returns an empty managed resource of
// the kind.
//
// The resource's tags are read from what Observe reports
// (status.atProvider.tags, or .labels), so that recovery can prove
// ownership: a resource that merely has the intended name is not adopted.
// A deleted managed resource cannot be observed (Observe needs its
// provider config), so that case is a lookup error and stays unresolved.
//
// upjet's connectors keep per-UID Terraform state in their
// OperationTrackerStore. Build connecter with a store of its own, never the
// reconcilers' (recovery must not touch in-flight reconcile state), and
// pass that store: the finder removes its entry after every lookup, so one
// lookup's state never answers the next.
func NewObserveFinder(connecter managed.ExternalConnecter, store *tjcontroller.OperationTrackerStore, newManaged func() resource.Managed) recovery.Finder {
	return recovery.FinderFn(func(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
		name := c.Intent.ExternalName
		if name == "" {
			return nil, fmt.Errorf("cannot look up %s by external name: none was known before the create", c.Intent.Resource)
		}
		if c.Object == nil {
			return nil, fmt.Errorf("cannot observe %s: the managed resource was deleted", c.Intent.Resource)
		}
		obj, args, err := createObject(c)
		if err != nil {
			return nil, err
		}
		return ObserveCreate(ctx, connecter, store, obj, args, newManaged(), name)
	})
}

// ObserveAs asks the provider's own ExternalClient, through connecter,
// whether the managed resource obj, converted into mg (an empty managed
// resource of its kind) and given the external name name, exists in the
// cloud: one Terraform read by the ID the kind's GetIDFn builds from name.
// It returns the resource with the tags the observation reports, or
// nothing when it does not exist. It removes mg's entry from store, the
// connecter's own OperationTrackerStore, before it returns. The key probe
// uses it; recovery's lookups use ObserveCreate.
func ObserveAs(ctx context.Context, connecter managed.ExternalConnecter, store *tjcontroller.OperationTrackerStore, obj *unstructured.Unstructured, mg resource.Managed, name string) ([]recovery.ExternalResource, error) {
	return ObserveCreate(ctx, connecter, store, obj, nil, mg, name)
}

// ObserveCreate is ObserveAs for a recovery lookup: obj carries in
// spec.forProvider the arguments args the create sent (createObject puts
// them there), so that the provider's own comparison of spec and state
// says whether what it finds is what the create sent. upjet's Observe
// plans the arguments against the resource's state: ResourceUpToDate
// means no argument the create set differs (recovery.ArgsSame); otherwise
// the resource is recovery.ArgsDifferent, with the top-level arguments
// whose observed values differ named (recovery.CompareArgs). A weak proof
// adopts only the first (recovery.Judge). With args nil (not known), the
// resource is returned unchecked.
func ObserveCreate(ctx context.Context, connecter managed.ExternalConnecter, store *tjcontroller.OperationTrackerStore, obj *unstructured.Unstructured, args map[string]any, mg resource.Managed, name string) ([]recovery.ExternalResource, error) {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), mg); err != nil {
		return nil, errors.Wrap(err, "cannot convert the managed resource")
	}
	meta.SetExternalName(mg, name)
	defer func() { _ = store.RemoveTracker(mg) }()
	ext, err := connecter.Connect(ctx, mg)
	if err != nil {
		return nil, errors.Wrap(err, "cannot connect to the provider")
	}
	defer func() { _ = ext.Disconnect(ctx) }()
	obs, err := ext.Observe(ctx, mg)
	if err != nil {
		return nil, errors.Wrapf(err, "cannot observe external name %q", name)
	}
	if !obs.ResourceExists {
		return nil, nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return nil, errors.Wrap(err, "cannot read the observation")
	}
	r := recovery.ExternalResource{ID: name, Tags: observedTags(u)}
	if args != nil {
		r.Args = recovery.ArgsSame
		if !obs.ResourceUpToDate {
			atProvider, _, _ := unstructured.NestedMap(u, "status", "atProvider")
			r.Args, r.ArgsDiffer = recovery.ArgsDifferent, recovery.CompareArgs(args, atProvider)
		}
	}
	return []recovery.ExternalResource{r}, nil
}

// createObject returns a copy of the candidate's managed resource with
// the arguments its create sent (recovery.Candidate.CreateArgs) in
// spec.forProvider, and those arguments; nil arguments, and the resource
// as it is, when they cannot be known (the spec was edited and only their
// digest was recorded): what is found is then left unchecked, and a weak
// proof does not adopt it.
func createObject(c *recovery.Candidate) (*unstructured.Unstructured, map[string]any, error) {
	obj := c.Object.DeepCopy()
	args, err := c.CreateArgs()
	switch {
	case errors.Is(err, recovery.ErrArgsUnknown):
		return obj, nil, nil
	case err != nil:
		return nil, nil, err
	}
	if err := unstructured.SetNestedField(obj.Object, runtime.DeepCopyJSONValue(args), "spec", "forProvider"); err != nil {
		return nil, nil, errors.Wrap(err, "cannot set the create's arguments")
	}
	return obj, args, nil
}

// argsMatcher compares a resource a tag lister found with the create's
// arguments: it observes the resource by its ID, as ObserveCreate does.
func argsMatcher(connecter managed.ExternalConnecter, store *tjcontroller.OperationTrackerStore, newManaged func() resource.Managed) recovery.Matcher {
	return recovery.MatcherFn(func(ctx context.Context, c *recovery.Candidate, r recovery.ExternalResource) (recovery.ArgsMatch, []string, error) {
		if c.Object == nil {
			// Observe needs the provider config; a deleted managed
			// resource adopts nothing anyway.
			return "", nil, recovery.ErrArgsUnknown
		}
		obj, args, err := createObject(c)
		if err != nil {
			return "", nil, err
		}
		found, err := ObserveCreate(ctx, connecter, store, obj, args, newManaged(), r.ID)
		switch {
		case err != nil:
			return "", nil, err
		case len(found) == 0:
			return "", nil, fmt.Errorf("%s was listed by its tags, but observing it finds nothing", r.ID)
		}
		return found[0].Args, found[0].ArgsDiffer, nil
	})
}

// observedTags returns the tags or labels an observation reports.
func observedTags(u map[string]any) map[string]string {
	for _, field := range []string{"tags", "labels"} {
		m, found, err := unstructured.NestedMap(u, "status", "atProvider", field)
		if err != nil || !found {
			continue
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			if s, ok := v.(string); ok {
				out[k] = s
			}
		}
		return out
	}
	return nil
}
