package upjetv1

import (
	"testing"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/journal"
)

func TestBuildIntent(t *testing.T) {
	owner := journal.Owner{Replica: "provider-0", Shard: "a", Epoch: "18ea3ef8b3e4e209-e2dfa327"}
	rs := func(mod func(*v1alpha1.RecordSet)) *v1alpha1.RecordSet {
		r := &v1alpha1.RecordSet{
			ObjectMeta: metav1.ObjectMeta{Name: "www", UID: types.UID("uid-1")},
			Spec: v1alpha1.RecordSetSpec{
				ResourceSpec: xpv1.ResourceSpec{ProviderConfigReference: &xpv1.Reference{Name: "default"}},
				ForProvider:  v1alpha1.RecordSetParameters{Zone: ptr.To("example-com"), Name: ptr.To("www")},
			},
		}
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
		keys    KeyFunc
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
			keys:   SpecFields("zone", "name"),
			want: journal.Intent{Resource: ref, ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
				LookupKeys: withKeys, Owner: owner},
		},
		"DeterministicName": {
			reason: "An external name set before the create is the intended one.",
			mg:     rs(func(r *v1alpha1.RecordSet) { meta.SetExternalName(r, "rs-0123") }),
			want: journal.Intent{Resource: ref, ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
				ExternalName: "rs-0123", LookupKeys: tags, Owner: owner},
		},
		"NoProviderConfig": {
			reason: "Without a provider config reference there is no providerconfig tag.",
			mg:     rs(func(r *v1alpha1.RecordSet) { r.Spec.ProviderConfigReference = nil }),
			want: journal.Intent{Resource: ref, Owner: owner, LookupKeys: map[string]string{
				"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": "www"}},
		},
		"MissingKeyField": {
			reason:  "A missing natural-key field is an error, not a silently weaker intent.",
			mg:      rs(func(r *v1alpha1.RecordSet) { r.Spec.ForProvider.Zone = nil }),
			keys:    SpecFields("zone", "name"),
			wantErr: true,
		},
		"KeyClash": {
			reason: "A natural-key field may not overwrite a crossplane tag.",
			mg:     rs(nil),
			keys: func(resource.Managed) (map[string]string, error) {
				return map[string]string{"crossplane-name": "x"}, nil
			},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := BuildIntent(tc.mg, IntentInput{GVK: v1alpha1.RecordSet_GroupVersionKind, Owner: owner, Keys: tc.keys})
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nBuildIntent(): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nBuildIntent(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
