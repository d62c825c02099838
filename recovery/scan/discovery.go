package scan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// CategoryManaged is the category crossplane's CRD generators give every
// managed resource kind (crossplane-runtime's and upjet's
// +kubebuilder:resource:categories={crossplane,managed,...}): what
// `kubectl get managed` lists.
const CategoryManaged = "managed"

// Kind is one managed kind the API server serves.
type Kind struct {
	GVK schema.GroupVersionKind
	// Resource is its plural resource name with its group
	// (recordsets.fakecloud.intentjournal.io), as kubectl names it.
	Resource string
	// Namespaced is true for a namespaced kind (crossplane v2's .m.
	// groups).
	Namespaced bool
}

// ErrNoGroup is DiscoverKinds' error when a group pattern names no API
// group the server serves: a typo must not scan nothing silently.
var ErrNoGroup = errors.New("scan: no API group matches")

// DiscoverKinds asks the API server's discovery for the managed kinds of
// the API groups groups names, in the preferred version of each group: the
// kinds whose resource has the category CategoryManaged and can be listed.
// A pattern is a group (ec2.aws.upbound.io) or "*." and a suffix
// (*.aws.upbound.io: every group of a provider family). Kinds come sorted
// by group and kind. A pattern that matches no group is an error wrapping
// ErrNoGroup; a matched group with no managed kind adds nothing.
func DiscoverKinds(d discovery.DiscoveryInterface, groups []string) ([]Kind, error) {
	list, err := d.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("cannot list the API server's groups: %w", err)
	}
	var out []Kind
	for _, pattern := range groups {
		matched := false
		for _, g := range list.Groups {
			if !groupMatches(pattern, g.Name) {
				continue
			}
			matched = true
			gv := g.PreferredVersion.GroupVersion
			if gv == "" && len(g.Versions) > 0 {
				gv = g.Versions[0].GroupVersion
			}
			res, err := d.ServerResourcesForGroupVersion(gv)
			if err != nil {
				return nil, fmt.Errorf("cannot list the resources of %s: %w", gv, err)
			}
			out = append(out, managedKinds(res)...)
		}
		if !matched {
			return nil, fmt.Errorf("%w %q", ErrNoGroup, pattern)
		}
	}
	slices.SortFunc(out, func(a, b Kind) int {
		if c := strings.Compare(a.GVK.Group, b.GVK.Group); c != 0 {
			return c
		}
		return strings.Compare(a.GVK.Kind, b.GVK.Kind)
	})
	return slices.CompactFunc(out, func(a, b Kind) bool { return a.GVK == b.GVK }), nil
}

// groupMatches reports whether group matches pattern: equal to it, or,
// for "*.suffix", ending in ".suffix".
func groupMatches(pattern, group string) bool {
	if suffix, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(group, "."+suffix)
	}
	return pattern == group
}

// managedKinds returns the managed kinds of one group version's resources.
func managedKinds(res *metav1.APIResourceList) []Kind {
	gv, err := schema.ParseGroupVersion(res.GroupVersion)
	if err != nil {
		return nil
	}
	var out []Kind
	for _, r := range res.APIResources {
		if strings.Contains(r.Name, "/") || !slices.Contains(r.Categories, CategoryManaged) || !slices.Contains(r.Verbs, "list") {
			continue // a subresource, or no managed kind
		}
		out = append(out, Kind{GVK: gv.WithKind(r.Kind), Resource: r.Name + "." + gv.Group, Namespaced: r.Namespaced})
	}
	return out
}
