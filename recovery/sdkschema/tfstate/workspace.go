package tfstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WorkspaceStateFile is the Terraform state file in the workspace
// directory of upjet's Terraform CLI connector (terraform/files.go).
const WorkspaceStateFile = "terraform.tfstate"

// Workspace is what ReadWorkspace reads of a workspace's state: the
// managed instance's attributes, and its private data as upjet reads it
// (StateV4.GetPrivateRaw, base64-decoded), "" when there is none.
type Workspace struct {
	Attributes map[string]any
	Private    string
	// Path is the file ReadWorkspace read, or would have.
	Path string
}

// ErrStateVersion is the error of a state in another format than 4.
var ErrStateVersion = errors.New("not a Terraform state of format version 4")

// ReadWorkspace reads the state of the workspace upjet's Terraform CLI
// connector keeps for the managed resource uid: <root>/<uid>/terraform.tfstate,
// root "" being os.TempDir() at the time of the read, as upjet's store's.
// It reads the file once: a Refresh may rewrite it concurrently, and a
// torn copy must fail to decode, never be read in two halves. No file,
// like an empty uid, is no state and no error.
func ReadWorkspace(root, uid string) (Workspace, error) {
	if uid == "" {
		return Workspace{}, nil
	}
	if root == "" {
		root = os.TempDir()
	}
	path := filepath.Join(root, uid, WorkspaceStateFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Workspace{Path: path}, nil
	}
	if err != nil {
		return Workspace{}, fmt.Errorf("cannot read the workspace state %s: %w", path, err)
	}
	w, err := DecodeWorkspace(b)
	if err != nil {
		return Workspace{}, fmt.Errorf("cannot decode the workspace state %s: %w", path, err)
	}
	w.Path = path
	return w, nil
}

// stateV4 is the part of a Terraform JSON state (format version 4, which
// Terraform and OpenTofu write) that DecodeWorkspace reads.
type stateV4 struct {
	Version   *int `json:"version"`
	Resources []struct {
		Instances []struct {
			Attributes json.RawMessage `json:"attributes"`
			Private    []byte          `json:"private"` // base64 in the file
		} `json:"instances"`
	} `json:"resources"`
}

// DecodeWorkspace returns the attributes and private data of the first
// instance of the first resource in the Terraform state b, the instance
// upjet's StateV4.GetAttributes reads: an upjet workspace holds one
// managed resource. It returns no attributes and no error for a state
// with no resource, no instance or null attributes, and for empty bytes
// (as Terraform reads an empty state file: no state). Bytes that are not a
// version 4 state, or whose attributes are not an object, are an error.
func DecodeWorkspace(b []byte) (Workspace, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return Workspace{}, nil
	}
	var s stateV4
	if err := json.Unmarshal(b, &s); err != nil {
		return Workspace{}, err
	}
	if s.Version == nil || *s.Version != 4 {
		return Workspace{}, ErrStateVersion
	}
	if len(s.Resources) == 0 || len(s.Resources[0].Instances) == 0 {
		return Workspace{}, nil
	}
	in := s.Resources[0].Instances[0]
	out := Workspace{Private: string(in.Private)}
	if len(in.Attributes) == 0 || string(in.Attributes) == "null" {
		return out, nil
	}
	if err := json.Unmarshal(in.Attributes, &out.Attributes); err != nil {
		return Workspace{}, fmt.Errorf("cannot decode the instance attributes: %w", err)
	}
	return out, nil
}
