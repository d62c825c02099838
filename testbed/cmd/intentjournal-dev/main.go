// Command intentjournal-dev is the intentjournal command line of a
// development build: the operator CLI, plus the fake cloud's finder type
// (--finder KIND=fakecloud:URL) and the demo command (make demo), which
// runs either crossplane line's provider-fakecloud, or provider-gcpdns, as
// a child process. It is crossplane-free, like the root module it lives
// in. The operator binary, cmd/intentjournal, links neither the fake cloud
// nor the demo.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fccli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := devMain(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// devCommands are the commands only a development build has.
type devCommands struct {
	Demo demoOptions `cmd:"" help:"Run the crash-and-recover demonstration: the upjet provider (v2, v1 or gcpdns line) unwrapped, then with the journal, SIGKILLed with creates in flight (make demo)."`
}

// devMain is cli.Main with the fake cloud's finder and the demo.
func devMain(ctx context.Context, args []string) int {
	return cli.Main(ctx, args, os.Stdout, os.Stderr, cli.WithCommands(&devCommands{}),
		fccli.Option())
}
