// Package inventory is what a cloud's tag lister returns to the recovery
// pass, and how the cloud's identifiers it returns become the Terraform
// IDs a provider observes. It holds no cloud SDK: each cloud's lister
// lives in a module of its own (inventory/aws, inventory/gcp,
// inventory/azure), so that importing journal/ or recovery/ pulls in none.
//
// A Lister answers one question: which resources of a Terraform resource
// type, in one scope (an AWS account and region, a GCP project, an Azure
// subscription), carry every tag of a set. It returns the cloud's own
// identifiers (an ARN, a full resource name, an ARM ID), never a Terraform
// ID: nothing maps one to the other by hand. Candidates turns an
// identifier into the Terraform IDs it may stand for; the finder observes
// each with the kind's own Observe and accepts one only where the observed
// resource's identifier attribute equals the identifier listed.
//
// Some sources are indexes (Cloud Asset Inventory, Azure Resource Graph)
// that lag behind a create that has returned: a Lister says so
// (Consistency), and an index's "nothing found" proves nothing for an
// intent younger than its lag.
package inventory

import (
	"context"
	"errors"
	"time"
)

// Resource is one cloud resource a Lister found.
type Resource struct {
	// Identifier is the cloud's own identifier of the resource: an AWS
	// ARN, a GCP full resource name
	// (//compute.googleapis.com/projects/p/global/networks/n), an Azure
	// ARM ID (/subscriptions/s/resourceGroups/g/providers/...).
	Identifier string `json:"identifier"`
	// Type is the cloud's resource type, as the source names it (ec2:vpc,
	// compute.googleapis.com/Network, microsoft.network/virtualnetworks),
	// where it says.
	Type string `json:"type,omitempty"`
	// Tags are the resource's tags or labels.
	Tags map[string]string `json:"tags,omitempty"`
	// CreatedAt is when the cloud created the resource, where the source
	// says (Asset Inventory's createTime, ARM's systemData.createdAt); zero
	// where it does not (the Tagging API).
	CreatedAt time.Time `json:"createdAt,omitzero"`
}

// Scope is where a Lister lists: the account or project a provider config
// names. Each cloud's lister reads the fields it needs and refuses a scope
// that lacks them.
type Scope struct {
	// Region and Account are AWS's (the Tagging API is regional).
	Region  string `json:"region,omitempty"`
	Account string `json:"account,omitempty"`
	// Project is GCP's project ID.
	Project string `json:"project,omitempty"`
	// Subscription is Azure's subscription ID.
	Subscription string `json:"subscription,omitempty"`
}

// Query is one listing.
type Query struct {
	// TerraformResource is the Terraform resource type of the kind
	// (aws_vpc): what the Lister maps to the cloud's resource types, where
	// it knows them. Where it does not, it lists every type: the tags
	// still name the kind (crossplane-kind).
	TerraformResource string
	// Tags must all be carried, with their values, by every resource
	// listed.
	Tags map[string]string
	// Scope is where to list.
	Scope Scope
}

// Consistency is what a Lister's "nothing found" proves.
type Consistency struct {
	// ReadAfterWrite is true when a resource is listed as soon as the
	// call that made it has returned (the Tagging API reads the services'
	// own tag stores).
	ReadAfterWrite bool `json:"readAfterWrite"`
	// Lag is how far behind a create an index may be, as its documentation
	// states, where ReadAfterWrite is false: an intent younger than Lag
	// that the listing does not find is reported, never cleared.
	Lag time.Duration `json:"lag,omitempty"`
}

// Lister lists a cloud's resources by tags. It must return an error, never
// nothing, when the listing failed (throttled past its retries, denied,
// unreachable): a failed listing leaves the intent unresolved. Listing
// says what its index lists of a Terraform resource type; List refuses a
// type it does not list (ErrNotListed), and lists a global service's type
// in the Listing's Region.
type Lister interface {
	List(ctx context.Context, q Query) ([]Resource, error)
	Consistency() Consistency
	Listing(tfResource string) Listing
}

// ErrScope reports a Query whose Scope lacks what the Lister needs.
var ErrScope = errors.New("inventory: the scope does not name where to list")

// ErrDenied reports a listing the cloud refused for the caller's
// permissions (an AWS AccessDeniedException): the fix is the provider's
// role, not a retry. A Lister wraps it beside the cloud's own error, so
// that errors.Is tells a denial from a server error or an outage.
var ErrDenied = errors.New("inventory: the listing was denied")
