// Command intentjournal-aws is the operator CLI (cmd/intentjournal) with
// the AWS tag lister: for a cluster that runs a stock provider-upjet-aws,
//
//	intentjournal-aws scan --group '*.aws.upbound.io' --provider aws --finder '*=aws-tags'
//
// names what a crash left in the account, with no per-kind flag. See
// docs/after-a-crash-without-a-rebuild.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory/aws/awscli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, awscli.Option())
	stop()
	os.Exit(code)
}
