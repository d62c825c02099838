package v1alpha1

import (
	xpresource "github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/upjet/pkg/resource"
)

// Compile-time checks that the kinds satisfy the interfaces the managed
// reconciler and upjet's connectors assert at run time.
var (
	_ resource.Terraformed = (*RecordSet)(nil)
	_ resource.Terraformed = (*Network)(nil)

	_ xpresource.ManagedList = (*RecordSetList)(nil)
	_ xpresource.ManagedList = (*NetworkList)(nil)

	_ xpresource.ProviderConfig          = (*ProviderConfig)(nil)
	_ xpresource.ProviderConfigUsage     = (*ProviderConfigUsage)(nil)
	_ xpresource.ProviderConfigUsageList = (*ProviderConfigUsageList)(nil)
)
