// Package features names the feature flags the generated controllers test,
// as upjet-provider-template's internal/features does (the provider
// configuration's FeaturesPackage).
package features

import xpfeature "github.com/crossplane/crossplane-runtime/v2/pkg/feature"

// Feature flags.
const (
	// EnableBetaManagementPolicies enables beta support for management
	// policies: the generated controllers pass it to their connectors and
	// reconcilers.
	EnableBetaManagementPolicies xpfeature.Flag = xpfeature.EnableBetaManagementPolicies
)
