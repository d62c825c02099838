package upjetv2

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/crossplane/upjet/v2/pkg/config"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
)

// workspaceStateFile is the Terraform state file in the workspace
// directory of upjet's Terraform CLI connector (terraform/files.go).
const workspaceStateFile = "terraform.tfstate"

// workspaceKind returns the wrapper for the managed kind gvk reconciled
// through upjet's Terraform CLI connector (tjcontroller.NewConnector with
// a terraform.WorkspaceStore), whose async create runs `terraform apply`
// in the workspace directory <root>/<managed resource UID>. r is the
// kind's upjet configuration; root is the workspace store's root
// directory, "" for os.TempDir(), upjet's default (the store's fs
// GetTempDir). A nil Adapter returns a nil *Kind. KindFor chooses it for
// a kind upjet reconciles through the Terraform CLI.
//
// When the apply succeeds the create callback reads the state the apply
// left in <root>/<uid>/terraform.tfstate, once, and settles the intent
// with the external name r.ExternalName.GetExternalNameFn derives from the
// managed instance's attributes (the "id" attribute when r has none):
// what upjet's own Observe sets through resource.SetCriticalAnnotations,
// so a Templated or id-less kind settles with its real external name.
// A missing state, or one with no instance or an empty id, leaves the
// intent to Observe, which settles it once the name is on the object; so
// does a state that cannot be decoded (a Refresh rewriting the file in
// place as it is read), which the callback logs.
//
// The value read is the external name itself: opts must not include
// adapter.WithExternalNameFromID, which would convert it a second time.
func (a *Adapter) workspaceKind(gvk schema.GroupVersionKind, r *config.Resource, root string, opts ...adapter.KindOption) *Kind {
	if a == nil {
		return nil
	}
	opts = append(slices.Clip(opts), adapter.WithCreatedState(workspaceCreated(r, root)))
	return &Kind{k: a.Adapter.Kind(gvk, nil, opts...)}
}

// workspaceCreated returns the adapter.CreatedStateFunc of a CLI kind: the
// external name read from the workspace state of the managed resource
// (see workspaceKind), and upjet's provider-meta annotation from the same
// read, which upjet's Observe sets with the external name
// (resource.SetCriticalAnnotations): the callback's patch writes both, so
// that the Observe after the create has no annotation left to update.
func workspaceCreated(r *config.Resource, root string) adapter.CreatedStateFunc {
	return func(mg client.Object) (adapter.CreatedState, error) {
		uid := string(mg.GetUID())
		if uid == "" {
			return adapter.CreatedState{}, nil
		}
		dir := root
		if dir == "" {
			// As upjet's store, at the time of the read.
			dir = os.TempDir()
		}
		path := filepath.Join(dir, uid, workspaceStateFile)
		// One read: a Refresh may rewrite the file concurrently, and a
		// torn copy must fail to decode, never be read in two halves.
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return adapter.CreatedState{}, nil
		}
		if err != nil {
			return adapter.CreatedState{}, fmt.Errorf("cannot read the workspace state %s: %w", path, err)
		}
		st, err := decodeWorkspaceState(b)
		if err != nil {
			return adapter.CreatedState{}, fmt.Errorf("cannot decode the workspace state %s: %w", path, err)
		}
		name, err := externalNameFromState(r, st.attributes)
		if err != nil {
			return adapter.CreatedState{}, fmt.Errorf("cannot derive the external name from the workspace state %s: %w", path, err)
		}
		out := adapter.CreatedState{TerraformID: name}
		if name != "" && st.private != "" {
			out.Annotations = map[string]string{ujresource.AnnotationKeyPrivateRawAttribute: st.private}
		}
		return out, nil
	}
}

// workspaceStateV4 is the part of a Terraform JSON state (format version
// 4, which Terraform and OpenTofu write) that decodeWorkspaceState reads.
type workspaceStateV4 struct {
	Version   *int `json:"version"`
	Resources []struct {
		Instances []struct {
			Attributes json.RawMessage `json:"attributes"`
			Private    []byte          `json:"private"` // base64 in the file
		} `json:"instances"`
	} `json:"resources"`
}

// errStateVersion is the error of a state in another format than 4.
var errStateVersion = errors.New("not a Terraform state of format version 4")

// workspaceState is what decodeWorkspaceState reads of a workspace's
// state: the managed instance's attributes, and its private data as upjet
// reads it (StateV4.GetPrivateRaw, base64-decoded), "" when there is none.
type workspaceState struct {
	attributes map[string]any
	private    string
}

// decodeWorkspaceState returns the attributes and private data of the
// first instance of the first resource in the Terraform state b, the
// instance upjet's StateV4.GetAttributes reads: an upjet workspace holds
// one managed resource. It returns no attributes and no error for a state
// with no resource, no instance or null attributes, and for empty bytes
// (as Terraform reads an empty state file: no state). Bytes that are not a
// version 4 state, or whose attributes are not an object, are an error.
func decodeWorkspaceState(b []byte) (workspaceState, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return workspaceState{}, nil
	}
	var s workspaceStateV4
	if err := json.Unmarshal(b, &s); err != nil {
		return workspaceState{}, err
	}
	if s.Version == nil || *s.Version != 4 {
		return workspaceState{}, errStateVersion
	}
	if len(s.Resources) == 0 || len(s.Resources[0].Instances) == 0 {
		return workspaceState{}, nil
	}
	in := s.Resources[0].Instances[0]
	out := workspaceState{private: string(in.Private)}
	if len(in.Attributes) == 0 || string(in.Attributes) == "null" {
		return out, nil
	}
	if err := json.Unmarshal(in.Attributes, &out.attributes); err != nil {
		return workspaceState{}, fmt.Errorf("cannot decode the instance attributes: %w", err)
	}
	return out, nil
}

// externalNameFromState returns the external name of the resource whose
// state attributes are attrs: r's GetExternalNameFn of attrs, as upjet's
// SetCriticalAnnotations derives it, or the "id" attribute when r has none
// (adapter.ExternalNameOfState).
func externalNameFromState(r *config.Resource, attrs map[string]any) (string, error) {
	if r == nil {
		return adapter.ExternalNameOfState(attrs, nil)
	}
	return adapter.ExternalNameOfState(attrs, r.ExternalName.GetExternalNameFn)
}
