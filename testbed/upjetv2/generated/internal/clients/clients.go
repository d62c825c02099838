// Package clients is the test-bed provider's own package that its
// controller template imports (config/templates/controller.go.tmpl), as
// provider-upjet-aws's template imports its internal/clients: it holds
// the reconciliation policy source the generated controllers read.
package clients

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/apis/configuration/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReconciliationPolicy is the reconciliationpolicy.Source of the generated
// controllers: no managed resource of the test bed names a policy, so
// every one keeps the controller's default failure rate limiter.
func ReconciliationPolicy(context.Context, client.Client, resource.Managed) (*v1alpha1.ReconciliationPolicy, error) {
	return nil, nil
}
