package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/intentjournal/intentjournal/recovery"
)

// stateResource is one resource of the Importer's type in the state.
type stateResource = recovery.ExternalResource

// heldState maps the addresses of generated blocks in state to what they hold.
type heldState map[string]stateResource

// external converts a resource's attribute values.
func (im *Importer) external(values any, fallbackID string) recovery.ExternalResource {
	m, _ := values.(map[string]any)
	r := recovery.ExternalResource{ID: fallbackID}
	if id, ok := m["id"].(string); ok && id != "" {
		r.ID = id
	}
	if tags, ok := m[im.rt.TagsAttribute].(map[string]any); ok {
		r.Tags = make(map[string]string, len(tags))
		for k, v := range tags {
			if s, ok := v.(string); ok {
				r.Tags[k] = s
			}
		}
	}
	return r
}

// show reads the state and returns the generated blocks' resources.
func (im *Importer) show(ctx context.Context) (heldState, error) {
	if raw, err := os.ReadFile(filepath.Join(im.dir, stateFile)); err == nil && len(bytes.TrimSpace(raw)) > 0 && !json.Valid(raw) {
		return nil, im.corrupt("show", nil)
	}
	t0 := time.Now()
	st, err := im.tf.Show(ctx)
	im.ran("show", t0, 0)
	if err := im.cancelled(ctx, err); err != nil {
		return nil, err
	}
	if err != nil {
		im.observed("show", []byte(err.Error()))
		diags := errorsOf(ParseTextDiagnostics(err.Error()))
		if werr := im.workspaceError("show", diags, err); werr != nil {
			return nil, werr
		}
		return nil, &WorkspaceError{Dir: im.dir, Op: "show", Err: err, Diagnostics: diags}
	}
	im.lastState = st
	out := heldState{}
	if st == nil || st.Values == nil || st.Values.RootModule == nil {
		return out, nil
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Mode == tfjson.ManagedResourceMode && r.Type == im.rt.Type && strings.HasPrefix(r.Name, AddressPrefix) {
			out[r.Address] = im.external(r.AttributeValues, "")
		}
	}
	return out, nil
}

// heldBlocks returns resource blocks (without import) for the generated
// resources already in state, so that a new configuration keeps them.
func (im *Importer) heldBlocks() []block {
	st := im.lastState
	var out []block
	if st == nil || st.Values == nil || st.Values.RootModule == nil {
		return out
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Mode != tfjson.ManagedResourceMode || r.Type != im.rt.Type || !strings.HasPrefix(r.Name, AddressPrefix) {
			continue
		}
		attrs := map[string]any{}
		for _, k := range im.rt.Required {
			attrs[k] = r.AttributeValues[k]
		}
		out = append(out, block{address: r.Address, name: r.Name, attrs: attrs})
	}
	return out
}
