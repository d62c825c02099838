// Command fakeclouddns serves the fake Google Cloud DNS on 127.0.0.1. See
// package github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := realMain(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}
