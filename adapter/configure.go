package adapter

import (
	"slices"
	"sync"
)

// ResourceOption records what intentjournal needs to know of one kind
// beyond its upjet configuration: NaturalKey, NameKeyed, TagsAfterCreate,
// NotTagsAfterCreate, ExternalNameFromID, WorkspaceRoot. A line's
// Configure records them on the kind's upjet configuration.
type ResourceOption func(*ResourceFacts)

// ResourceFacts are what the ResourceOptions recorded for one kind.
type ResourceFacts struct {
	// NaturalKey are the spec.forProvider fields, by JSON name, that
	// identify the kind's cloud object; nil when none was recorded.
	NaturalKey []string
	// NameKeyed: the cloud keys the kind's objects by name.
	NameKeyed bool
	// TagsAfterCreate: the kind's Terraform resource tags the cloud
	// resource only after the create call.
	TagsAfterCreate bool
	// NotTagsAfterCreate is why the kind is off the shipped
	// tags-after-create lists; "" when it is not.
	NotTagsAfterCreate string
	// ExternalNameFromID turns the Terraform ID into the external name;
	// nil when the kind's configuration says how.
	ExternalNameFromID func(tfID string) (string, error)
	// WorkspaceRoot is the directory of a Terraform CLI kind's
	// workspaces; "" for os.TempDir(), as upjet's.
	WorkspaceRoot string
}

// NaturalKey names the spec.forProvider fields, by their JSON names
// (zoneId), that identify the kind's cloud object: recorded in every
// intent's lookup keys, so a finder can look the object up after its
// managed resource was deleted. Without it, a line takes the fields of
// the kind's ID template (its external-name configuration's identifier
// fields, less the one the external name fills in); none for a kind the
// cloud names.
func NaturalKey(fields ...string) ResourceOption {
	return func(f *ResourceFacts) { f.NaturalKey = slices.Clone(fields) }
}

// NameKeyed says the cloud keys the kind's objects by name: a second
// create of one name meets "already exists", so a live look-alike with
// another managed resource's tags blocks the create instead of being
// passed over (WithNameKeyed, applied by a line's NewFinders).
func NameKeyed() ResourceOption {
	return func(f *ResourceFacts) { f.NameKeyed = true }
}

// TagsAfterCreate says the kind's Terraform resource tags the cloud
// resource only after the create call, in a second call: a create
// interrupted in between leaves a resource that carries no tags. A
// listing by tags that finds nothing then proves nothing, and recovery
// reports the create for an operator instead of clearing it
// (WithTagsAfterCreate, applied by a line's NewFinders). The shipped
// lists of terraform-provider-aws's and -google's such resources apply
// with no call (strategy.ShippedTagsAfterCreate).
func TagsAfterCreate() ResourceOption {
	return func(f *ResourceFacts) { f.TagsAfterCreate = true }
}

// NotTagsAfterCreate takes the kind off the shipped tags-after-create
// lists that apply to its Terraform resource type, for reason, which must
// say why its create tags in the create request (WithoutTagsAfterCreate,
// which fails on an empty reason).
func NotTagsAfterCreate(reason string) ResourceOption {
	return func(f *ResourceFacts) { f.NotTagsAfterCreate = reason; f.TagsAfterCreate = false }
}

// ExternalNameFromID sets how the Terraform ID read after an async create
// becomes the external name, for a plugin SDK or framework kind whose
// external name is not the ID and whose configuration does not say how
// (WithExternalNameFromID). A Terraform CLI kind needs none: its external
// name is upjet's own GetExternalNameFn of the workspace's state.
func ExternalNameFromID(fn func(tfID string) (string, error)) ResourceOption {
	return func(f *ResourceFacts) { f.ExternalNameFromID = fn }
}

// WorkspaceRoot sets the directory of a Terraform CLI kind's workspaces,
// for a provider whose workspace store is given a file system rooted
// elsewhere (upjet's terraform.WithFs); the default is os.TempDir(), as
// upjet's.
func WorkspaceRoot(dir string) ResourceOption {
	return func(f *ResourceFacts) { f.WorkspaceRoot = dir }
}

// configured holds each kind's facts, by the configuration Configure was
// given (a line's *config.Resource). A provider's configuration is built
// in the generator and again in the provider (both call the provider's
// GetProvider), so its configurators run, and record, in both.
var configured sync.Map // configuration → *ResourceFacts

// Configure records opts for the kind whose upjet configuration is r, a
// pointer; a later call for the same r adds to what an earlier one
// recorded. A nil r records nothing.
func Configure[R any](r *R, opts ...ResourceOption) {
	if r == nil {
		return
	}
	f := &ResourceFacts{}
	if v, ok := configured.Load(r); ok {
		c := *v.(*ResourceFacts)
		f = &c
	}
	for _, o := range opts {
		o(f)
	}
	configured.Store(r, f)
}

// FactsOf returns what Configure recorded for r, the zero facts if
// nothing.
func FactsOf[R any](r *R) ResourceFacts {
	if v, ok := configured.Load(r); ok {
		return *v.(*ResourceFacts)
	}
	return ResourceFacts{}
}
