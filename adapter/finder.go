package adapter

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// ObserveFunc asks the provider's own ExternalClient whether the managed
// resource obj, given the external name name, exists in the cloud: one
// Terraform read by the ID the kind's GetIDFn builds from name. It returns
// the resource with the tags the observation reports (ObservedResource),
// or nothing when it does not exist. With args, the arguments the create
// sent (obj carries them in spec.forProvider), the resource says whether
// what was found matches them; with args nil it is returned unchecked. A
// line builds it from its upjet connector (its ObserveCreate).
type ObserveFunc func(ctx context.Context, obj *unstructured.Unstructured, args map[string]any, name string) ([]recovery.ExternalResource, error)

// ObserveFinder returns a recovery.Finder for kinds whose external name
// is known before the create (upjet's NameAsExternalName, or any
// deterministic name): it asks observe whether a resource with the
// intent's intended external name exists.
//
// The resource's tags are read from what Observe reports
// (status.atProvider.tags, or .labels), so that recovery can prove
// ownership: a resource that merely has the intended name is not adopted.
// A deleted managed resource cannot be observed (Observe needs its
// provider config), so that case is a lookup error and stays unresolved.
func ObserveFinder(observe ObserveFunc) recovery.Finder {
	return recovery.FinderFn(func(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
		return observeCandidate(ctx, c, observe, false)
	})
}

// observeCandidate observes the candidate's managed resource, as its
// create sent it, at the external name its intent recorded, through
// observe. An intent with no external name is an error unless fromSpec
// (a kind whose spec alone determines its ID); a deleted managed resource
// always is: there is nothing to observe as.
func observeCandidate(ctx context.Context, c *recovery.Candidate, observe ObserveFunc, fromSpec bool) ([]recovery.ExternalResource, error) {
	name := c.Intent.ExternalName
	if name == "" && !fromSpec {
		return nil, fmt.Errorf("cannot look up %s by external name: none was known before the create", c.Intent.Resource)
	}
	if c.Object == nil {
		return nil, fmt.Errorf("cannot observe %s: the managed resource was deleted", c.Intent.Resource)
	}
	obj, args, err := createObject(c)
	if err != nil {
		return nil, err
	}
	return observe(ctx, obj, args, name)
}

// ObservedResource returns what an observation of a managed resource by
// the external name name found, u being the resource's content after its
// Observe and upToDate Observe's ResourceUpToDate: the resource with the
// tags or labels status.atProvider reports. With args, the arguments the
// create sent, it also says whether applying them would change the
// resource: upjet's Observe plans the arguments against the resource's
// state (Terraform's diff), so ResourceUpToDate means nothing would
// change (recovery.ArgsSame); otherwise the resource is
// recovery.ArgsDifferent. A weak proof adopts only the first
// (recovery.Judge). The arguments that would change are named by
// recovery.CompareArgs on the kind's schema s (an extra tag, a value for
// an argument the create left unset); with s nil, or where Terraform's
// diff and the schema's reading disagree, the entry says so.
func ObservedResource(u map[string]any, name string, args map[string]any, upToDate bool, s *recovery.Schema) recovery.ExternalResource {
	r := recovery.ExternalResource{ID: name, Tags: observedTags(u), Identifiers: observedIdentifiers(u)}
	if args == nil {
		return r
	}
	atProvider, _, _ := unstructured.NestedMap(u, "status", "atProvider")
	c := recovery.CompareArgs(s, args, atProvider)
	r.Args, r.ArgsNotCompared = recovery.ArgsSame, c.NotCompared
	if !upToDate {
		r.Args, r.ArgsDiffer = recovery.ArgsDifferent, c.Differ
		if len(r.ArgsDiffer) == 0 {
			r.ArgsDiffer = []string{"(the provider's diff plans a change that status.atProvider does not show)"}
		}
	}
	return r
}

// createObject returns a copy of the candidate's managed resource with
// the arguments its create sent (recovery.Candidate.CreateArgs) in
// spec.forProvider, and those arguments; nil arguments, and the resource
// as it is, when they cannot be known (the spec was edited and only their
// digest was recorded): what is found is then left unchecked, and a weak
// proof does not adopt it. The create's arguments hold what
// spec.initProvider set (recovery.ArgsOf), so spec.initProvider is
// emptied: upjet's Observe then compares those fields too (it leaves out
// of its diff a field set only in initProvider), and the kind's GetIDFn
// sees them whatever management policies the lookup's connector runs
// with.
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
		return nil, nil, wrap(err, "cannot set the create's arguments")
	}
	unstructured.RemoveNestedField(obj.Object, "spec", "initProvider")
	return obj, args, nil
}

// argsMatcher compares a resource an inventory found with the create's
// arguments: it observes the resource by its ID.
func argsMatcher(observe ObserveFunc) recovery.Matcher {
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
		found, err := observe(ctx, obj, args, r.ID)
		switch {
		case err != nil:
			return "", nil, err
		case len(found) == 0:
			return "", nil, fmt.Errorf("%s was listed by its tags, but observing it finds nothing", r.ID)
		}
		return found[0].Args, found[0].ArgsDiffer, nil
	})
}

