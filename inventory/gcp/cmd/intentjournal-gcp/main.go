// Command intentjournal-gcp is the operator CLI (cmd/intentjournal) with
// the GCP label lister: for a cluster that runs a stock
// provider-upjet-gcp,
//
//	intentjournal-gcp scan --group '*.gcp.upbound.io' --group '*.gcp.m.upbound.io' --provider gcp --finder '*=gcp-assets'
//
// names what a crash left in the project, with no per-kind flag. See
// docs/after-a-crash-without-a-rebuild.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory/gcp/gcpcli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, gcpcli.Option())
	stop()
	os.Exit(code)
}
