package inventory

import (
	"embed"
	"fmt"
	"io"
)

// Kind is one managed kind of a stock upjet provider: what a scan needs
// to look up a create of it in the cloud with no per-kind flag.
type Kind struct {
	// Group and Kind name the managed kind (ec2.aws.upbound.io, VPC; the
	// namespaced scope's group is another kind: ec2.aws.m.upbound.io).
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// TerraformResource is its Terraform resource type (aws_vpc), which
	// a Lister's Listing is keyed by.
	TerraformResource string `json:"terraformResource"`
	// CloudAssigned is true when the cloud assigns its ID at create
	// (upjet's IdentifierFromProvider): an external name equal to the
	// managed resource's name is then no settled one.
	CloudAssigned bool `json:"cloudAssigned"`
	// IDTemplate is, for a kind whose ID is known before the create, the
	// Terraform ID template its upjet configuration renders (see
	// IDTemplate). For a kind whose external name upjet takes from the
	// provider (CloudAssigned) though its spec determines its ID, as
	// names do in most GCP kinds, the template of that ID, which its
	// Terraform importer takes: from the arguments and the setup alone,
	// never the external name. Empty when the kinds file gives none.
	IDTemplate string `json:"idTemplate,omitempty"`
	// NameArgument is the Terraform argument the external name sets
	// (upjet's NameAsIdentifier "name", ParameterAsIdentifier's); empty
	// when the file does not say, for a template that names the external
	// name: the one required argument the managed resource's spec lacks.
	NameArgument string `json:"nameArgument,omitempty"`
	// TagsAtCreate says when the kind's create sends its tags:
	// TagsAtRequest, TagsAfter (a call after the create), TagsPartitionFallback
	// (the request, but a later call in a partition that does not take
	// them); empty for a kind with no tags field, or when the kinds file
	// does not say.
	TagsAtCreate string `json:"tagsAtCreate,omitempty"`
}

// When a kind's create sends its tags (Kind.TagsAtCreate).
const (
	TagsAtRequest         = "request"
	TagsAfter             = "after"
	TagsPartitionFallback = "partition-fallback"
)

// TagsMayFollowCreate reports whether a create of the kind can have made
// a resource that carries no tags yet: tagged after the create, tagged so
// in some partition, or not known to be tagged in the request. A listing
// by tags that finds nothing then proves nothing.
func (k Kind) TagsMayFollowCreate() bool { return k.TagsAtCreate != TagsAtRequest }

// ID returns the kind's parsed IDTemplate, or nil when it has none.
func (k Kind) ID() (*IDTemplate, error) {
	if k.IDTemplate == "" {
		return nil, nil
	}
	return ParseIDTemplate(k.IDTemplate)
}

// Kinds are a provider's managed kinds, by group and kind.
type Kinds map[KindKey]Kind

// KindKey is a managed kind's group and kind.
type KindKey struct{ Group, Kind string }

// Of returns what k holds of the managed kind group/kind, and whether it
// holds it.
func (k Kinds) Of(group, kind string) (Kind, bool) {
	x, ok := k[KindKey{Group: group, Kind: kind}]
	return x, ok
}

// kindColumns are a kinds file's columns, in order.
var kindColumns = []string{"group", "kind", "terraform_resource", "id", "id_template", "name_argument", "tags_at_create"}

// ParseKinds reads a kinds file: tab-separated, with the header line
// kindColumns names, lines starting with # ignored. id is K (the ID is
// known before the create) or C (the cloud assigns it); id_template and
// name_argument are its Kind.IDTemplate and Kind.NameArgument, or empty;
// a C kind has no name argument. tags_at_create is Kind.TagsAtCreate:
// request, after, partition-fallback, or empty. hack/kindmap.sh writes the shipped
// ones from the providers' generated code.
//
// A template is not parsed here: a kind whose template cannot be used is
// not looked up by key (Kind.ID says why), and the rest of the file is.
func ParseKinds(r io.Reader) (Kinds, error) {
	out := Kinds{}
	err := readTable(r, "kinds", kindColumns, func(n int, f []string) error {
		x := Kind{Group: f[0], Kind: f[1], TerraformResource: f[2], IDTemplate: f[4], NameArgument: f[5], TagsAtCreate: f[6]}
		switch x.TagsAtCreate {
		case "", TagsAtRequest, TagsAfter, TagsPartitionFallback:
		default:
			return fmt.Errorf("line %d: tags_at_create is %q, want %s, %s, %s or empty", n, x.TagsAtCreate, TagsAtRequest, TagsAfter, TagsPartitionFallback)
		}
		switch f[3] {
		case "C":
			x.CloudAssigned = true
			if x.NameArgument != "" {
				return fmt.Errorf("line %d: %s.%s: the cloud assigns its ID (C), and it has a name argument", n, x.Kind, x.Group)
			}
		case "K":
		default:
			return fmt.Errorf("line %d: id is %q, want K or C", n, f[3])
		}
		if x.Group == "" || x.Kind == "" || x.TerraformResource == "" {
			return fmt.Errorf("line %d: a kind needs a group, a kind and a Terraform resource type", n)
		}
		k := KindKey{Group: x.Group, Kind: x.Kind}
		if _, dup := out[k]; dup {
			return fmt.Errorf("line %d: %s.%s is named twice", n, x.Kind, x.Group)
		}
		out[k] = x
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

//go:embed kinds/*.tsv
var shippedKindFS embed.FS

// ShippedKinds returns the managed kinds of crossplane-contrib's
// provider-upjet-<provider> (aws, gcp or azure), both scopes, as
// intentjournal ships them (inventory/kinds/<provider>.tsv, with the
// provider's commit in its first line), or an error for another provider.
// Each file is parsed once; each call returns a copy.
func ShippedKinds(provider string) (Kinds, error) {
	return shippedKindFiles.of(provider)
}

var shippedKindFiles = newShipped(shippedKindFS, "kinds", "kinds", ParseKinds)
