package upjetv2

import (
	"slices"

	"github.com/crossplane/upjet/v2/pkg/config"
	"github.com/crossplane/upjet/v2/pkg/types/name"

	"github.com/intentjournal/intentjournal/adapter"
)

// ResourceOption records what intentjournal needs to know of one kind
// beyond its upjet configuration (adapter.ResourceOption).
type ResourceOption = adapter.ResourceOption

// NaturalKey names the spec.forProvider fields, by their JSON names
// (zoneId), that identify the kind's cloud object (adapter.NaturalKey).
// Without it, KindFor takes the fields of the kind's ID template
// (config.ExternalName.IdentifierFields, less the one the external name
// fills in); none for config.IdentifierFromProvider.
func NaturalKey(fields ...string) ResourceOption { return adapter.NaturalKey(fields...) }

// NameKeyed says the cloud keys the kind's objects by name
// (adapter.NameKeyed).
func NameKeyed() ResourceOption { return adapter.NameKeyed() }

// TagsAfterCreate says the kind's Terraform resource tags the cloud
// resource only after the create call (adapter.TagsAfterCreate).
func TagsAfterCreate() ResourceOption { return adapter.TagsAfterCreate() }

// NotTagsAfterCreate takes the kind off the shipped tags-after-create
// lists, for reason (adapter.NotTagsAfterCreate).
func NotTagsAfterCreate(reason string) ResourceOption { return adapter.NotTagsAfterCreate(reason) }

// ExternalNameFromID sets how the Terraform ID read after an async create
// becomes the external name, for a plugin SDK or framework kind whose
// external name is not the ID (adapter.ExternalNameFromID).
func ExternalNameFromID(fn func(tfID string) (string, error)) ResourceOption {
	return adapter.ExternalNameFromID(fn)
}

// Configure records opts for r. Call it from the kind's resource
// configurator, next to its external-name configuration:
//
//	p.AddResourceConfigurator("aws_route53_record", func(r *config.Resource) {
//		upjetv2.Configure(r, upjetv2.NaturalKey("zoneId", "name", "type"), upjetv2.NameKeyed())
//	})
//
// A later call for the same resource adds to what an earlier one recorded.
func Configure(r *config.Resource, opts ...ResourceOption) { adapter.Configure(r, opts...) }

// Configured returns opts as a config.ResourceOption, for
// config.WithDefaultResourceOptions or a list of resource options.
func Configured(opts ...ResourceOption) config.ResourceOption {
	return func(r *config.Resource) { Configure(r, opts...) }
}

// naturalKeyOf returns r's natural-key fields by JSON name: NaturalKey's,
// else the identifier fields of r's external-name configuration that the
// spec carries (IdentifierFields less OmittedFields: ParameterAsIdentifier
// omits its parameter from the spec, since the external name fills it
// in).
func naturalKeyOf(r *config.Resource) []string {
	if f := adapter.FactsOf(r); f.NaturalKey != nil {
		return f.NaturalKey
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
