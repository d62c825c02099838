// Command terraform-provider-google serves the test bed's
// terraform-provider-google subset (package tfgoogle: its Cloud DNS managed
// zones and record sets, the real provider's code) as a Terraform plugin,
// for OpenTofu: what `intentjournal scan`'s terraform finder imports a
// stock provider's record sets through, as an operator's workspace would
// with the published provider.
package main

import (
	"github.com/hashicorp/terraform-plugin-sdk/v2/plugin"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

func main() {
	plugin.Serve(&plugin.ServeOpts{ProviderFunc: tfgoogle.Provider})
}
