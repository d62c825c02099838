package upjetv2

import (
	"slices"
	"sync"

	"github.com/crossplane/upjet/v2/pkg/config"
	"github.com/crossplane/upjet/v2/pkg/types/name"
)

// ResourceOption records what intentjournal needs to know of one kind
// beyond its upjet configuration: NaturalKey, NameKeyed, TagsAfterCreate,
// ExternalNameFromID, WorkspaceRoot.
type ResourceOption func(*resourceFacts)

// resourceFacts are the options Configure recorded for one resource.
type resourceFacts struct {
	naturalKey    []string
	nameKeyed     bool
	tagsAfter     bool
	notTagsAfter  string
	nameFromID    func(tfID string) (string, error)
	workspaceRoot string
}

// NaturalKey names the spec.forProvider fields, by their JSON names
// (zoneId), that identify the kind's cloud object: recorded in every
// intent's lookup keys, so a finder can look the object up after its
// managed resource was deleted. Without it, KindFor takes the fields of
// the kind's ID template (config.ExternalName.IdentifierFields, less the
// one the external name fills in); none for config.IdentifierFromProvider.
func NaturalKey(fields ...string) ResourceOption {
	return func(f *resourceFacts) { f.naturalKey = slices.Clone(fields) }
}

// NameKeyed says the cloud keys the kind's objects by name: a second
// create of one name meets "already exists", so a live look-alike with
// another managed resource's tags blocks the create instead of being
// passed over (adapter.WithNameKeyed, applied by NewFinders).
func NameKeyed() ResourceOption {
	return func(f *resourceFacts) { f.nameKeyed = true }
}

// TagsAfterCreate says the kind's Terraform resource tags the cloud
// resource only after the create call, in a second call (AWSTagsAfterCreate
// lists terraform-provider-aws's): a create interrupted in between leaves
// a resource that carries no tags. A listing by tags that finds nothing
// then proves nothing, and recovery reports the create for an operator
// instead of clearing it (adapter.WithTagsAfterCreate, applied by
// NewFinders).
func TagsAfterCreate() ResourceOption {
	return func(f *resourceFacts) { f.tagsAfter = true }
}

// NotTagsAfterCreate takes the kind off the tags-after-create lists that
// apply to its Terraform resource type with no call
// (strategy.ShippedTagsAfterCreate), for reason, which must say why its
// create tags in the create request (adapter.WithoutTagsAfterCreate,
// applied by NewFinders, which fails on an empty reason).
func NotTagsAfterCreate(reason string) ResourceOption {
	return func(f *resourceFacts) { f.notTagsAfter = reason; f.tagsAfter = false }
}

// ExternalNameFromID sets how the Terraform ID read after an async create
// becomes the external name, for a plugin SDK or framework kind whose
// external name is not the ID (adapter.WithExternalNameFromID). A Terraform CLI
// kind needs none: its external name is upjet's own GetExternalNameFn of
// the workspace's state.
func ExternalNameFromID(fn func(tfID string) (string, error)) ResourceOption {
	return func(f *resourceFacts) { f.nameFromID = fn }
}

// WorkspaceRoot sets the directory of a Terraform CLI kind's workspaces,
// for a provider whose terraform.WorkspaceStore is given a file system
// rooted elsewhere (terraform.WithFs); the default is os.TempDir(), as
// upjet's.
func WorkspaceRoot(dir string) ResourceOption {
	return func(f *resourceFacts) { f.workspaceRoot = dir }
}

// configured holds each resource's facts, by the *config.Resource that
// Configure was given. A provider's configuration is built in the
// generator and again in the provider (both call the provider's
// GetProvider), so its configurators run, and record, in both.
var configured sync.Map // *config.Resource → *resourceFacts

// Configure records opts for r. Call it from the kind's resource
// configurator, next to its external-name configuration:
//
//	p.AddResourceConfigurator("aws_route53_record", func(r *config.Resource) {
//		upjetv2.Configure(r, upjetv2.NaturalKey("zoneId", "name", "type"), upjetv2.NameKeyed())
//	})
//
// A later call for the same resource adds to what an earlier one recorded.
func Configure(r *config.Resource, opts ...ResourceOption) {
	if r == nil {
		return
	}
	f := &resourceFacts{}
	if v, ok := configured.Load(r); ok {
		c := *v.(*resourceFacts)
		f = &c
	}
	for _, o := range opts {
		o(f)
	}
	configured.Store(r, f)
}

// Configured returns opts as a config.ResourceOption, for
// config.WithDefaultResourceOptions or a list of resource options.
func Configured(opts ...ResourceOption) config.ResourceOption {
	return func(r *config.Resource) { Configure(r, opts...) }
}

// factsOf returns what Configure recorded for r, the zero facts if
// nothing.
func factsOf(r *config.Resource) resourceFacts {
	if v, ok := configured.Load(r); ok {
		return *v.(*resourceFacts)
	}
	return resourceFacts{}
}

// naturalKeyOf returns r's natural-key fields by JSON name: NaturalKey's,
// else the identifier fields of r's external-name configuration that the
// spec carries (IdentifierFields less OmittedFields: ParameterAsIdentifier
// omits its parameter from the spec, since the external name fills it
// in).
func naturalKeyOf(r *config.Resource) []string {
	if f := factsOf(r); f.naturalKey != nil {
		return f.naturalKey
	}
	var out []string
	for _, tf := range r.ExternalName.IdentifierFields {
		if slices.Contains(r.ExternalName.OmittedFields, tf) {
			continue
		}
		out = append(out, name.NewFromSnake(tf).LowerCamelComputed)
	}
	return out
}
