// Package namespaced registers the namespaced API of provider-fakecloud,
// as upjet v2 generates apis/namespaced/zz_register.go.
package namespaced

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/provider/apis/namespaced/v1alpha1"
)

func init() {
	// Register the types with the Scheme so the components can map objects
	// to GroupVersionKinds and back.
	AddToSchemes = append(AddToSchemes, v1alpha1.SchemeBuilder.AddToScheme)
}

// AddToSchemes may be used to add all namespaced resources to a Scheme.
var AddToSchemes runtime.SchemeBuilder

// AddToScheme adds all namespaced resources to the Scheme.
func AddToScheme(s *runtime.Scheme) error {
	return AddToSchemes.AddToScheme(s)
}
