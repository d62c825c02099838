package upjetv2

import (
	"encoding/json"
	"testing"

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
	// The references are decoded from their JSON, so that the test names
	// no type of the package that holds them, which crossplane-runtime
	// v2.3 moved into crossplane/apis/v2: it builds on both generations.
	modern := func(ns, ref string) *fake.ModernManaged {
		m := &fake.ModernManaged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "www", UID: "uid-1"}}
		if ref != "" {
			if err := json.Unmarshal([]byte(ref), &m.TypedProviderConfigReferencer.Ref); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	legacy := func(ref string) *fake.LegacyManaged {
		m := &fake.LegacyManaged{ObjectMeta: metav1.ObjectMeta{Name: "www", UID: "uid-2"}}
		if err := json.Unmarshal([]byte(ref), &m.LegacyProviderConfigReferencer.Ref); err != nil {
			t.Fatal(err)
		}
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
			mg:     modern("team-a", `{"kind": "ClusterProviderConfig", "name": "default"}`),
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
			mg:     modern("team-b", `{"kind": "ProviderConfig", "name": "pc"}`),
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
			mg:     legacy(`{"name": "default"}`),
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
			mg:     modern("team-a", ""),
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
		mg := modern("team-a", "")
		meta.SetExternalName(mg, "rs-0123")
		got, err := BuildIntent(mg, IntentInput{GVK: nsGVK, Owner: owner})
		if err != nil || got.ExternalName != "rs-0123" {
			t.Errorf("an external name set before the create is the intended one: got %q, %v", got.ExternalName, err)
		}
	})
}
