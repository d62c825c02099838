// Package config holds the upjet v2 configuration of provider-fakecloud: two
// ujconfig.Providers built from the in-process Terraform provider
// (internal/fakecloud/tfprovider), one per scope as upjet v2 wants them
// (GetProvider for the cluster-scoped group fakecloud.intentjournal.io,
// GetProviderNamespaced for the namespaced group
// fakecloud.m.intentjournal.io). In both, the two resources are reconciled
// through upjet's no-fork Terraform plugin SDK client, with server-assigned
// IDs as external names (config.IdentifierFromProvider) and Crossplane's
// external tags written to each resource's tags field.
package config
