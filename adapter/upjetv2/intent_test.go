package upjetv2

import (
	"testing"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/journal"
)

// TestBuildIntent covers the v2 shapes of a managed resource: namespaced
// (ModernManaged, whose provider config reference is typed) and cluster
// scoped (LegacyManaged). The lookup keys must be exactly the tags
// crossplane-runtime v2 derives, which upjet sends with the create.
func TestBuildIntent(t *testing.T) {
	owner := journal.Owner{Replica: "provider-0", Epoch: "18ea3ef8b3e4e209-e2dfa327", Cluster: "c-uid"}
	nsGVK := schema.GroupVersionKind{Group: "fakecloud.m.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"}
	clGVK := schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"}
	modern := func(ns string, ref *xpv1.ProviderConfigReference) *fake.ModernManaged {
		m := &fake.ModernManaged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "www", UID: "uid-1"}}
		m.SetProviderConfigReference(ref)
		return m
	}
	legacy := func(ref *xpv1.Reference) *fake.LegacyManaged {
		m := &fake.LegacyManaged{ObjectMeta: metav1.ObjectMeta{Name: "www", UID: "uid-2"}}
		m.SetProviderConfigReference(ref)
		return m
	}
	cases := map[string]struct {
		reason string
		mg     resource.Managed
		gvk    schema.GroupVersionKind
		want   journal.Intent
	}{
		"NamespacedClusterProviderConfig": {
			reason: "A namespaced MR's keys name its namespace and its provider config's kind, as crossplane-runtime v2 tags it.",
			mg:     modern("team-a", &xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"}),
			gvk:    nsGVK,
			want: journal.Intent{
				Resource:       journal.ResourceRef{APIVersion: "fakecloud.m.intentjournal.io/v1alpha1", Kind: "RecordSet", Namespace: "team-a", Name: "www", UID: "uid-1"},
				ProviderConfig: journal.ProviderConfigRef{Kind: "ClusterProviderConfig", Name: "default"},
				LookupKeys: map[string]string{"crossplane-kind": "recordset.fakecloud.m.intentjournal.io", "crossplane-name": "www",
					"crossplane-namespace": "team-a", "crossplane-providerconfig": "default", "crossplane-providerconfig-kind": "ClusterProviderConfig"},
				Owner: owner,
			},
		},
		"NamespacedProviderConfig": {
			reason: "The same name in another namespace, through a namespaced ProviderConfig, has other keys.",
			mg:     modern("team-b", &xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "pc"}),
			gvk:    nsGVK,
			want: journal.Intent{
				Resource:       journal.ResourceRef{APIVersion: "fakecloud.m.intentjournal.io/v1alpha1", Kind: "RecordSet", Namespace: "team-b", Name: "www", UID: "uid-1"},
				ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "pc"},
				LookupKeys: map[string]string{"crossplane-kind": "recordset.fakecloud.m.intentjournal.io", "crossplane-name": "www",
					"crossplane-namespace": "team-b", "crossplane-providerconfig": "pc", "crossplane-providerconfig-kind": "ProviderConfig"},
				Owner: owner,
			},
		},
		"ClusterScopedLegacy": {
			reason: "A cluster-scoped (legacy) MR has no namespace and an untyped reference.",
			mg:     legacy(&xpv1.Reference{Name: "default"}),
			gvk:    clGVK,
			want: journal.Intent{
				Resource:       journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "RecordSet", Name: "www", UID: "uid-2"},
				ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
				LookupKeys:     map[string]string{"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": "www", "crossplane-providerconfig": "default"},
				Owner:          owner,
			},
		},
		"NoProviderConfig": {
			reason: "Without a reference there is no providerconfig key and no provider config.",
			mg:     modern("team-a", nil),
			gvk:    nsGVK,
			want: journal.Intent{
				Resource: journal.ResourceRef{APIVersion: "fakecloud.m.intentjournal.io/v1alpha1", Kind: "RecordSet", Namespace: "team-a", Name: "www", UID: "uid-1"},
				LookupKeys: map[string]string{"crossplane-kind": "recordset.fakecloud.m.intentjournal.io", "crossplane-name": "www",
					"crossplane-namespace": "team-a"},
				Owner: owner,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := BuildIntent(tc.mg, IntentInput{GVK: tc.gvk, Owner: owner})
			if err != nil {
				t.Fatalf("%s\nBuildIntent(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nBuildIntent(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}

	t.Run("DeterministicName", func(t *testing.T) {
		mg := modern("team-a", nil)
		meta.SetExternalName(mg, "rs-0123")
		got, err := BuildIntent(mg, IntentInput{GVK: nsGVK, Owner: owner})
		if err != nil || got.ExternalName != "rs-0123" {
			t.Errorf("an external name set before the create is the intended one: got %q, %v", got.ExternalName, err)
		}
	})
}
