package v1beta1

//lint:file-ignore SA1019 the cluster-scoped kinds are crossplane-runtime v2's legacy ones on purpose: provider-upjet-aws, -gcp and -azure still serve them beside the namespaced ones.

import xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"

// Compile-time checks that the kinds satisfy the interfaces crossplane-runtime's
// ProviderConfig reconciler and usage tracker assert at run time.
var (
	_ xpresource.ProviderConfig            = (*ProviderConfig)(nil)
	_ xpresource.LegacyProviderConfigUsage = (*ProviderConfigUsage)(nil)
	_ xpresource.ProviderConfigUsageList   = (*ProviderConfigUsageList)(nil)
)
