// Command terraform-provider-fakecloud serves the fake cloud's Terraform
// provider (registry address example.com/intentjournal/fakecloud) over the
// plugin protocol. Terraform and OpenTofu start it; it is not run by hand.
//
// It serves two providers as one, the way terraform-provider-aws serves its
// plugin SDK and plugin framework resources: the SDKv2 provider
// (internal/fakecloud/tfprovider: fakecloud_record_set, fakecloud_network,
// fakecloud_record, fakecloud_bucket), upgraded from protocol 5 to 6 by
// tf5to6server, and the framework provider (tfprovider/fwprovider:
// fakecloud_address), muxed by tf6muxserver. So `tofu providers schema -json`
// lists every Terraform type the upjet-generated test-bed provider uses, and
// upjet's Terraform CLI connector can run any of them.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-mux/tf5to6server"
	"github.com/hashicorp/terraform-plugin-mux/tf6muxserver"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/fwprovider"
)

// address is the provider's registry address, as tftest.ProviderSource.
const address = "example.com/intentjournal/fakecloud"

func main() {
	debug := flag.Bool("debug", false, "run in debug mode, for debuggers such as delve")
	flag.Parse()
	if !dieWithParent() {
		log.Fatal("the process that started the plugin has ended")
	}
	server, err := newServer(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	var opts []tf6server.ServeOpt
	if *debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	if err := tf6server.Serve(address, server, opts...); err != nil {
		log.Fatal(err)
	}
}

// newServer returns the muxed provider server: the SDK provider, upgraded to
// protocol 6, and the framework provider.
func newServer(ctx context.Context) (func() tfprotov6.ProviderServer, error) {
	sdk, err := tf5to6server.UpgradeServer(ctx, tfprovider.New().GRPCProvider)
	if err != nil {
		return nil, err
	}
	mux, err := tf6muxserver.NewMuxServer(ctx,
		func() tfprotov6.ProviderServer { return sdk },
		providerserver.NewProtocol6(fwprovider.New()),
	)
	if err != nil {
		return nil, err
	}
	return mux.ProviderServer, nil
}
