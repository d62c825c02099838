package terraform

import (
	"fmt"

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
	return func(c *recovery.Candidate) (map[string]any, error) {
		out := make(map[string]any, len(required))
		for _, k := range required {
			if c.Object != nil {
				if v, ok, _ := unstructured.NestedFieldCopy(c.Object.Object, "spec", "forProvider", recovery.LowerCamel(k)); ok && v != nil {
					out[k] = v
					continue
				}
			}
			if v, ok := c.Intent.LookupKeys[k]; ok {
				out[k] = v
				continue
			}
			return nil, fmt.Errorf("required argument %s of %s is neither in spec.forProvider nor in the intent's lookup keys", k, c.Intent.Resource)
		}
		return out, nil
	}
}
