package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/terraform"
)

// The terraform finder with no argument (--finder KIND=terraform, or
// '*=terraform') looks a candidate up at the Terraform ID its kind's ID
// template renders from the managed resource (the kinds file's
// id_template: what upjet's GetIDFn renders, from the external name, the
// spec's arguments and the provider's setup), by importing that ID into a
// scratch workspace: the key a stock provider's kind is created at,
// whether or not the create tagged anything.

// templateResourceType returns the Terraform resource type of gk as the
// kinds say it, with its import ID rendered from its ID template, or an
// error: wrapping ErrKindNotServed for a kind with no usable template, a
// usage error for a template whose setup values --setup does not give.
func templateResourceType(gk schema.GroupKind, kinds inventory.Kinds, setup map[string]any) (terraform.ResourceType, error) {
	if kinds == nil {
		return terraform.ResourceType{}, UsageError("the terraform finder of %s needs its Terraform type: terraform:TYPE[:ARG,...], "+
			"or a kinds file (--provider NAME or --kinds-file FILE) to read it and its ID template from", gk)
	}
	k, ok := kinds.Of(gk.Group, gk.Kind)
	switch {
	case !ok:
		return terraform.ResourceType{}, kindNotServed("the kinds file does not name %s", gk)
	case k.IDTemplate == "" && k.CloudAssigned:
		return terraform.ResourceType{}, kindNotServed("the cloud assigns the ID of %s (%s), and the kinds file gives no template of it: there is no key to import by", gk, k.TerraformResource)
	case k.IDTemplate == "":
		return terraform.ResourceType{}, kindNotServed("the kinds file gives %s (%s) no ID template", gk, k.TerraformResource)
	}
	x, err := k.ID()
	if err != nil {
		return terraform.ResourceType{}, kindNotServed("%s (%s): %v", gk, k.TerraformResource, err)
	}
	if k.CloudAssigned && x.BindsExternalName() {
		// upjet takes such a kind's external name from the provider: it
		// is the ID, not a part of it.
		return terraform.ResourceType{}, kindNotServed("%s (%s): the cloud assigns its ID, and its template %q names the external name", gk, k.TerraformResource, k.IDTemplate)
	}
	if missing := x.MissingSetup(setup); len(missing) > 0 {
		flags := make([]string, len(missing))
		for i, p := range missing {
			flags[i] = "--setup " + p + "=VALUE"
		}
		return terraform.ResourceType{}, UsageError("the ID template of %s (%s), %q, needs the provider's %s: pass %s",
			gk, k.TerraformResource, k.IDTemplate, strings.Join(missing, ", "), strings.Join(flags, " "))
	}
	return terraform.ResourceType{
		Type:                k.TerraformResource,
		RequiredFromSchema:  true,
		NameArgument:        k.NameArgument,
		NameArgumentUnnamed: k.NameArgument == "" && x.BindsExternalName(),
		ImportID:            templateImportID(x, setup),
		ExternalName: func(_ *recovery.Candidate, attrs map[string]any) (string, error) {
			id, _ := attrs["id"].(string)
			if id == "" {
				return "", fmt.Errorf("the imported %s has no id", k.TerraformResource)
			}
			return x.ExternalName(id)
		},
	}, nil
}

// templateImportID renders x for a candidate: its external name, the
// arguments x names from spec.forProvider, else spec.initProvider (which
// upjet merges into the create), and setup.
func templateImportID(x *inventory.IDTemplate, setup map[string]any) func(c *recovery.Candidate) (string, error) {
	return func(c *recovery.Candidate) (string, error) {
		if c.Object == nil {
			return "", fmt.Errorf("%s no longer exists: its ID template has no spec to render from", c.Intent.Resource)
		}
		params := map[string]any{}
		for _, p := range x.Parameters() {
			for _, from := range []string{"forProvider", "initProvider"} {
				if v, ok, _ := unstructured.NestedFieldCopy(c.Object.Object, "spec", from, recovery.LowerCamel(p)); ok && v != nil {
					params[p] = v
					break
				}
			}
		}
		id, err := x.Render(c.Object.GetAnnotations()[recovery.AnnotationExternalName], params, setup)
		if err != nil {
			return "", fmt.Errorf("%s: %w", c.Intent.Resource, err)
		}
		return id, nil
	}
}

// parseSetup reads --setup PATH=VALUE values into upjet's setup map:
// configuration.project=my-project is {"configuration": {"project":
// "my-project"}}, what an ID template reads as
// .setup.configuration.project.
func parseSetup(values []string) (map[string]any, error) {
	out := map[string]any{}
	for _, v := range values {
		path, val, ok := strings.Cut(v, "=")
		parts := strings.Split(path, ".")
		if !ok || val == "" || len(parts) < 2 || (parts[0] != "configuration" && parts[0] != "client_metadata") || slices.Contains(parts, "") {
			return nil, UsageError("--setup %q: want configuration.NAME=VALUE or client_metadata.NAME=VALUE, e.g. configuration.project=my-project", v)
		}
		m := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				if _, taken := m[p]; taken {
					return nil, UsageError("--setup %q: %s is already a value", v, p)
				}
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		last := parts[len(parts)-1]
		if _, dup := m[last]; dup {
			return nil, UsageError("--setup %q: %s is given twice", v, path)
		}
		m[last] = val
	}
	return out, nil
}

// scratchWorkspace is the workspace of one kind under a scan's default
// --workspace DIR: DIR/<kind>.<group>, configured by DIR's own .tf files
// (the operator's terraform and provider blocks).
func scratchWorkspace(root string, gk schema.GroupKind) string {
	return filepath.Join(root, strings.ToLower(gk.Kind)+"."+gk.Group)
}

// providerConfigOf returns the .tf files of dir, each headed by its name,
// in name order: the configuration every scratch workspace under dir is
// given. It is an error for dir to hold none.
func providerConfigOf(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range names {
		if strings.HasPrefix(filepath.Base(n), "intentjournal_") {
			continue
		}
		data, err := os.ReadFile(n)
		if err != nil {
			return "", fmt.Errorf("--workspace %s: %w", dir, err)
		}
		fmt.Fprintf(&b, "# %s\n%s\n", n, data)
	}
	if b.Len() == 0 {
		return "", UsageError("--workspace %s holds no .tf file: put the terraform and provider blocks each kind's workspace under it is configured with there", dir)
	}
	return b.String(), nil
}

// lazyFinder builds its Finder on the first Find: a scratch workspace is
// made only for a kind that has a candidate.
type lazyFinder struct {
	once func() (recovery.Finder, error)
}

func newLazyFinder(build func() (recovery.Finder, error)) *lazyFinder {
	return &lazyFinder{once: sync.OnceValues(build)}
}

// Find builds the Finder, once, and calls it.
func (l *lazyFinder) Find(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
	f, err := l.once()
	if err != nil {
		return nil, err
	}
	return f.Find(ctx, c)
}

var _ recovery.Finder = (*lazyFinder)(nil)
