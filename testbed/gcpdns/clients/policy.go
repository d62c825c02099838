package clients

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/apis/configuration/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReconciliationPolicy is the reconciliationpolicy.Source the generated
// controllers read (config/templates/controller.go.tmpl): no managed
// resource here names a policy, so every one keeps the controller's
// default failure rate limiter.
func ReconciliationPolicy(context.Context, client.Client, resource.Managed) (*v1alpha1.ReconciliationPolicy, error) {
	return nil, nil
}
