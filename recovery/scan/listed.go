package scan

import (
	"slices"

	"github.com/intentjournal/intentjournal/inventory"
)

// externalNames returns the external names a found resource may be bound
// under: its ID, or, for one a cloud's tag listing found by its cloud
// identifier (recovery.ExternalResource.Listed: an ARN, a full resource
// name, an ARM ID), every form that identifier may take
// (inventory.Candidates: vpc-0abc for
// arn:aws:ec2:us-east-1:123456789012:vpc/vpc-0abc). A managed resource
// bound under any of them is taken to be bound to the resource: scan then
// never offers it for adoption, and never reports it as a copy.
func externalNames(id string, listed bool) []string {
	if !listed {
		return []string{id}
	}
	return inventory.Candidates(id)
}

// anyIn reports whether set holds any of names.
func anyIn(set map[string]bool, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return set[n] })
}
