// Command provider-gcpdns is a Crossplane provider of Cloud DNS managed
// zones and record sets over the real terraform-provider-google, built as
// provider-upjet-gcp is: a controller-runtime manager running the
// controllers upjet's pipeline generated (testbed/gcpdns, make
// generate-provider-gcpdns) from the provider's own template wrapped by
// intentjournal, cluster-scoped (dns.gcp.intentjournal.io) and namespaced
// (dns.gcp.m.intentjournal.io), through upjet's async plugin SDK
// connector. Its flags are the test bed's providers' (package
// providercmd): without --journal or --annotation-only it runs as upjet
// generated it, unwrapped.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}

// runMain runs provider-gcpdns on args and returns the process exit code
// (providercmd.RunMain).
func runMain(ctx context.Context, args []string, stderr io.Writer) int {
	return providercmd.RunMain(ctx, args, stderr, nil, run)
}