// observedIdentifiers returns the cloud identifiers an observation
// reports in status.atProvider: arn (AWS), selfLink (GCP) and id (the
// Terraform ID: an ARM ID on Azure, a relative name on GCP), those set.
func observedIdentifiers(u map[string]any) []string {
	var out []string
	for _, field := range []string{"arn", "selfLink", "id"} {
		if v, _, _ := unstructured.NestedString(u, "status", "atProvider", field); v != "" {
			out = append(out, v)
		}
	}
	return out
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

// templateKind is one observe-by-template kind: its finder and, with
// WithVacantKeys, its KeyProbe.
type templateKind struct {
	tfResource string
	tmpl       *strategy.Template
	kube       client.Client
	observe    ObserveFunc
	render     func(ctx context.Context, tmpl *strategy.Template, mg client.Object) (string, error)
	newManaged func() client.Object
	// claims, when set, reads the claimants of a key (WithVacantKeys).
	claims    client.Reader
	claimants map[string][]schema.GroupVersionKind
}

// find is the observe-by-template Finder: the ID the template renders
// from the managed resource's Terraform parameters (and setup, where the
// template reads it), observed as the external name. A resource found at
// the intent's VacantKey carries the key's other claimants.
func (t *templateKind) find(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
	if c.Object == nil {
		return nil, fmt.Errorf("cannot observe %s: the managed resource was deleted", c.Intent.Resource)
	}
	// The key is rendered from what the create sent: a spec edited since
	// names another key.
	obj, args, err := createObject(c)
	if err != nil {
		return nil, err
	}
	mg := t.newManaged()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), mg); err != nil {
		return nil, wrap(err, "cannot convert the managed resource")
	}
	id, err := t.render(ctx, t.tmpl, mg)
	if err != nil {
		return nil, err
	}
	found, err := t.observe(ctx, obj, args, id)
	if err != nil || len(found) == 0 || t.claims == nil || c.Intent.VacantKey != id {
		return found, err
	}
	holders, err := otherClaimants(ctx, t.claims, t.claimants[t.tfResource], t.tfResource, id, c.Object.GetUID())
	if err != nil {
		return nil, err
	}
	found[0].KeyChecked, found[0].KeyHolders = true, holders
	return found, nil
}

// nameKind is one observe-by-name kind: its finder, which checks the
// claimants of the key a create's own Observe found vacant
// (WithObservedKeys) when WithVacantKeys gives it a reader.
type nameKind struct {
	tfResource string
	// fromSpec says the kind's GetIDFn builds the ID from spec alone
	// (strategy.Facts.IDFromSpec): an intent with no external name is
	// observed with an empty one.
	fromSpec  bool
	observe   func(c *recovery.Candidate) ObserveFunc
	claims    client.Reader
	claimants map[string][]schema.GroupVersionKind
}

// find is the observe-by-name Finder (ObserveFinder). A resource found at
// the intent's VacantKey carries the key's other claimants.
func (n *nameKind) find(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
	found, err := observeCandidate(ctx, c, n.observe(c), n.fromSpec)
	if err != nil || len(found) == 0 || n.claims == nil || c.Intent.VacantKey == "" || found[0].AtKey() != c.Intent.VacantKey {
		return found, err
	}
	holders, err := otherClaimants(ctx, n.claims, n.claimants[n.tfResource], n.tfResource, c.Intent.VacantKey, c.Object.GetUID())
	if err != nil {
		return nil, err
	}
	found[0].KeyChecked, found[0].KeyHolders = true, holders
	return found, nil
}

// probe is the KeyProbe: it renders mg's key and observes it; when
// nothing is there, it labels mg with the key's hash before it answers
// vacant, so that a crash after the create leaves the claim where every
// replica's recovery reads it.
func (t *templateKind) probe(ctx context.Context, mg client.Object) (string, bool, error) {
	id, err := t.render(ctx, t.tmpl, mg)
	if err != nil {
		return "", false, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return "", false, wrap(err, "cannot convert the managed resource")
	}
	// Observed as the create will send it: initProvider's fields too.
	if err := unstructured.SetNestedField(u, recovery.ArgsOf(u), "spec", "forProvider"); err != nil {
		return "", false, wrap(err, "cannot set the create's arguments")
	}
	unstructured.RemoveNestedField(u, "spec", "initProvider")
	found, err := t.observe(ctx, &unstructured.Unstructured{Object: u}, nil, id)
	if err != nil {
		return "", false, err
	}
	if len(found) > 0 {
		return id, false, nil
	}
	v := KeyLabelValue(t.tfResource, id)
	if mg.GetLabels()[KeyLabel] == v {
		return id, true, nil
	}
	obj := t.newManaged()
	obj.SetName(mg.GetName())
	obj.SetNamespace(mg.GetNamespace())
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, KeyLabel, v)
	if err := t.kube.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return "", false, wrap(err, "cannot label the managed resource with the key it claims")
	}
	// Keep the reconciler's copy in step, so its own writes that follow
	// (the critical annotations) do not conflict.
	labels := mg.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[KeyLabel] = v
	mg.SetLabels(labels)
	mg.SetResourceVersion(obj.GetResourceVersion())
	return id, true, nil
}

// otherClaimants returns the managed resources of kinds (those of the
// Terraform resource type tfResource), but uid, labelled as claiming key:
// "Kind namespace/name".
func otherClaimants(ctx context.Context, claims client.Reader, kinds []schema.GroupVersionKind, tfResource, key string, uid types.UID) ([]string, error) {
	sel := client.MatchingLabels{KeyLabel: KeyLabelValue(tfResource, key)}
	var out []string
	for _, gvk := range kinds {
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := claims.List(ctx, l, sel); err != nil {
			return nil, fmt.Errorf("cannot list the %s that claim %s: %w", gvk.Kind, key, err)
		}
		for _, o := range l.Items {
			if o.GetUID() == uid {
				continue
			}
			name := o.GetName()
			if ns := o.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
			out = append(out, gvk.Kind+" "+name)
		}
	}
	slices.Sort(out)
	return out, nil
}
