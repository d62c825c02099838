package v1alpha1

import (
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/resource"
)

// Compile-time checks that the kinds satisfy the interfaces the managed
// reconciler, the ProviderConfig usage tracker and upjet's connectors assert
// at run time. Cluster-scoped managed resources are LegacyManaged: an
// untyped providerConfigRef and a deletionPolicy.
var (
	_ resource.Terraformed               = (*RecordSet)(nil)
	_ resource.Terraformed               = (*Network)(nil)
	_ xpresource.LegacyManaged           = (*RecordSet)(nil)
	_ xpresource.LegacyManaged           = (*Network)(nil)
	_ xpresource.ManagedList             = (*RecordSetList)(nil)
	_ xpresource.ManagedList             = (*NetworkList)(nil)
	_ xpresource.ProviderConfig          = (*ProviderConfig)(nil)
	_ xpresource.ProviderConfigUsageList = (*ProviderConfigUsageList)(nil)

	_ xpresource.LegacyProviderConfigUsage = (*ProviderConfigUsage)(nil)
)
