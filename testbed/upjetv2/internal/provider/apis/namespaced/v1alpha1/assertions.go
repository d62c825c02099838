package v1alpha1

import (
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/resource"
)

// Compile-time checks that the kinds satisfy the interfaces the managed
// reconciler, the ProviderConfig usage tracker and upjet's connectors assert
// at run time. Namespaced managed resources are ModernManaged: a typed
// providerConfigRef and a local connection secret reference.
var (
	_ resource.Terraformed     = (*RecordSet)(nil)
	_ resource.Terraformed     = (*Record)(nil)
	_ resource.Terraformed     = (*Bucket)(nil)
	_ resource.Terraformed     = (*Network)(nil)
	_ resource.Terraformed     = (*Address)(nil)
	_ xpresource.ModernManaged = (*RecordSet)(nil)
	_ xpresource.ModernManaged = (*Record)(nil)
	_ xpresource.ModernManaged = (*Bucket)(nil)
	_ xpresource.ModernManaged = (*Network)(nil)
	_ xpresource.ModernManaged = (*Address)(nil)
	_ xpresource.ManagedList   = (*RecordSetList)(nil)
	_ xpresource.ManagedList   = (*RecordList)(nil)
	_ xpresource.ManagedList   = (*BucketList)(nil)
	_ xpresource.ManagedList   = (*NetworkList)(nil)
	_ xpresource.ManagedList   = (*AddressList)(nil)

	_ xpresource.ProviderConfig           = (*ProviderConfig)(nil)
	_ xpresource.ProviderConfig           = (*ClusterProviderConfig)(nil)
	_ xpresource.TypedProviderConfigUsage = (*ProviderConfigUsage)(nil)
	_ xpresource.ProviderConfigUsageList  = (*ProviderConfigUsageList)(nil)
)
