// Package config holds the upjet configuration of provider-fakecloud: the
// ujconfig.Provider built from the in-process Terraform provider
// (internal/fakecloud/tfprovider), with both resources reconciled through
// upjet's no-fork Terraform plugin SDK client, server-assigned IDs as
// external names (config.IdentifierFromProvider) and Crossplane's external
// tags written to each resource's tags field.
package config
