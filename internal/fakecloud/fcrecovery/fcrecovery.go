// Package fcrecovery holds the recovery Finders and Deleters of the fake
// cloud: the reference implementations of a natural-key finder (RecordSet,
// unique by zone and name, like a GCP DNS RecordSet) and a tag finder
// (Network, ID-keyed with tags, like an AWS VPC).
package fcrecovery

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/recovery"
)

// The API group and version of provider-fakecloud's managed resources,
// spelled out so that the finders need no crossplane types: the test beds'
// API packages (one per crossplane line) must agree, and their tests say so.
const (
	Group   = "fakecloud.intentjournal.io"
	Version = "v1alpha1"
)

// GroupKinds of the fake cloud's managed resources.
var (
	RecordSet = schema.GroupKind{Group: Group, Kind: "RecordSet"}
	Network   = schema.GroupKind{Group: Group, Kind: "Network"}
)

// Kinds returns the managed kinds to scan.
func Kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{RecordSet.WithVersion(Version), Network.WithVersion(Version)}
}

// Finders returns a Finder per kind: RecordSets by their natural key (zone
// and name, from spec.forProvider or the intent's lookup keys), Networks by
// the crossplane external tags.
func Finders(c *fakecloud.Client) map[schema.GroupKind]recovery.Finder {
	return map[schema.GroupKind]recovery.Finder{
		RecordSet: recovery.NewKeyFinder(recovery.SpecFields("zone", "name"),
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
			}, "zone", "name"),
		Network: recovery.NewTagFinder(func(ctx context.Context, tags map[string]string) ([]recovery.ExternalResource, error) {
			ns, err := c.ListNetworks(ctx, fakecloud.NetworkFilter{Tags: tags})
			if err != nil {
				return nil, err
			}
			out := make([]recovery.ExternalResource, 0, len(ns))
			for _, n := range ns {
				out = append(out, recovery.ExternalResource{ID: n.ID, Tags: n.Tags, CreatedAt: n.CreatedAt})
			}
			return out, nil
		}),
	}
}

// Deleters returns a Deleter per kind, for the delete-orphans policy.
func Deleters(c *fakecloud.Client) map[schema.GroupKind]recovery.Deleter {
	return map[schema.GroupKind]recovery.Deleter{
		RecordSet: recovery.DeleterFn(func(ctx context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
			return c.DeleteRecordSet(ctx, r.ID)
		}),
		Network: recovery.DeleterFn(func(ctx context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
			return c.DeleteNetwork(ctx, r.ID)
		}),
	}
}

// FinderUsage is the form of the argument of NewFinder, for help texts.
const FinderUsage = "fakecloud:URL finds RecordSets and Networks through the fake cloud's HTTP API at URL"

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
		return nil, nil, fmt.Errorf("the fakecloud finder supports %s and %s, not %s", RecordSet, Network, gk)
	}
	return f, Deleters(c)[gk], nil
}
