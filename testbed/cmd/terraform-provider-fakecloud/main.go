// Command terraform-provider-fakecloud serves the fake cloud's Terraform
// provider (registry address example.com/intentjournal/fakecloud) over the
// plugin protocol. Terraform and OpenTofu start it; it is not run by hand.
package main

import (
	"github.com/hashicorp/terraform-plugin-sdk/v2/plugin"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
)

func main() {
	plugin.Serve(&plugin.ServeOpts{ProviderFunc: tfprovider.New})
}
