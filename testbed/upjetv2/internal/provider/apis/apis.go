// Package apis holds the Kubernetes API types of provider-fakecloud on the
// Crossplane v2 line, laid out the way upjet v2 lays out a provider with both
// scopes: apis/cluster for the legacy cluster-scoped group
// fakecloud.intentjournal.io, apis/namespaced for the modern group
// fakecloud.m.intentjournal.io.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis/cluster"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis/namespaced"
)

// AddToScheme adds the resources of both scopes to s, as upjet v2's
// generated main.go does with apisCluster and apisNamespaced.
func AddToScheme(s *runtime.Scheme) error {
	if err := cluster.AddToScheme(s); err != nil {
		return err
	}
	return namespaced.AddToScheme(s)
}
