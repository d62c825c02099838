package config

import (
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

// terraformPluginSDKExternalNameConfigs are the external names of the
// kinds reconciled through upjet's plugin SDK client, as
// provider-upjet-gcp's config/externalname.go configures them (read at
// 8da2207, its "dns" block).
var terraformPluginSDKExternalNameConfigs = map[string]ujconfig.ExternalName{
	// Imported by using the following format: projects/{{project}}/managedZones/{{name}}
	tfgoogle.ManagedZoneResource: ujconfig.TemplatedStringAsIdentifier("name", "projects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}"),
	// Imported by using the following format: projects/{{project}}/managedZones/{{zone}}/rrsets/{{name}}/{{type}}
	//
	// The external name is the Terraform ID, known only once the create
	// returns: projects/P/managedZones/Z/rrsets/NAME/TYPE.
	tfgoogle.RecordSetResource: ujconfig.IdentifierFromProvider,
}

// resourceList returns the names of t as include-list expressions, each
// anchored at its end, as provider-upjet-gcp's resourceList does.
func resourceList(t map[string]ujconfig.ExternalName) []string {
	l := make([]string, 0, len(t))
	for n := range t {
		l = append(l, n+"$")
	}
	return l
}

// externalNameConfig is provider-upjet-gcp's default: every kind takes
// its external name from the Terraform ID, until resourceConfigurator
// sets the table's.
func externalNameConfig() ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		r.ExternalName = ujconfig.IdentifierFromProvider
	}
}

// resourceConfigurator applies the table's external name and version
// v1beta1 to each kind it lists, as provider-upjet-gcp's does.
func resourceConfigurator() ujconfig.ResourceOption {
	return func(r *ujconfig.Resource) {
		e, ok := terraformPluginSDKExternalNameConfigs[r.Name]
		if !ok {
			return
		}
		r.Version = VersionV1Beta1
		r.ExternalName = e
	}
}
