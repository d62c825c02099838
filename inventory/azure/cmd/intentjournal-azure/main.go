// Command intentjournal-azure is the operator CLI (cmd/intentjournal)
// with the Azure tag lister: for a cluster that runs a stock
// provider-upjet-azure,
//
//	AZURE_SUBSCRIPTION_ID=... intentjournal-azure scan --group '*.azure.upbound.io' --group '*.azure.m.upbound.io' \
//	  --group azure.upbound.io --group azure.m.upbound.io --provider azure --finder '*=azure-graph'
//
// names what a crash left in the subscription, with no per-kind flag. See
// docs/after-a-crash-without-a-rebuild.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory/azure/azurecli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, azurecli.Option())
	stop()
	os.Exit(code)
}
