// Command provider-fakecloud is the upjet v2-based Crossplane provider for
// the fake cloud: a controller-runtime manager running crossplane-runtime
// v2's managed reconciler with upjet v2's no-fork async Terraform plugin SDK
// connector for RecordSet and Network, cluster-scoped
// (fakecloud.intentjournal.io) and namespaced (fakecloud.m.intentjournal.io).
// See run.go for its flags.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}
