package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the server failed while running
	exitUsage   = 2 // bad flags
	exitCorrupt = 3 // the state file is corrupt; it was left untouched
	exitLocked  = 4 // another process serves the same state file
)

// shutdownGrace bounds how long SIGTERM waits for in-flight requests.
const shutdownGrace = 10 * time.Second

// options are the command's flags.
type options struct {
	State     string
	Addr      string
	ReadyFile string
	LogLevel  string
	Seed      uint64
	Faults    fakecloud.Faults
}

// realMain parses args, runs the server until ctx is done, and returns the exit
// code. Errors go to stderr.
func realMain(ctx context.Context, args []string, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fakecloud: %v\n", err)
		return exitUsage
	}
	err = run(ctx, stderr, opts)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, fakecloud.ErrCorruptState):
		fmt.Fprintf(stderr, "fakecloud: %v\nThe state file was left untouched; move it aside to start empty.\n", err)
		return exitCorrupt
	case errors.Is(err, fakecloud.ErrLocked):
		fmt.Fprintf(stderr, "fakecloud: %v\n", err)
		return exitLocked
	default:
		fmt.Fprintf(stderr, "fakecloud: %v\n", err)
		return exitFailure
	}
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("fakecloud", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.State, "state", "", "state file, written atomically on every mutation (required)")
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:0", "listen address; must be a loopback address")
	fs.StringVar(&o.ReadyFile, "ready-file", "", "file to write the base URL to, atomically, once listening")
	fs.StringVar(&o.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.Uint64Var(&o.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the random source that picks failing requests")
	faultsJSON := fs.String("faults", "", `fault configuration as JSON, e.g. '{"latency":{"create":"2s","read":"20ms"}}'; the flags below override its fields`)
	latency := fs.Duration("latency", 0, "latency of every operation")
	jitter := fs.Duration("jitter", 0, "random offset in [-jitter, +jitter] added to each non-zero latency")
	errorRate := fs.Float64("error-rate", 0, "probability that a request is answered 500 without being carried out")
	timeoutRate := fs.Float64("timeout-rate", 0, "probability that a request is held until the client gives up, without being carried out")
	ambiguousRate := fs.Float64("ambiguous-rate", 0, "probability that a create is committed but the connection is dropped")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.State == "" {
		return o, errors.New("--state is required")
	}
	if *faultsJSON != "" {
		if err := json.Unmarshal([]byte(*faultsJSON), &o.Faults); err != nil {
			return o, fmt.Errorf("--faults: %w", err)
		}
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "latency":
			o.Faults.Latency = fakecloud.AllLatencies(*latency)
		case "jitter":
			o.Faults.Jitter = *jitter
		case "error-rate":
			o.Faults.ErrorRate = fakecloud.AllRates(*errorRate)
		case "timeout-rate":
			o.Faults.TimeoutRate = fakecloud.AllRates(*timeoutRate)
		case "ambiguous-rate":
			o.Faults.AmbiguousRate = fakecloud.Rates{Create: *ambiguousRate}
		}
	})
	if err := o.Faults.Validate(); err != nil {
		return o, err
	}
	if err := checkLoopback(o.Addr); err != nil {
		return o, err
	}
	return o, nil
}

// checkLoopback refuses any address that is not on the loopback interface.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--addr %q: the fake cloud only listens on loopback addresses such as 127.0.0.1", addr)
	}
	return nil
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

// run serves the fake cloud until ctx is done, then shuts down gracefully:
// in-flight requests, including held ones, get shutdownGrace to finish.
func run(ctx context.Context, logOut io.Writer, o options) error {
	log, err := newLogger(logOut, o.LogLevel)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()

	store, err := fakecloud.OpenStore(o.State, fakecloud.WithLogger(log))
	if err != nil {
		return err
	}
	defer store.Close()

	srv, err := fakecloud.NewServer(store, fakecloud.WithServerLogger(log), fakecloud.WithFaults(o.Faults), fakecloud.WithSeed(o.Seed))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", o.Addr, err)
	}
	url := "http://" + ln.Addr().String()

	// Request contexts derive from reqCtx, so that shutting down releases
	// requests held by an injected timeout.
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ErrorLog:          zap.NewStdLog(log.Named("http")),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	if o.ReadyFile != "" {
		if err := fakecloud.WriteFileAtomic(o.ReadyFile, []byte(url+"\n")); err != nil {
			_ = hs.Close()
			return fmt.Errorf("cannot write ready file: %w", err)
		}
	}
	log.Info("Serving", zap.String("url", url), zap.String("state-file", o.State), zap.Any("faults", o.Faults))

	select {
	case err := <-serveErr:
		return fmt.Errorf("server stopped: %w", err)
	case <-ctx.Done():
	}
	log.Info("Shutting down")
	cancelRequests()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("cannot shut down gracefully: %w", err)
	}
	log.Info("Stopped")
	return nil
}
