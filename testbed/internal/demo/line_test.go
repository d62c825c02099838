package demo

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/internal/golden"
)

// TestLineObjects pins the objects each line's run creates: the provider
// config, and the first managed resources of each kind. On v2 the same
// names go to both namespaces, each RecordSet in its namespace's zone.
func TestLineObjects(t *testing.T) {
	for _, name := range Lines() {
		t.Run(string(name), func(t *testing.T) {
			l, err := LineFor(name)
			if err != nil {
				t.Fatalf("LineFor(%q): %v", name, err)
			}
			objs := []*unstructured.Unstructured{l.providerConfig("http://127.0.0.1:8080")}
			for i := range 3 {
				objs = append(objs, l.RecordSet(i), l.Network(i))
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
