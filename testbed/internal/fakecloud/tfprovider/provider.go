// Package tfprovider is a Terraform provider, built on terraform-plugin-sdk/v2,
// for the intentjournal fake cloud. It behaves like the providers upjet wraps:
// resources keep the server-assigned ID as their Terraform ID, a 409 becomes
// an error whose summary contains "already exists", and reading an object
// that is gone clears the ID.
//
// Resources:
//   - fakecloud_record_set: zone and name (ForceNew, unique together), type,
//     ttl (default 300), rrdatas, tags.
//   - fakecloud_network: name, cidr_block, tags. Creating twice makes two
//     networks, as with an AWS VPC.
//   - fakecloud_record: the record set as GCP's google_dns_record_set
//     presents it: zone, name and type (ForceNew), ttl, rrdatas, no tags;
//     its Terraform ID is composed from zone, name and type (RecordID),
//     not assigned by the cloud. A second create fails with "already
//     exists".
//   - fakecloud_bucket: the bucket as AWS's aws_s3_bucket presents it:
//     bucket (ForceNew), tags, a computed creation_date; its Terraform ID
//     is the bucket name, known before the create. Bucket names are global
//     in the cloud: a second create fails with "already exists".
//   - fakecloud_cli_record_set and fakecloud_cli_network: the record set
//     and the network again, under types of their own, for the kinds a
//     provider reconciles through upjet's Terraform CLI connector: upjet
//     gives each Terraform type one connector, and the test bed wants both
//     shapes of crossplane/upjet#561 on the plugin SDK and on the CLI.
//   - fakecloud_late_tag_network: the network, created untagged and tagged
//     LateTagDelay later in a second call, as aws_route53_zone is.
//
// All import by ID. The provider's only setting is endpoint, which defaults
// to the FAKECLOUD_ENDPOINT environment variable.
package tfprovider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// EndpointEnvVar is the environment variable the endpoint setting defaults
// to.
const EndpointEnvVar = "FAKECLOUD_ENDPOINT"

// EndpointDescription describes the endpoint setting. fwprovider's endpoint
// uses it too: terraform-provider-fakecloud muxes the two providers, and the
// mux refuses configuration schemas that differ, descriptions included.
const EndpointDescription = "Base URL of the fake cloud, e.g. http://127.0.0.1:41234. Defaults to $" + EndpointEnvVar + "."

// The Terraform types of the record set and the network served for the
// Terraform CLI connector: the same resources as fakecloud_record_set and
// fakecloud_network, in the same cloud.
const (
	CLIRecordSetResource = "fakecloud_cli_record_set"
	CLINetworkResource   = "fakecloud_cli_network"
)

// New returns the provider.
func New() *schema.Provider {
	return &schema.Provider{
		Schema: map[string]*schema.Schema{
			"endpoint": {
				Type:        schema.TypeString,
				Optional:    true,
				DefaultFunc: schema.EnvDefaultFunc(EndpointEnvVar, nil),
				Description: EndpointDescription,
			},
		},
		ResourcesMap: map[string]*schema.Resource{
			"fakecloud_record_set": resourceRecordSet(),
			"fakecloud_network":    resourceNetwork(),
			"fakecloud_record":     resourceRecord(),
			"fakecloud_bucket":     resourceBucket(),
			CLIRecordSetResource:   resourceRecordSet(),
			CLINetworkResource:     resourceNetwork(),
			LateTagNetworkResource: resourceLateTagNetwork(),
			SpecRecordResource:     resourceSpecRecord(),
			NamedRecordResource:    resourceNamedRecord(),
		},
		ConfigureContextFunc: configure,
	}
}

// configure builds the client every resource uses. Requests are bounded by
// the contexts Terraform hands to each operation, not by a client timeout,
// so that a slow create can run as long as its resource timeout allows.
func configure(_ context.Context, d *schema.ResourceData) (any, diag.Diagnostics) {
	endpoint, _ := d.Get("endpoint").(string)
	if endpoint == "" {
		return nil, diag.Errorf("fakecloud endpoint is not set: set the provider's endpoint or $%s", EndpointEnvVar)
	}
	return fakecloud.NewClient(endpoint, fakecloud.WithTimeout(0)), nil
}

// apiMessage returns the server's message for an API error and the error
// text otherwise, so that summaries read like those of real providers.
func apiMessage(err error) string {
	var apiErr *fakecloud.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Message
	}
	return err.Error()
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k], _ = x.(string)
	}
	return out
}

func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// setAll sets every attribute in attrs and collects the failures.
func setAll(d *schema.ResourceData, attrs map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	for k, v := range attrs {
		if err := d.Set(k, v); err != nil {
			diags = append(diags, diag.Errorf("cannot set %s: %s", k, err)...)
		}
	}
	return diags
}
