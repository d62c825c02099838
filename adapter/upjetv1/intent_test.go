package upjetv1

import (
	"encoding/json"
	"testing"

	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/crossplane-runtime/pkg/resource/fake"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
)

// recordSet is a cluster-scoped managed resource of the shape upjet v1
// generates: a typed spec with forProvider, which BuildIntent and
// SpecFields read. upjet's fake.Terraformed keeps its parameters in a map
// outside any spec.forProvider, where SpecFields cannot find a natural
// key. crossplane-runtime's fake.Managed gives it the managed resource's
// methods, so that the test names no type of the runtime's API package.
type recordSet struct {
	fake.Managed      `json:"-"`
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              recordSetSpec `json:"spec"`
}

type recordSetSpec struct {
	ForProvider recordSetParameters `json:"forProvider"`
}

type recordSetParameters struct {
	Name *string `json:"name,omitempty"`
	Zone *string `json:"zone,omitempty"`
}

var _ resource.Managed = (*recordSet)(nil)

// GetObjectKind is TypeMeta's: fake.Managed has one too.
func (r *recordSet) GetObjectKind() schema.ObjectKind { return &r.TypeMeta }

func (r *recordSet) DeepCopyObject() runtime.Object {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	out := &recordSet{Managed: r.Managed}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

// setProviderConfig sets r's provider config reference from its JSON.
func setProviderConfig(t *testing.T, r *recordSet, ref string) {
	t.Helper()
	r.ProviderConfigReferencer.Ref = nil
	if err := json.Unmarshal([]byte(ref), &r.ProviderConfigReferencer.Ref); err != nil {
		t.Fatal(err)
	}
}

func TestBuildIntent(t *testing.T) {
	owner := journal.Owner{Replica: "provider-0", Shard: "a", Epoch: "18ea3ef8b3e4e209-e2dfa327"}
	gvk := schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"}
	rs := func(mod func(*recordSet)) *recordSet {
		r := &recordSet{
			ObjectMeta: metav1.ObjectMeta{Name: "www", UID: types.UID("uid-1")},
			Spec:       recordSetSpec{ForProvider: recordSetParameters{Zone: ptr.To("example-com"), Name: ptr.To("www")}},
		}
		setProviderConfig(t, r, `{"name": "default"}`)
		if mod != nil {
			mod(r)
		}
		return r
	}
	ref := journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "RecordSet", Name: "www", UID: "uid-1"}
	tags := map[string]string{
		"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": "www", "crossplane-providerconfig": "default",
	}
	withKeys := map[string]string{"zone": "example-com", "name": "www"}
	for k, v := range tags {
		withKeys[k] = v
	}
	cases := map[string]struct {
		reason  string
		mg      resource.Managed
		keys    adapter.KeyFunc
		want    journal.Intent
		wantErr bool
	}{
		"TagsOnly": {
			reason: "Without a natural key the lookup keys are the crossplane external tags.",
			mg:     rs(nil),
			want: journal.Intent{Resource: ref, ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
				LookupKeys: tags, Owner: owner},
		},
		"NaturalKey": {
			reason: "The natural-key fields join the tags, as fcrecovery's key finder reads them for deleted MRs.",
			mg:     rs(nil),
			keys:   adapter.SpecFields("zone", "name"),
			want: journal.Intent{Resource: ref, ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
				LookupKeys: withKeys, Owner: owner},
		},
		"DeterministicName": {
			reason: "An external name set before the create is the intended one.",
			mg:     rs(func(r *recordSet) { meta.SetExternalName(r, "rs-0123") }),
			want: journal.Intent{Resource: ref, ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
				ExternalName: "rs-0123", LookupKeys: tags, Owner: owner},
		},
		"NoProviderConfig": {
			reason: "Without a provider config reference there is no providerconfig tag.",
			mg:     rs(func(r *recordSet) { r.ProviderConfigReferencer.Ref = nil }),
			want: journal.Intent{Resource: ref, Owner: owner, LookupKeys: map[string]string{
				"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": "www"}},
		},
		"MissingKeyField": {
			reason:  "A missing natural-key field is an error, not a silently weaker intent.",
			mg:      rs(func(r *recordSet) { r.Spec.ForProvider.Zone = nil }),
			keys:    adapter.SpecFields("zone", "name"),
			wantErr: true,
		},
		"KeyClash": {
			reason: "A natural-key field may not overwrite a crossplane tag.",
			mg:     rs(nil),
			keys: func(client.Object) (map[string]string, error) {
				return map[string]string{"crossplane-name": "x"}, nil
			},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := BuildIntent(tc.mg, IntentInput{GVK: gvk, Owner: owner, Keys: tc.keys})
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nBuildIntent(): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nBuildIntent(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
