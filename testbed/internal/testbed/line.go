package testbed

import (
	"io/fs"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// A Line is what a line-independent test (the crash matrix, the scale-out
// tests) needs of one crossplane line's test bed: its provider, its CRDs,
// and where and how the managed resources it creates live. Such a test
// drives every object as unstructured, so one copy serves both lines; each
// adapter module's test passes its own Line.
type Line struct {
	// Name names the line in logs, the results table and replay lines,
	// e.g. "v1" or "v2".
	Name string
	// Module is the directory, relative to the repository root, of the
	// line's module, for replay lines, e.g. "testbed/upjetv1".
	Module string
	// ProviderPackage is the import path of the line's provider-fakecloud.
	// Tests build it from their own directory, so it resolves in the
	// calling test's module.
	ProviderPackage string
	// CRDs holds the line's CRD manifests (*.yaml at the top).
	CRDs fs.FS
	// Group is the API group of the managed RecordSets and Networks.
	Group string
	// Namespace, when set, is the namespace of the managed resources (a
	// namespaced group).
	Namespace string
	// ProviderConfigKind is the kind of the provider config the managed
	// resources refer to by name ProviderConfigName, in Group:
	// ProviderConfig for a cluster-scoped group, ClusterProviderConfig
	// for a namespaced one.
	ProviderConfigKind string
	// MRKinds maps a fake cloud kind (KindRecordSet, KindNetwork) to the
	// kind of the line's managed resources that stand for it, where the
	// two names differ: the v2 generated provider's Terraform CLI kinds
	// are CLIRecordSet and CLINetwork. Every method taking a kind takes
	// the fake cloud's and makes it the MR's.
	MRKinds map[string]string
}

// MRKind returns the kind of l's managed resources that stand for the fake
// cloud kind kind (MRKinds); any other kind is its own.
func (l Line) MRKind(kind string) string {
	if k, ok := l.MRKinds[kind]; ok {
		return k
	}
	return kind
}

// CloudKind returns the fake cloud kind that l's managed resources of
// kind mrKind stand for: MRKind's inverse.
func (l Line) CloudKind(mrKind string) string {
	for cloud, mr := range l.MRKinds {
		if mr == mrKind {
			return cloud
		}
	}
	return mrKind
}

// ProviderConfigName is the provider config a Line's managed resources
// refer to.
const ProviderConfigName = "default"

// Managed kinds of the fake cloud, as a Line names them.
const (
	KindRecordSet = "RecordSet"
	KindNetwork   = "Network"
)

// GVK returns the GroupVersionKind of kind in l's group (MRKind's for a
// fake cloud kind).
func (l Line) GVK(kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: l.Group, Version: fcrecovery.Version, Kind: l.MRKind(kind)}
}

// Namespaced reports whether l's managed resources are namespaced.
func (l Line) Namespaced() bool { return l.Namespace != "" }

// ProviderConfig returns the provider config that points l's managed
// resources at the fake cloud at endpoint.
func (l Line) ProviderConfig(endpoint string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"endpoint":    endpoint,
			"credentials": map[string]any{"source": "None"},
		},
	}}
	u.SetGroupVersionKind(l.GVK(l.ProviderConfigKind))
	u.SetName(ProviderConfigName)
	return u
}

// Managed returns the managed resource of kind called name, with
// forProvider as its spec.forProvider.
func (l Line) Managed(kind, name string, forProvider map[string]any) *unstructured.Unstructured {
	ref := map[string]any{"name": ProviderConfigName}
	if l.Namespaced() {
		// crossplane-runtime v2's typed reference; a cluster-scoped
		// (legacy) MR's reference has a name only.
		ref["kind"] = l.ProviderConfigKind
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"providerConfigRef": ref, "forProvider": forProvider},
	}}
	u.SetGroupVersionKind(l.GVK(kind))
	u.SetNamespace(l.Namespace)
	u.SetName(name)
	return u
}

// RecordSet returns a RecordSet MR called name for an A record of the same
// name in zone.
func (l Line) RecordSet(name, zone string) *unstructured.Unstructured {
	return l.Managed(KindRecordSet, name, map[string]any{
		"zone": zone, "name": name, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.10"},
	})
}

// Network returns a Network MR called name with the same display name.
func (l Line) Network(name, cidr string) *unstructured.Unstructured {
	return l.Managed(KindNetwork, name, map[string]any{"name": name, "cidrBlock": cidr})
}

// CrossplaneTags are the crossplane external tags the line's MR of kind
// called name carries (crossplane-runtime's GetExternalTags): in this
// cluster, and in any other cluster with the same manifests, which is what
// a look-alike carries.
func (l Line) CrossplaneTags(kind, name string) map[string]string {
	tags := map[string]string{
		recovery.TagCrossplaneKind:           strings.ToLower(l.MRKind(kind)) + "." + l.Group,
		recovery.TagCrossplaneName:           name,
		recovery.TagCrossplaneProviderConfig: ProviderConfigName,
	}
	if l.Namespaced() {
		tags[recovery.TagCrossplaneNamespace] = l.Namespace
		tags[recovery.TagCrossplaneProviderConfigKind] = l.ProviderConfigKind
	}
	return tags
}

// List returns an empty list of l's managed resources of kind.
func (l Line) List(kind string) *unstructured.UnstructuredList {
	ul := &unstructured.UnstructuredList{}
	gvk := l.GVK(kind)
	gvk.Kind += "List"
	ul.SetGroupVersionKind(gvk)
	return ul
}

// ListOptions scope a list to l's namespace.
func (l Line) ListOptions() []client.ListOption {
	if l.Namespaced() {
		return []client.ListOption{client.InNamespace(l.Namespace)}
	}
	return nil
}
