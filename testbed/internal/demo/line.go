package demo

import (
	"fmt"
	"io/fs"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/crds"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// LineName names a crossplane line: the provider-fakecloud built on it and
// the managed resources it serves.
type LineName string

// The crossplane lines the demo runs.
const (
	// LineV1 is crossplane-runtime v1 / upjet v1: cluster-scoped managed
	// resources of fakecloud.intentjournal.io.
	LineV1 LineName = "v1"
	// LineV2 is crossplane-runtime v2 / upjet v2: namespaced managed
	// resources of fakecloud.m.intentjournal.io, the same names in two
	// namespaces.
	LineV2 LineName = "v2"
	// LineV2Generated is the v2 line's provider as upjet's pipeline
	// generates it with intentjournal's controller template
	// (provider-fakecloud --generated): its RecordSets and Networks, of
	// the same group and namespaces as LineV2's, are reconciled through
	// upjet's Terraform CLI connector, a tofu apply per create in a
	// workspace that dies with the pod (crossplane/upjet#561).
	LineV2Generated LineName = "v2-generated"
)

// DefaultLine is the line `make demo` runs unless DEMO_LINE says otherwise.
const DefaultLine = LineV2

// Lines returns the names of every line, default first.
func Lines() []LineName { return []LineName{LineV2, LineV2Generated, LineV1} }

// Line is what the demo needs to know of a crossplane line, as data: the
// demo drives managed resources as unstructured objects, so that it links
// neither line's crossplane-runtime.
type Line struct {
	Name LineName
	// Group holds the managed kinds the demo creates, RecordSet and Network,
	// at fcrecovery.Version.
	Group string
	// Namespaces spread the managed resources, the same names in each;
	// empty means cluster-scoped.
	Namespaces []string
	// ProviderConfig is the cluster-scoped provider config kind every
	// managed resource refers to, called providerConfigName.
	ProviderConfig schema.GroupVersionKind
	// RefKind, when set, goes into spec.providerConfigRef.kind (v2's typed
	// reference); v1's reference has a name only.
	RefKind string
	// ModuleDir is the line's Go module, relative to the repository root;
	// ProviderPackage is provider-fakecloud's main package within it.
	ModuleDir, ProviderPackage string
	// CRDDir is where the line's CRD manifests live, relative to the
	// repository root.
	CRDDir string
	// EmbeddedCRDs, when set, are the line's CRD manifests built into this
	// binary, used when Options.CRDDir is empty.
	EmbeddedCRDs fs.FS
	// DispatchedInCloud, when set, counts a create dispatched once the
	// fake cloud holds it, not once its MR carries
	// external-create-succeeded: upjet's Terraform CLI connector writes
	// that annotation when it starts tofu, seconds before the create
	// reaches the cloud, and a kill then would find nothing in flight.
	DispatchedInCloud bool
}

// providerPackage is provider-fakecloud's main package in each line's
// module.
const providerPackage = "./internal/cmd/provider-fakecloud"

// LineFor returns the line called name.
func LineFor(name LineName) (Line, error) {
	switch name {
	case LineV1:
		return Line{
			Name:           LineV1,
			Group:          fcrecovery.Group,
			ProviderConfig: schema.GroupVersionKind{Group: fcrecovery.Group, Version: fcrecovery.Version, Kind: "ProviderConfig"},
			ModuleDir:      "testbed/upjetv1", ProviderPackage: providerPackage,
			CRDDir:       "testbed/internal/fakecloud/crds",
			EmbeddedCRDs: crds.FS,
		}, nil
	case LineV2:
		return Line{
			Name:           LineV2,
			Group:          fcrecovery.GroupNamespaced,
			Namespaces:     []string{"team-a", "team-b"},
			ProviderConfig: schema.GroupVersionKind{Group: fcrecovery.GroupNamespaced, Version: fcrecovery.Version, Kind: "ClusterProviderConfig"},
			RefKind:        "ClusterProviderConfig",
			ModuleDir:      "testbed/upjetv2", ProviderPackage: providerPackage,
			CRDDir: "testbed/upjetv2/internal/provider/crds",
		}, nil
	case LineV2Generated:
		l, err := LineFor(LineV2)
		l.Name, l.CRDDir, l.DispatchedInCloud = LineV2Generated, "testbed/upjetv2/generated/package/crds", true
		return l, err
	}
	return Line{}, fmt.Errorf("unknown crossplane line %q: want one of %q", name, Lines())
}

// Namespaced reports whether the line's managed resources are namespaced.
func (l Line) Namespaced() bool { return len(l.Namespaces) > 0 }

// Kinds returns the GVKs of the managed resources, RecordSet then Network.
func (l Line) Kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{
		{Group: l.Group, Version: fcrecovery.Version, Kind: kindRecordSet},
		{Group: l.Group, Version: fcrecovery.Version, Kind: kindNetwork},
	}
}

// Kinds of managed resource, as the fake cloud's objects name them too.
const (
	kindRecordSet = "RecordSet"
	kindNetwork   = "Network"
)

// namespaceOf returns the namespace of the i-th managed resource of a kind,
// "" when cluster-scoped: round robin, so each namespace holds the same
// names.
func (l Line) namespaceOf(i int) string {
	if !l.Namespaced() {
		return ""
	}
	return l.Namespaces[i%len(l.Namespaces)]
}

// nameIndex returns the index in the name of the i-th managed resource of a
// kind: i, or i divided by the number of namespaces, so that team-a/rs-00000
// and team-b/rs-00000 both exist.
func (l Line) nameIndex(i int) int {
	if !l.Namespaced() {
		return i
	}
	return i / len(l.Namespaces)
}

// RecordSet returns, unstructured, the i-th RecordSet MR: an A record named
// like the MR, in a zone of its own per namespace (a RecordSet is unique by
// zone and name, so team-a's and team-b's must not share a zone).
func (l Line) RecordSet(i int) *unstructured.Unstructured {
	ns, name := l.namespaceOf(i), fmt.Sprintf("rs-%05d", l.nameIndex(i))
	z := zone
	if ns != "" {
		z = ns + "-" + zone
	}
	return l.managed(kindRecordSet, ns, name, map[string]any{
		"zone": z, "name": name, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.10"},
	})
}

// Network returns, unstructured, the i-th Network MR, with a CIDR block of
// its own.
func (l Line) Network(i int) *unstructured.Unstructured {
	ns, name := l.namespaceOf(i), fmt.Sprintf("net-%05d", l.nameIndex(i))
	return l.managed(kindNetwork, ns, name, map[string]any{
		"name": name, "cidrBlock": fmt.Sprintf("10.%d.%d.0/24", (i/256)%256, i%256),
	})
}

func (l Line) managed(kind, ns, name string, forProvider map[string]any) *unstructured.Unstructured {
	ref := map[string]any{"name": providerConfigName}
	if l.RefKind != "" {
		ref["kind"] = l.RefKind
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"providerConfigRef": ref, "forProvider": forProvider},
	}}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: l.Group, Version: fcrecovery.Version, Kind: kind})
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// providerConfig returns, unstructured, the provider config every MR refers
// to, pointing at the fake cloud at endpoint.
func (l Line) providerConfig(endpoint string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"endpoint": endpoint, "credentials": map[string]any{"source": "None"}},
	}}
	u.SetGroupVersionKind(l.ProviderConfig)
	u.SetName(providerConfigName)
	return u
}

// String returns the line's name.
func (l Line) String() string { return string(l.Name) }
