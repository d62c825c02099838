// Package fcrecovery holds the recovery Finders and Deleters of the fake
// cloud: the reference implementations of a natural-key finder (RecordSet,
// unique by zone and name, like a GCP DNS RecordSet) and a tag finder
// (Network, ID-keyed with tags, like an AWS VPC). Each serves its kind in
// both of provider-fakecloud's API groups: the cluster-scoped Group of both
// crossplane lines and the namespaced GroupNamespaced of the v2 line. The
// Address (ID-keyed with tags, like an AWS Elastic IP, and served by a
// terraform-plugin-framework resource) exists only in GroupNamespaced.
package fcrecovery

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/sdkschema"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tfschema"
)

// The API groups and version of provider-fakecloud's managed resources,
// spelled out so that the finders need no crossplane types: the test beds'
// API packages (one per crossplane line) must agree, and their tests say so.
const (
	// Group holds the cluster-scoped managed resources (both lines).
	Group = "fakecloud.intentjournal.io"
	// GroupNamespaced holds the namespaced managed resources (the v2 line
	// only), Group with ".m." as upjet v2 recommends.
	GroupNamespaced = "fakecloud.m.intentjournal.io"
	Version         = "v1alpha1"
)

// GroupKinds of the fake cloud's managed resources.
var (
	RecordSet = schema.GroupKind{Group: Group, Kind: "RecordSet"}
	Network   = schema.GroupKind{Group: Group, Kind: "Network"}

	// RecordSetNamespaced and NetworkNamespaced are the namespaced kinds.
	// upjet v2.3.0's Tagger writes them the same three crossplane tags as
	// the cluster-scoped kinds (crossplane-kind holds the .m. group), and
	// no crossplane-namespace tag: a Network found by tags alone cannot be
	// told from a same-name Network of another namespace.
	RecordSetNamespaced = schema.GroupKind{Group: GroupNamespaced, Kind: "RecordSet"}
	NetworkNamespaced   = schema.GroupKind{Group: GroupNamespaced, Kind: "Network"}

	// AddressNamespaced is the v2 line's kind served by a
	// terraform-plugin-framework resource; there is no cluster-scoped one.
	AddressNamespaced = schema.GroupKind{Group: GroupNamespaced, Kind: "Address"}

	// CLIRecordSet and CLINetwork, in both groups, are the record set and
	// the network of the v2 line's generated provider reconciled through
	// upjet's Terraform CLI connector (tfprovider.CLIRecordSetResource and
	// tfprovider.CLINetworkResource): the same cloud objects, found the
	// same way.
	CLIRecordSet           = schema.GroupKind{Group: Group, Kind: "CLIRecordSet"}
	CLINetwork             = schema.GroupKind{Group: Group, Kind: "CLINetwork"}
	CLIRecordSetNamespaced = schema.GroupKind{Group: GroupNamespaced, Kind: "CLIRecordSet"}
	CLINetworkNamespaced   = schema.GroupKind{Group: GroupNamespaced, Kind: "CLINetwork"}
)

// Kinds returns the cluster-scoped managed kinds to scan (the v1 line's).
func Kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{RecordSet.WithVersion(Version), Network.WithVersion(Version)}
}

// KindsNamespaced returns the namespaced managed kinds to scan; a v2
// provider scans Kinds and KindsNamespaced.
func KindsNamespaced() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{RecordSetNamespaced.WithVersion(Version), NetworkNamespaced.WithVersion(Version), AddressNamespaced.WithVersion(Version)}
}

// CloudKind returns the kind of fake cloud object a managed resource of
// kind mrKind stands for: a CLI twin's (CLIRecordSet, CLINetwork) is its
// kind without the prefix; any other kind's is its own.
func CloudKind(mrKind string) string {
	switch mrKind {
	case CLIRecordSet.Kind, CLINetwork.Kind:
		return strings.TrimPrefix(mrKind, "CLI")
	}
	return mrKind
}

// KindsCLI returns the CLI twins of the record set and the network, in both
// groups: the kinds the v2 line's generated provider reconciles through
// upjet's Terraform CLI connector.
func KindsCLI() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{
		CLIRecordSet.WithVersion(Version), CLINetwork.WithVersion(Version),
		CLIRecordSetNamespaced.WithVersion(Version), CLINetworkNamespaced.WithVersion(Version),
	}
}

