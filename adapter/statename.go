package adapter

import "fmt"

// ExternalNameOfState returns the external name of the resource whose
// Terraform state attributes are attrs, as upjet's connectors derive it
// after a create and in every Observe (setExternalName): getName, the
// kind's config.ExternalName.GetExternalNameFn, of attrs, or the "id"
// attribute when getName is nil. No attributes, and an "id" attribute that
// is null or empty (the state upjet seeds before a create), give "" and no
// error: no name yet. An id that is not a string is an error. Each line
// reads attrs from its own upjet's state (the operation tracker's, or a
// Terraform CLI workspace's) and passes its config's function.
func ExternalNameOfState(attrs map[string]any, getName func(map[string]any) (string, error)) (string, error) {
	if attrs == nil {
		return "", nil
	}
	if v, ok := attrs["id"]; ok {
		switch id := v.(type) {
		case nil:
			return "", nil
		case string:
			if id == "" {
				return "", nil
			}
		default:
			return "", fmt.Errorf("the id attribute is a %T, not a string", v)
		}
	}
	if getName != nil {
		return getName(attrs)
	}
	id, _ := attrs["id"].(string)
	return id, nil
}
