package v1alpha1

//lint:file-ignore SA1019 the cluster-scoped kinds are crossplane-runtime v2's legacy managed resources on purpose: provider-upjet-aws, -gcp and -azure still serve them beside the namespaced ones.

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
