// Package tfgoogle assembles a Terraform plugin SDK provider from the real
// terraform-provider-google's Cloud DNS resources, google_dns_managed_zone
// and google_dns_record_set, without linking the rest of that provider.
//
// terraform-provider-google's own provider.Provider() registers every
// service (google/provider/provider_register_services.go imports them all):
// about 822 packages. This provider links services/dns and transport only,
// about 388 packages. What it cannot take from google/provider is that
// package's ProviderConfigure, so Configure here rebuilds the same
// transport.Config from the arguments it declares (configure.go), then
// calls the same transport.Config.LoadAndValidate.
//
// Nothing here sends a request anywhere but to the endpoints configured.
// Configure requires an access token (never Application Default
// Credentials, which probe the GCE metadata server) and a universe domain
// other than googleapis.com, which makes the provider skip its userinfo
// request (transport.GetCurrentUserEmail), and it does not call
// transport.IsMtls, which probes the metadata server on its own.
package tfgoogle

import (
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/hashicorp/terraform-provider-google/google/services/dns"
)

// The Terraform resource types this provider serves.
const (
	// ManagedZoneResource is the Cloud DNS managed zone.
	ManagedZoneResource = "google_dns_managed_zone"
	// RecordSetResource is the Cloud DNS record set: its create lists the
	// zone's first page and replaces a same-name, same-type record set it
	// finds there (google/services/dns/resource_dns_record_set.go).
	RecordSetResource = "google_dns_record_set"
)

// Address is the provider's address in a schema document, the one
// provider-upjet-gcp's config/schema.json names.
const Address = "registry.terraform.io/hashicorp/google"

// Provider configuration arguments, named as terraform-provider-google
// names them (google/provider/provider.go).
const (
	KeyAccessToken    = "access_token"
	KeyProject        = "project"
	KeyUniverseDomain = "universe_domain"
	// KeyDNSEndpoint is dns.Product.CustomEndpointField, of the form
	// http://127.0.0.1:PORT/dns/v1/.
	KeyDNSEndpoint = "dns_custom_endpoint"
)

// Provider returns a new provider serving ManagedZoneResource and
// RecordSetResource, the resources terraform-provider-google's
// services/dns package builds. Its Schema declares the subset of
// terraform-provider-google's provider arguments that Configure reads,
// with the same names and types. Each call returns a new Provider; the SDK
// keeps the configured meta inside it, so configure a copy per provider
// configuration, as provider-upjet-gcp does.
func Provider() *schema.Provider {
	p := &schema.Provider{
		Schema: providerSchema(),
		ResourcesMap: map[string]*schema.Resource{
			ManagedZoneResource: dns.ResourceDNSManagedZone(),
			RecordSetResource:   dns.ResourceDnsRecordSet(),
		},
	}
	p.ConfigureContextFunc = configureFunc(p)
	return p
}

// providerSchema is the subset of terraform-provider-google's provider
// schema that configure reads. HandleSDKDefaults (google/transport)
// reads and sets impersonate_service_account, project, billing_project,
// region, zone, user_project_override and request_reason, so all of
// them are declared.
func providerSchema() map[string]*schema.Schema {
	str := func() *schema.Schema { return &schema.Schema{Type: schema.TypeString, Optional: true} }
	return map[string]*schema.Schema{
		KeyAccessToken:                str(),
		"impersonate_service_account": str(),
		KeyProject:                    str(),
		"billing_project":             str(),
		"region":                      str(),
		"zone":                        str(),
		"scopes": {
			Type:     schema.TypeList,
			Optional: true,
			Elem:     &schema.Schema{Type: schema.TypeString},
		},
		KeyUniverseDomain:       str(),
		"user_project_override": {Type: schema.TypeBool, Optional: true},
		"request_timeout":       str(),
		"poll_interval":         str(),
		"deletion_policy":       str(),
		"request_reason":        str(),
		"default_labels": {
			Type:     schema.TypeMap,
			Optional: true,
			Elem:     &schema.Schema{Type: schema.TypeString},
		},
		"add_terraform_attribution_label":               {Type: schema.TypeBool, Optional: true, Default: true},
		"terraform_attribution_label_addition_strategy": str(),
		KeyDNSEndpoint: str(),
	}
}
