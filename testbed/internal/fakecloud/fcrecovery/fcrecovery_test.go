package fcrecovery

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

func TestEveryKindHasAFinderAndADeleter(t *testing.T) {
	c := fakecloud.NewClient("http://127.0.0.1:1")
	var want []schema.GroupKind
	for _, gvk := range slices.Concat(Kinds(), KindsNamespaced(), KindsCLI()) {
		want = append(want, gvk.GroupKind())
	}
	keys := func(m map[schema.GroupKind]bool) []schema.GroupKind {
		var out []schema.GroupKind
		for gk := range m {
			out = append(out, gk)
		}
		return out
	}
	finders, deleters := map[schema.GroupKind]bool{}, map[schema.GroupKind]bool{}
	for gk := range Finders(c) {
		finders[gk] = true
	}
	for gk := range Deleters(c) {
		deleters[gk] = true
	}
	less := cmpopts.SortSlices(func(a, b schema.GroupKind) bool { return a.String() < b.String() })
	if diff := cmp.Diff(want, keys(finders), less); diff != "" {
		t.Errorf("Finders(): the kinds of both groups should each have one; -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(want, keys(deleters), less); diff != "" {
		t.Errorf("Deleters(): the kinds of both groups should each have one; -want, +got:\n%s", diff)
	}
	for _, gk := range want {
		if _, _, err := NewFinder(gk, "http://127.0.0.1:1"); err != nil {
			t.Errorf("NewFinder(%s): %v", gk, err)
		}
	}
}

func TestCloudKind(t *testing.T) {
	for mr, want := range map[string]string{
		"CLIRecordSet": "RecordSet", "CLINetwork": "Network",
		"RecordSet": "RecordSet", "Network": "Network", "Address": "Address", "CLIAddress": "CLIAddress",
	} {
		if got := CloudKind(mr); got != want {
			t.Errorf("CloudKind(%q) = %q, want %q", mr, got, want)
		}
	}
}
