package adapter

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestCreateArgsDigestSurvivesTheAPIServer: in annotation-only mode the
// intent keeps only the digest of what the create sent, taken from the
// typed managed resource; recovery recomputes it from the object as the
// API server returns it (JSON, numbers as integers). The two must agree,
// or every weak proof would find its own resource's spec edited.
func TestCreateArgsDigestSurvivesTheAPIServer(t *testing.T) {
	typed := func(name string, params typedParameters) *typedManaged {
		return &typedManaged{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name},
			Spec: typedSpec{
				ProviderConfigReference: &providerConfigReference{Kind: "ClusterProviderConfig", Name: "default"},
				ForProvider:             params,
			},
		}
	}
	record := typedParameters{Zone: ptr.To("zone-a"), Name: ptr.To("www"), Type: ptr.To("A"), TTL: ptr.To(300.0), Rrdatas: []*string{ptr.To("192.0.2.10")}}
	for name, mg := range map[string]client.Object{
		"RecordSet": typed("www", record),
		"Record":    typed("www", record),
		"Network":   typed("vpc", typedParameters{Name: ptr.To("vpc"), CidrBlock: ptr.To("10.0.0.0/16")}),
	} {
		t.Run(name, func(t *testing.T) {
			mg.SetGeneration(4)
			sent, err := createArgs(mg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(mg)
			if err != nil {
				t.Fatal(err)
			}
			var content map[string]any
			if err := json.Unmarshal(b, &content); err != nil {
				t.Fatal(err)
			}
			served := &unstructured.Unstructured{Object: content}
			c := &recovery.Candidate{Object: served, Intent: journal.Intent{Args: journal.Arguments{Digest: sent.Digest, Generation: sent.Generation}}}
			if _, err := c.CreateArgs(); err != nil {
				t.Errorf("the digest recorded at create (%s) does not match the served object's: %v", sent.Digest, err)
			}
			if sent.Generation != 4 || len(sent.Body) == 0 {
				t.Errorf("recorded %+v, want generation 4 and the body", sent)
			}
		})
	}
}

// typedManaged is a namespaced managed resource of the shape upjet v2
// generates: a spec with a providerConfigRef and a typed forProvider, whose
// fields have the Go types upjet generates for Terraform strings, numbers
// and lists (*string, *float64, []*string). createArgs converts it, and
// recovery reads the JSON the API server serves back. upjet's
// fake.ModernTerraformed keeps its parameters in a map outside any
// spec.forProvider: createArgs would record empty arguments for it whatever
// it did, and the test could not fail.
type typedManaged struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              typedSpec `json:"spec"`
}

type typedSpec struct {
	ProviderConfigReference *providerConfigReference `json:"providerConfigRef,omitempty"`
	ForProvider             typedParameters          `json:"forProvider"`
}

// providerConfigReference is crossplane-runtime v2's typed reference.
type providerConfigReference struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// typedParameters holds the fields of the fake cloud's RecordSet, Record
// and Network, as upjet generates them.
type typedParameters struct {
	CidrBlock *string   `json:"cidrBlock,omitempty"`
	Name      *string   `json:"name,omitempty"`
	Rrdatas   []*string `json:"rrdatas,omitempty"`
	TTL       *float64  `json:"ttl,omitempty"`
	Type      *string   `json:"type,omitempty"`
	Zone      *string   `json:"zone,omitempty"`
}

var _ client.Object = (*typedManaged)(nil)

func (m *typedManaged) DeepCopyObject() runtime.Object {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	out := &typedManaged{}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

func TestSpecFields(t *testing.T) {
	obj := func(spec map[string]any) client.Object {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		u.SetName("www")
		return u
	}
	cases := map[string]struct {
		spec    map[string]any
		want    map[string]string
		wantErr bool
	}{
		"ForProvider": {
			spec: map[string]any{"forProvider": map[string]any{"zone": "z1", "name": "www"}},
			want: map[string]string{"zone": "z1", "name": "www"},
		},
		"InitProvider": {
			spec: map[string]any{"forProvider": map[string]any{"name": "www"}, "initProvider": map[string]any{"zone": "z1"}},
			want: map[string]string{"zone": "z1", "name": "www"},
		},
		"ForProviderWins": {
			spec: map[string]any{"forProvider": map[string]any{"zone": "z1", "name": "www"}, "initProvider": map[string]any{"zone": "z0"}},
			want: map[string]string{"zone": "z1", "name": "www"},
		},
		"Missing": {
			spec:    map[string]any{"forProvider": map[string]any{"name": "www"}},
			wantErr: true,
		},
		"Empty": {
			spec:    map[string]any{"forProvider": map[string]any{"zone": "", "name": "www"}},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := SpecFields("zone", "name")(obj(tc.spec))
			if (err != nil) != tc.wantErr {
				t.Fatalf("SpecFields: error %v, want error: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" && !tc.wantErr {
				t.Errorf("SpecFields (-want +got):\n%s", diff)
			}
		})
	}
}
