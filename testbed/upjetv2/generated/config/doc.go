// Package config is the upjet configuration of the generated test-bed
// provider, written as a provider author writes config/ in a repository
// made from upjet-provider-template: two ujconfig.Providers built from the
// checked-in schema document (schema.json, written by OpenTofu through
// `make schema`) and provider metadata, one per scope (GetProvider for
// the cluster-scoped group fakecloud.intentjournal.io, GetProviderNamespaced
// for the namespaced group fakecloud.m.intentjournal.io). cmd/generator
// hands both to upjet's pipeline.Run (`make generate-provider`); a provider
// built from the generated code calls them again at run time.
//
// The kinds are spread over all three of upjet's connectors, as
// provider-upjet-aws spreads its kinds:
//   - the no-fork Terraform plugin SDK client: RecordSet
//     (fakecloud_record_set), Network (fakecloud_network), Record
//     (fakecloud_record), Bucket (fakecloud_bucket) and LateTagNetwork
//     (fakecloud_late_tag_network, the network tagged in a call after its
//     create, declared upjetv2.TagsAfterCreate) and SpecRecord
//     (fakecloud_spec_record, the record configured as
//     FormattedIdentifierFromProvider configures a kind: its ID built from
//     its spec, with no external name before the create) and NamedRecord
//     (fakecloud_named_record, the record whose external name is its
//     name argument, bound into a templated ID, as most GCP and Azure
//     kinds are configured);
//   - the no-fork Terraform plugin framework client: Address
//     (fakecloud_address);
//   - the Terraform CLI (a terraform process per workspace): CLIRecordSet
//     (fakecloud_cli_record_set) and CLINetwork (fakecloud_cli_network),
//     the record set and network again, the two shapes of
//     crossplane/upjet#561 on the connector that issue is about.
//
// All are asynchronous (upjet's default), take their external name from the
// ID the fake cloud assigns (config.IdentifierFromProvider), except Bucket,
// named by its bucket argument as provider-upjet-aws names aws_s3_bucket,
// and have Crossplane's external tags written to their tags map where
// their schema has one (all but Record).
package config
