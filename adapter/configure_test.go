package adapter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestConfigure: the options of every call for one configuration add up;
// another configuration, even an equal one, has facts of its own; a later
// NotTagsAfterCreate takes back TagsAfterCreate.
func TestConfigure(t *testing.T) {
	type resource struct{ Name string }
	r, twin := &resource{"fake_zone"}, &resource{"fake_zone"}
	Configure(r, NaturalKey("zone", "name"), TagsAfterCreate())
	Configure(r, NameKeyed(), WorkspaceRoot("/w"))
	want := ResourceFacts{NaturalKey: []string{"zone", "name"}, NameKeyed: true, TagsAfterCreate: true, WorkspaceRoot: "/w"}
	if diff := cmp.Diff(want, FactsOf(r), cmpopts.IgnoreFields(ResourceFacts{}, "ExternalNameFromID")); diff != "" {
		t.Errorf("FactsOf after two calls: -want +got:\n%s", diff)
	}
	if diff := cmp.Diff(ResourceFacts{}, FactsOf(twin), cmpopts.IgnoreFields(ResourceFacts{}, "ExternalNameFromID")); diff != "" {
		t.Errorf("FactsOf of another configuration: -want +got:\n%s", diff)
	}
	Configure(r, NotTagsAfterCreate("tags in the create request"))
	if f := FactsOf(r); f.TagsAfterCreate || f.NotTagsAfterCreate != "tags in the create request" {
		t.Errorf("after NotTagsAfterCreate: %+v", f)
	}
	Configure[resource](nil, NameKeyed()) // records nothing, no panic
}
