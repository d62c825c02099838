package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the server failed while running
	exitUsage   = 2 // bad flags
)

// shutdownGrace bounds how long SIGTERM waits for in-flight requests.
const shutdownGrace = 10 * time.Second

// options are the command's flags.
type options struct {
	Addr        string
	ReadyFile   string
	LogLevel    string
	Seed        uint64
	PageSize    int
	ChangeDelay time.Duration
	Faults      fakeclouddns.Faults
}

// realMain parses args, runs the server until ctx is done, and returns the
// exit code. Errors go to stderr.
func realMain(ctx context.Context, args []string, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fakeclouddns: %v\n", err)
		return exitUsage
	}
	if err := run(ctx, stderr, opts); err != nil {
		fmt.Fprintf(stderr, "fakeclouddns: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("fakeclouddns", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:0", "listen address; must be a loopback address")
	fs.StringVar(&o.ReadyFile, "ready-file", "", "file to write the base URL to, atomically, once listening")
	fs.StringVar(&o.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.Uint64Var(&o.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the random sources that pick failing requests and zone IDs")
	fs.IntVar(&o.PageSize, "page-size", fakeclouddns.DefaultPageSize, "items per list page when a request has no maxResults")
	fs.DurationVar(&o.ChangeDelay, "change-delay", fakeclouddns.DefaultChangeDelay, `how long a change's status stays "pending"`)
	faultsJSON := fs.String("faults", "", `fault configuration as JSON, e.g. '{"ops":{"changes.create":{"ambiguousRate":0.5}}}'`)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if *faultsJSON != "" {
		if err := o.Faults.UnmarshalJSON([]byte(*faultsJSON)); err != nil {
			return o, fmt.Errorf("--faults: %w", err)
		}
	}
	if err := o.Faults.Validate(); err != nil {
		return o, fmt.Errorf("--faults: %w", err)
	}
	if o.PageSize < 1 {
		return o, fmt.Errorf("--page-size %d is below 1", o.PageSize)
	}
	if o.ChangeDelay < 0 {
		return o, fmt.Errorf("--change-delay %v is negative", o.ChangeDelay)
	}
	if _, err := zapcore.ParseLevel(o.LogLevel); err != nil {
		return o, fmt.Errorf("--log-level: %w", err)
	}
	if err := fakeclouddns.CheckLoopback(o.Addr); err != nil {
		return o, fmt.Errorf("--addr: %w", err)
	}
	return o, nil
}

func newLogger(w io.Writer, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), lvl)), nil
}

// run serves the fake until ctx is done, then shuts down gracefully:
// in-flight requests get shutdownGrace to finish.
func run(ctx context.Context, logOut io.Writer, o options) error {
	log, err := newLogger(logOut, o.LogLevel)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()

	srv, err := fakeclouddns.NewServer(fakeclouddns.WithLogger(log), fakeclouddns.WithFaults(o.Faults), fakeclouddns.WithSeed(o.Seed),
		fakeclouddns.WithDefaultPageSize(o.PageSize), fakeclouddns.WithChangeDelay(o.ChangeDelay))
	if err != nil {
		return err
	}
	r, err := fakeclouddns.Listen(o.Addr, srv)
	if err != nil {
		return err
	}
	if o.ReadyFile != "" {
		if err := fakecloud.WriteFileAtomic(o.ReadyFile, []byte(r.URL+"\n")); err != nil {
			_ = r.Close()
			return fmt.Errorf("cannot write ready file: %w", err)
		}
	}
	log.Info("Serving", zap.String("url", r.URL), zap.String("dns-custom-endpoint", r.Endpoint()),
		zap.Int("page-size", o.PageSize), zap.Duration("change-delay", o.ChangeDelay), zap.Any("faults", o.Faults))

	<-ctx.Done()
	log.Info("Shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := r.Shutdown(sctx); err != nil {
		return fmt.Errorf("cannot shut down gracefully: %w", err)
	}
	return nil
}