// Finders returns a Finder per kind of both groups: RecordSets by their
// natural key (zone and name, from spec.forProvider or the intent's lookup
// keys), Networks by the crossplane external tags the candidate expects
// (see recovery.Candidate.ExpectedTags, whose crossplane-kind names the
// candidate's group), Addresses by those tags too.
//
// Each compares what only a weak proof would make ours with the arguments
// the create sent (recovery.VerifyArgs): it reads the object by its ID and
// compares its fields, which the fake cloud names as upjet names the
// managed resource's spec.forProvider fields (zone, ttl, rrdatas,
// cidrBlock, tags), on the schema of the fake cloud's Terraform provider
// (recovery.CompareArgs): whether applying what the create sent would
// change the object.
func Finders(c *fakecloud.Client) map[schema.GroupKind]recovery.Finder {
	rs := recovery.VerifyArgs(recordSetFinder(c), Matcher(RecordSetSchema(), func(ctx context.Context, id string) (any, error) { return c.GetRecordSet(ctx, id) }))
	net := recovery.VerifyArgs(networkFinder(c), Matcher(NetworkSchema(), func(ctx context.Context, id string) (any, error) { return c.GetNetwork(ctx, id) }))
	addr := recovery.VerifyArgs(addressFinder(c), Matcher(AddressSchema(), func(ctx context.Context, id string) (any, error) { return c.GetAddress(ctx, id) }))
	return map[schema.GroupKind]recovery.Finder{
		RecordSet: rs, RecordSetNamespaced: rs, CLIRecordSet: rs, CLIRecordSetNamespaced: rs,
		Network: net, NetworkNamespaced: net, CLINetwork: net, CLINetworkNamespaced: net,
		AddressNamespaced: addr,
	}
}

// RecordSetSchema is the schema of the fake cloud's record sets, read from
// its Terraform provider (fakecloud_record_set, tfschema).
func RecordSetSchema() *recovery.Schema {
	return sdkschema.Of(&sdk.Resource{Schema: tfschema.RecordSet()})
}

// NetworkSchema is the schema of the fake cloud's networks, read from its
// Terraform provider (fakecloud_network, tfschema).
func NetworkSchema() *recovery.Schema {
	return sdkschema.Of(&sdk.Resource{Schema: tfschema.Network()})
}

// AddressSchema is the schema of the fake cloud's addresses, served by the
// terraform-plugin-framework provider (fwprovider): name, tags and the
// computed id.
func AddressSchema() *recovery.Schema {
	return &recovery.Schema{Attributes: map[string]*recovery.Attribute{
		"id":   {Kind: recovery.KindScalar, Computed: true},
		"name": {Kind: recovery.KindScalar, Required: true},
		"tags": {Kind: recovery.KindMap, Optional: true},
	}}
}

// Matcher returns the recovery.Matcher of a fake cloud kind whose objects
// get reads by ID: whether applying the create's arguments to the object
// would change it, on the kind's schema s (recovery.CompareArgs).
func Matcher(s *recovery.Schema, get func(ctx context.Context, id string) (any, error)) recovery.Matcher {
	return recovery.MatcherFn(func(ctx context.Context, c *recovery.Candidate, r recovery.ExternalResource) (recovery.ArgsMatch, []string, error) {
		args, err := c.CreateArgs()
		if err != nil {
			return "", nil, err
		}
		obj, err := get(ctx, r.ID)
		if err != nil {
			return "", nil, fmt.Errorf("cannot read %s: %w", r.ID, err)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return "", nil, err
		}
		var attrs map[string]any
		if err := json.Unmarshal(b, &attrs); err != nil {
			return "", nil, err
		}
		cmp := recovery.CompareArgs(s, args, attrs)
		if cmp.Match == recovery.ArgsUnchecked {
			return "", nil, fmt.Errorf("%w: %s", recovery.ErrArgsUnknown, cmp.Why)
		}
		return cmp.Match, cmp.Differ, nil
	})
}

func recordSetFinder(c *fakecloud.Client) recovery.Finder {
	return recovery.NewKeyFinder(recovery.SpecFields("zone", "name"),
		func(ctx context.Context, key map[string]string) ([]recovery.ExternalResource, error) {
			rs, err := c.ListRecordSets(ctx, fakecloud.RecordSetFilter{Zone: key["zone"], Name: key["name"]})
			if err != nil {
				return nil, err
			}
			out := make([]recovery.ExternalResource, 0, len(rs))
			for _, r := range rs {
				out = append(out, recovery.ExternalResource{ID: r.ID, Tags: r.Tags, CreatedAt: r.CreatedAt})
			}
			return out, nil
		}, "zone", "name")
}

