package demo

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/internal/golden"
)

// TestLineObjects pins the objects each line's run creates: the provider
// config, and the first managed resources of each kind. On v2 the same
// names go to both namespaces, each RecordSet in its namespace's zone. On
// gcpdns, RecordSets alone, all in one zone, with a provider config of the
// fake Cloud DNS.
func TestLineObjects(t *testing.T) {
	for _, name := range Lines() {
		t.Run(string(name), func(t *testing.T) {
			l, err := LineFor(name)
			if err != nil {
				t.Fatalf("LineFor(%q): %v", name, err)
			}
			objs := []*unstructured.Unstructured{l.providerConfig("http://127.0.0.1:8080")}
			for i := range 3 {
				objs = append(objs, l.objects(i)...)
			}
			b, err := json.MarshalIndent(objs, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "objects-"+string(name)+".json", append(b, '\n'))
		})
	}
}

func TestLineFor(t *testing.T) {
	cases := map[string]struct {
		reason         string
		name           LineName
		wantNamespaced bool
		wantEmbedded   bool
		wantErr        bool
	}{
		"V1":          {reason: "The legacy line is cluster-scoped, its CRDs built in.", name: LineV1, wantEmbedded: true},
		"V2":          {reason: "The v2 line is namespaced; its CRDs live in its own module.", name: LineV2, wantNamespaced: true},
		"V2Generated": {reason: "The generated v2 provider serves the v2 line's namespaced kinds.", name: LineV2Generated, wantNamespaced: true},
		"GCPDNS":      {reason: "provider-gcpdns's RecordSets are namespaced; its CRDs live in its own module.", name: LineGCPDNS, wantNamespaced: true},
		"Unknown":     {reason: "A line that does not exist is an error.", name: "v3", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, err := LineFor(tc.name)
			if diff := cmp.Diff(tc.wantErr, err != nil); diff != "" {
				t.Fatalf("%s\nLineFor(%q) error %v: -want, +got:\n%s", tc.reason, tc.name, err, diff)
			}
			if err != nil {
				return
			}
			got := []bool{l.Namespaced(), l.EmbeddedCRDs != nil}
			if diff := cmp.Diff([]bool{tc.wantNamespaced, tc.wantEmbedded}, got); diff != "" {
				t.Errorf("%s\n[namespaced, embedded CRDs]: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestLineKinds checks the kinds each line's runs create and watch, and
// how many managed resources a run of each creates.
func TestLineKinds(t *testing.T) {
	cases := map[string]struct {
		reason  string
		name    LineName
		want    []string
		wantMRs int
	}{
		"V2": {reason: "RecordSets and Networks of provider-fakecloud's namespaced group.", name: LineV2,
			want: []string{"fakecloud.m.intentjournal.io/v1alpha1, Kind=RecordSet", "fakecloud.m.intentjournal.io/v1alpha1, Kind=Network"}, wantMRs: 20},
		"V2Generated": {reason: "The Terraform CLI twins of the same kinds.", name: LineV2Generated,
			want: []string{"fakecloud.m.intentjournal.io/v1alpha1, Kind=CLIRecordSet", "fakecloud.m.intentjournal.io/v1alpha1, Kind=CLINetwork"}, wantMRs: 20},
		"V1": {reason: "The legacy line's cluster-scoped kinds.", name: LineV1,
			want: []string{"fakecloud.intentjournal.io/v1alpha1, Kind=RecordSet", "fakecloud.intentjournal.io/v1alpha1, Kind=Network"}, wantMRs: 20},
		"GCPDNS": {reason: "provider-gcpdns's namespaced RecordSets alone: PerKind is the number of MRs.", name: LineGCPDNS,
			want: []string{"dns.gcp.m.intentjournal.io/v1beta1, Kind=RecordSet"}, wantMRs: 10},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, err := LineFor(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range l.Kinds() {
				got = append(got, k.String())
			}
			for _, o := range l.objects(0) {
				got = append(got, "object: "+o.GroupVersionKind().String())
			}
			want := slices.Clone(tc.want)
			for _, k := range tc.want {
				want = append(want, "object: "+k)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nKinds() and objects(0): -want, +got:\n%s", tc.reason, diff)
			}
			o := Options{Line: l, PerKind: 10}
			if diff := cmp.Diff(tc.wantMRs, o.mrs()); diff != "" {
				t.Errorf("%s\nmrs() of 10 per kind: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
