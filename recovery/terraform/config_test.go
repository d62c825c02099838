package terraform

import (
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
)

// TestRenderConfigIgnoresChanges: an import block, written by a schema or
// not, ignores every change, so that its plan never changes the resource;
// a comparison's block alone plans the create's arguments.
func TestRenderConfigIgnoresChanges(t *testing.T) {
	s := &tfjson.SchemaBlock{
		Attributes: map[string]*tfjson.SchemaAttribute{"name": {Required: true}, "rrdatas": {Optional: true}},
		NestedBlocks: map[string]*tfjson.SchemaBlockType{"routing_policy": {Block: &tfjson.SchemaBlock{
			Attributes: map[string]*tfjson.SchemaAttribute{"enable_geo_fencing": {Optional: true}}}}},
	}
	attrs := map[string]any{"name": "www", "rrdatas": []any{"10.0.0.1"}}
	for name, tc := range map[string]struct {
		bl         block
		wantIgnore bool
	}{
		"Required":         {bl: block{address: "a.x", name: "x", importID: "id", attrs: attrs}, wantIgnore: true},
		"SpecArguments":    {bl: block{address: "a.x", name: "x", importID: "id", attrs: attrs, schema: s}, wantIgnore: true},
		"ComparisonsBlock": {bl: block{address: "a.x", name: "x", importID: "id", attrs: attrs, schema: s, compare: true}},
	} {
		t.Run(name, func(t *testing.T) {
			out, _, err := renderConfig("a", []block{tc.bl})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out, "ignore_changes = all"); got != tc.wantIgnore {
				t.Errorf("ignore_changes = all: %t, want %t\n%s", got, tc.wantIgnore, out)
			}
			if !strings.Contains(out, `rrdatas = ["10.0.0.1"]`) {
				t.Errorf("the block does not set rrdatas:\n%s", out)
			}
		})
	}
}
