// Package apis holds the Kubernetes API types of provider-fakecloud, laid out
// the way upjet lays out a provider's apis directory.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
)

func init() {
	// Register the types with the Scheme so the components can map objects to
	// GroupVersionKinds and back.
	AddToSchemes = append(AddToSchemes, v1alpha1.SchemeBuilder.AddToScheme)
}

// AddToSchemes may be used to add all resources defined in the project to a
// Scheme.
var AddToSchemes runtime.SchemeBuilder

// AddToScheme adds all resources to the Scheme.
func AddToScheme(s *runtime.Scheme) error {
	return AddToSchemes.AddToScheme(s)
}
