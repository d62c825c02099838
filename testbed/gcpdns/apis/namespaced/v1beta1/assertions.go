package v1beta1

import xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"

// Compile-time checks that the kinds satisfy the interfaces crossplane-runtime's
// ProviderConfig reconciler and usage tracker assert at run time.
var (
	_ xpresource.ProviderConfig           = (*ProviderConfig)(nil)
	_ xpresource.ProviderConfig           = (*ClusterProviderConfig)(nil)
	_ xpresource.TypedProviderConfigUsage = (*ProviderConfigUsage)(nil)
	_ xpresource.ProviderConfigUsageList  = (*ProviderConfigUsageList)(nil)
)
