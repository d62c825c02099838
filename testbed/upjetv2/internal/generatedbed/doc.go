// Package generatedbed runs the test bed's provider as upjet's pipeline
// generated it (testbed/upjetv2/generated, provider-fakecloud) over all
// three of upjet's connectors: every kind's controller is upjet v2.3.0's
// template wrapped by upjetv2.WrapControllerTemplate, and its CLIRecordSet
// and CLINetwork are reconciled through upjet's Terraform CLI connector,
// with OpenTofu running terraform-provider-fakecloud in a workspace per
// managed resource, as in a provider image. Its tests reproduce
// crossplane/upjet#561 on that connector and show the wrapper fix it.
package generatedbed
