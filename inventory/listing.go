package inventory

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Listing is what an index holds of one Terraform resource type: whether
// it lists the type's resources by the tags of the kind's tags field, how
// a listing is narrowed to the type, and where it lists them. An index
// that does not list a type cannot prove by an empty listing that a create
// of it made nothing: the kind is reported after a crash, never cleared.
type Listing struct {
	// TerraformResource is the Terraform resource type.
	TerraformResource string `json:"terraformResource"`
	// Listed is true when the index lists the type's resources by their
	// own tags.
	Listed bool `json:"listed"`
	// IndexTypes narrow a listing to the type, in the index's own terms
	// (the Tagging API's ResourceTypeFilters, Asset Inventory's asset
	// types, a Resource Graph table and ARM type as TABLE:type, or a
	// table alone); empty lists every type, the crossplane-kind tag
	// narrowing it.
	IndexTypes []string `json:"indexTypes,omitempty"`
	// Region is where the index lists the type's resources whatever the
	// scope's region: a global service's home region (the Tagging API
	// lists CloudFront distributions in us-east-1 only). Empty lists in
	// the scope's region.
	Region string `json:"region,omitempty"`
	// Evidence says why the type is listed, or is not.
	Evidence string `json:"evidence"`
}

// Listings is an index's data, by Terraform resource type.
type Listings map[string]Listing

// Of returns what l holds of the Terraform resource type tfResource. A
// type l does not name is not listed: nothing says the index holds it.
func (l Listings) Of(tfResource string) Listing {
	if x, ok := l[tfResource]; ok {
		return x
	}
	return Listing{TerraformResource: tfResource, Evidence: "the index's data does not name the type: nothing says the index lists it"}
}

// With returns a copy of l with x added or replacing the row of its type:
// what a provider that knows more of its index than the shipped data
// adds, with its evidence. x needs a type and evidence.
func (l Listings) With(x Listing) (Listings, error) {
	if x.TerraformResource == "" || strings.TrimSpace(x.Evidence) == "" {
		return nil, fmt.Errorf("cannot add listing %+v: a listing needs a Terraform resource type and its evidence", x)
	}
	out := make(Listings, len(l)+1)
	for k, v := range l {
		out[k] = v
	}
	out[x.TerraformResource] = x
	return out, nil
}

// listingColumns are a listings file's columns, in order.
var listingColumns = []string{"terraform_resource", "listed", "index_types", "region", "evidence"}

// ParseListings reads a listings file: tab-separated, with the header
// line listingColumns names, lines starting with # ignored. listed is yes
// or no; index_types is comma-separated.
func ParseListings(r io.Reader) (Listings, error) {
	out := Listings{}
	err := readTable(r, "listings", listingColumns, func(n int, f []string) error {
		x := Listing{TerraformResource: f[0], Region: f[3], Evidence: f[4]}
		switch f[1] {
		case "yes":
			x.Listed = true
		case "no":
		default:
			return fmt.Errorf("line %d: listed is %q, want yes or no", n, f[1])
		}
		if f[2] != "" {
			x.IndexTypes = strings.Split(f[2], ",")
		}
		switch {
		case x.TerraformResource == "":
			return fmt.Errorf("line %d: no Terraform resource type", n)
		case strings.TrimSpace(x.Evidence) == "":
			return fmt.Errorf("line %d: %s has no evidence", n, x.TerraformResource)
		case !x.Listed && (len(x.IndexTypes) > 0 || x.Region != ""):
			return fmt.Errorf("line %d: %s is not listed, yet names index types or a region", n, x.TerraformResource)
		}
		if _, dup := out[x.TerraformResource]; dup {
			return fmt.Errorf("line %d: %s is named twice", n, x.TerraformResource)
		}
		out[x.TerraformResource] = x
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

//go:embed listings/*.tsv
var shippedListings embed.FS

// ShippedListings returns what the index of provider's lister (aws:
// inventory/aws's Tagging API, gcp: Cloud Asset Inventory, azure:
// Resource Graph) lists, as intentjournal ships it
// (inventory/listings/<provider>.tsv), or an error for a provider with no
// lister. Each file is parsed once; each call returns a copy.
func ShippedListings(provider string) (Listings, error) {
	return shippedListingFiles.of(provider)
}

var shippedListingFiles = newShipped(shippedListings, "listings", "listings", ParseListings)

// ErrNotListed reports a listing of a Terraform resource type the
// Lister's index does not list (Listing.Listed false): an empty answer
// would prove nothing, so none is given.
var ErrNotListed = errors.New("inventory: the index does not list the type")