// TagLister returns the lister of the fake cloud's resources of the
// Terraform resource type terraformResource by tags: what a derived
// list-by-tags finder calls through each test bed's Inventory
// (controller.RecoveryInventory, an upjetv1.Inventory or upjetv2.Inventory),
// as an AWS inventory would map aws_vpc to the tagging API's ec2:vpc. Record sets,
// networks and addresses can be listed; the tagless fakecloud_record
// cannot.
func TagLister(c *fakecloud.Client, terraformResource string) (recovery.TagLister, error) {
	switch terraformResource {
	case "fakecloud_record_set", "fakecloud_cli_record_set":
		return listRecordSets(c), nil
	case "fakecloud_network", "fakecloud_cli_network", "fakecloud_late_tag_network":
		return listNetworks(c), nil
	case "fakecloud_address":
		return listAddresses(c), nil
	}
	return nil, fmt.Errorf("the fake cloud cannot list %s by tags", terraformResource)
}

func listRecordSets(c *fakecloud.Client) recovery.TagLister {
	return func(ctx context.Context, tags map[string]string) ([]recovery.ExternalResource, error) {
		rs, err := c.ListRecordSets(ctx, fakecloud.RecordSetFilter{Tags: tags})
		if err != nil {
			return nil, err
		}
		out := make([]recovery.ExternalResource, 0, len(rs))
		for _, r := range rs {
			out = append(out, recovery.ExternalResource{ID: r.ID, Tags: r.Tags, CreatedAt: r.CreatedAt})
		}
		return out, nil
	}
}

func networkFinder(c *fakecloud.Client) recovery.Finder {
	return recovery.NewTagFinder(listNetworks(c))
}

func listNetworks(c *fakecloud.Client) recovery.TagLister {
	return func(ctx context.Context, tags map[string]string) ([]recovery.ExternalResource, error) {
		ns, err := c.ListNetworks(ctx, fakecloud.NetworkFilter{Tags: tags})
		if err != nil {
			return nil, err
		}
		out := make([]recovery.ExternalResource, 0, len(ns))
		for _, n := range ns {
			out = append(out, recovery.ExternalResource{ID: n.ID, Tags: n.Tags, CreatedAt: n.CreatedAt})
		}
		return out, nil
	}
}

func addressFinder(c *fakecloud.Client) recovery.Finder {
	return recovery.NewTagFinder(listAddresses(c))
}

func listAddresses(c *fakecloud.Client) recovery.TagLister {
	return func(ctx context.Context, tags map[string]string) ([]recovery.ExternalResource, error) {
		as, err := c.ListAddresses(ctx, fakecloud.AddressFilter{Tags: tags})
		if err != nil {
			return nil, err
		}
		out := make([]recovery.ExternalResource, 0, len(as))
		for _, a := range as {
			out = append(out, recovery.ExternalResource{ID: a.ID, Tags: a.Tags, CreatedAt: a.CreatedAt})
		}
		return out, nil
	}
}

// Deleters returns a Deleter per kind of both groups, for the
// delete-orphans policy.
func Deleters(c *fakecloud.Client) map[schema.GroupKind]recovery.Deleter {
	rs := recovery.DeleterFn(func(ctx context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
		return c.DeleteRecordSet(ctx, r.ID)
	})
	net := recovery.DeleterFn(func(ctx context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
		return c.DeleteNetwork(ctx, r.ID)
	})
	addr := recovery.DeleterFn(func(ctx context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
		return c.DeleteAddress(ctx, r.ID)
	})
	return map[schema.GroupKind]recovery.Deleter{
		RecordSet: rs, RecordSetNamespaced: rs, CLIRecordSet: rs, CLIRecordSetNamespaced: rs,
		Network: net, NetworkNamespaced: net, CLINetwork: net, CLINetworkNamespaced: net,
		AddressNamespaced: addr,
	}
}

// FinderUsage is the form of the argument of NewFinder, for help texts.
const FinderUsage = "fakecloud:URL finds RecordSets, Networks and Addresses through the fake cloud's HTTP API at URL"

// NewFinder returns the Finder and Deleter of gk against the fake cloud at
// rawURL: what a development build's `--finder KIND=fakecloud:URL` runs.
func NewFinder(gk schema.GroupKind, rawURL string) (recovery.Finder, recovery.Deleter, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("fakecloud finder: %q is not an http(s) URL, e.g. fakecloud:http://127.0.0.1:8080", rawURL)
	}
	c := fakecloud.NewClient(strings.TrimSuffix(rawURL, "/"))
	f, ok := Finders(c)[gk]
	if !ok {
		return nil, nil, fmt.Errorf("the fakecloud finder supports %s, %s, %s, %s, %s and their CLI twins, not %s", RecordSet, Network, RecordSetNamespaced, NetworkNamespaced, AddressNamespaced, gk)
	}
	return f, Deleters(c)[gk], nil
}
