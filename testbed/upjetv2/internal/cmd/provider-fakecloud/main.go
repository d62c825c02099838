// Command provider-fakecloud is the upjet v2-based Crossplane provider for
// the fake cloud, as a provider author builds one from upjet-provider-template:
// a controller-runtime manager running the controllers upjet's pipeline
// generated (testbed/upjetv2/generated) with intentjournal's controller
// template, cluster-scoped (fakecloud.intentjournal.io) and namespaced
// (fakecloud.m.intentjournal.io), over all three of upjet's async
// connectors: the plugin SDK (RecordSet, Network, Record, Bucket), the
// plugin framework (Address) and the Terraform CLI (CLIRecordSet,
// CLINetwork). See run.go for its flags.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// runMain runs provider-fakecloud on args with this line's own flags and
// setup (run.go) and returns the process exit code (providercmd.RunMain).
func runMain(ctx context.Context, args []string, stderr io.Writer) int {
	var l lineOptions
	return providercmd.RunMain(ctx, args, stderr, l.addFlags, func(ctx context.Context, zl *zap.Logger, o providercmd.Options) error {
		return run(ctx, zl, o, l)
	})
}
