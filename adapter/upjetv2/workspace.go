package upjetv2

import (
	"fmt"
	"slices"

	"github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery/sdkschema/tfstate"
)

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
		st, err := tfstate.ReadWorkspace(root, string(mg.GetUID()))
		if err != nil {
			return adapter.CreatedState{}, err
		}
		name, err := externalNameFromState(r, st.Attributes)
		if err != nil {
			return adapter.CreatedState{}, fmt.Errorf("cannot derive the external name from the workspace state %s: %w", st.Path, err)
		}
		out := adapter.CreatedState{TerraformID: name}
		if name != "" && st.Private != "" {
			out.Annotations = map[string]string{ujresource.AnnotationKeyPrivateRawAttribute: st.Private}
		}
		return out, nil
	}
}

// WorkspaceRoot sets the directory of a Terraform CLI kind's workspaces,
// for a provider whose terraform.WorkspaceStore is given a file system
// rooted elsewhere (terraform.WithFs; adapter.WorkspaceRoot).
func WorkspaceRoot(dir string) ResourceOption { return adapter.WorkspaceRoot(dir) }

// cliKind returns the wrapper of a kind r reconciled through upjet's
// Terraform CLI connector: on the v2 line its callback reads the state the
// apply left in the kind's workspace (workspaceKind).
func cliKind(a *Adapter, _ tjcontroller.Options, r *config.Resource, gvk schema.GroupVersionKind, opts ...adapter.KindOption) *Kind {
	return a.workspaceKind(gvk, r, adapter.FactsOf(r).WorkspaceRoot, opts...)
}
