package terraform

import (
	"fmt"
	"slices"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// annotationExternalName is crossplane-runtime's external-name annotation.
const annotationExternalName = "crossplane.io/external-name"

// ResourceType describes the Terraform resource type of one managed kind.
type ResourceType struct {
	// Type is the Terraform resource type, e.g. "fakecloud_network".
	Type string
	// Required lists the resource's required arguments. The generated
	// blocks set them, and nothing else.
	Required []string
	// RequiredFromSchema reads Required from the resource type's schema
	// (its required attributes, as the CLI reports them) before the first
	// batch, in place of a list given here: for a type described by a
	// kinds file alone.
	RequiredFromSchema bool
	// NameArgument is the argument the managed resource's external name
	// sets, which upjet leaves out of spec.forProvider (its name field:
	// "name" for NameAsIdentifier, ParameterAsIdentifier's argument, the
	// first argument of TemplatedStringAsIdentifier). DefaultAttributes
	// takes its value from the crossplane.io/external-name annotation when
	// the spec lacks it. With NameArgumentUnnamed it is the one required
	// argument the spec and the lookup keys lack, whichever it is; two
	// lacking are an error.
	NameArgument        string
	NameArgumentUnnamed bool
	// ImportID returns the ID to import a candidate's resource by: its
	// intended external name. Nil means DefaultImportID.
	ImportID func(c *recovery.Candidate) (string, error)
	// Attributes returns the values of the Required arguments for a
	// candidate. Nil means DefaultAttributes(Required).
	Attributes func(c *recovery.Candidate) (map[string]any, error)
	// Arguments returns every argument the candidate's create sent, in
	// Terraform's names: what a comparison plans against a resource only
	// a weak proof makes the candidate's. Nil means the candidate's
	// recorded arguments (recovery.Candidate.CreateArgs) with upjet's
	// names resolved on the resource type's schema.
	Arguments func(c *recovery.Candidate) (map[string]any, error)
	// TagsAttribute is the attribute that holds the resource's tags
	// (default "tags").
	TagsAttribute string
	// ExternalName returns the external name (recovery.ExternalResource.ID)
	// of a resource an import plan read for candidate c, from the
	// attributes the plan read: for an upjet kind, its
	// ExternalName.GetExternalNameFn, what upjet itself sets after a
	// create. Nil means the id attribute. A resource already in the
	// workspace's state is reported by its id.
	ExternalName func(c *recovery.Candidate, attrs map[string]any) (string, error)
}

// DefaultImportID returns the intent's intended external name, else the
// external name a succeeded intent recorded, else the managed resource's
// crossplane.io/external-name annotation.
func DefaultImportID(c *recovery.Candidate) (string, error) {
	if c.Intent.ExternalName != "" {
		return c.Intent.ExternalName, nil
	}
	if c.Intent.State == journal.StateSucceeded && c.Intent.Outcome.ExternalName != "" {
		return c.Intent.Outcome.ExternalName, nil
	}
	if c.Object != nil {
		if n := c.Object.GetAnnotations()[annotationExternalName]; n != "" {
			return n, nil
		}
	}
	return "", fmt.Errorf("%s has no intended external name to import by: the cloud assigns its IDs, so look it up by tags or natural key instead", c.Intent.Resource)
}

// DefaultAttributes returns an Attributes function that reads each required
// argument from spec.forProvider (snake_case argument, lowerCamelCase field),
// else from the intent's lookup keys.
func DefaultAttributes(required []string) func(c *recovery.Candidate) (map[string]any, error) {
	return ResourceType{Required: required}.attributes
}

// attributes reads each of rt.Required from spec.forProvider, else
// spec.initProvider, else the intent's lookup keys, else, for the name
// argument (rt.NameArgument), the managed resource's external name.
func (rt ResourceType) attributes(c *recovery.Candidate) (map[string]any, error) {
	out := make(map[string]any, len(rt.Required))
	var lacking []string
	for _, k := range rt.Required {
		if c.Object != nil {
			v, ok, _ := unstructured.NestedFieldCopy(c.Object.Object, "spec", "forProvider", recovery.LowerCamel(k))
			if !ok || v == nil {
				v, ok, _ = unstructured.NestedFieldCopy(c.Object.Object, "spec", "initProvider", recovery.LowerCamel(k))
			}
			if ok && v != nil {
				out[k] = v
				continue
			}
		}
		if v, ok := c.Intent.LookupKeys[k]; ok {
			out[k] = v
			continue
		}
		lacking = append(lacking, k)
	}
	name := rt.NameArgument
	if rt.NameArgumentUnnamed && len(lacking) == 1 {
		name = lacking[0]
	}
	var en string
	if c.Object != nil {
		en = c.Object.GetAnnotations()[annotationExternalName]
	}
	if i := slices.Index(lacking, name); i >= 0 && name != "" && en != "" {
		out[name] = en
		lacking = slices.Delete(lacking, i, i+1)
	}
	if len(lacking) > 0 {
		return nil, fmt.Errorf("required argument %s of %s is neither in its spec nor in the intent's lookup keys", strings.Join(lacking, ", "), c.Intent.Resource)
	}
	return out, nil
}

// requiredOf returns the required attributes of a resource type's
// schema, sorted.
func requiredOf(s *tfjson.SchemaBlock) []string {
	var out []string
	for name, a := range s.Attributes {
		if a.Required {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
