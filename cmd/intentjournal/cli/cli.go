package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Exit codes, documented in docs/cli.md and in the help text.
const (
	ExitOK        = 0 // the command did what it was asked and found nothing to act on
	ExitError     = 1 // the command failed, or journal verify found problems
	ExitUsage     = 2 // the command line could not be parsed
	ExitAttention = 3 // recover, report or scan found conflicts, orphans or unresolved intents
)

const exitCodesHelp = `Exit codes: 0 clean; 1 error (or journal verify found problems); 2 usage error; ` +
	`3 recover/report/scan found conflicts, orphans or unresolved intents that need an operator.`

// cli is the command line. Each command is its own options struct with a Run
// method that hands it to the command's run function.
type cli struct {
	LogLevel string `name:"log-level" enum:",debug,info,warn,error" default:"" placeholder:"LEVEL" help:"Level of the diagnostics written to stderr: debug, info, warn or error (default: warn for the journal commands, info for recover, report and scan, which log progress)."`

	Journal journalCmd     `cmd:"" help:"Inspect and maintain an intent journal file (offline)."`
	Recover recoverOptions `cmd:"" help:"Run the recovery pass against a cluster: resolve every unsettled create intent."`
	Report  reportOptions  `cmd:"" help:"Print the orphan report of journal plus cluster without changing anything (a dry-run pass)."`
	Scan    scanOptions    `cmd:"" help:"Find the creates a stock provider (no journal) may have leaked, and report them; read only unless --apply."`
	Finders findersCmd     `cmd:"" help:"Measure how recovery can find each kind of an upjet provider (offline)."`

	// The commands WithCommands adds.
	kong.Plugins
}

// journalCmd groups the offline journal commands.
type journalCmd struct {
	Ls      lsOptions      `cmd:"" help:"List the intents of a journal."`
	Show    showOptions    `cmd:"" help:"Show one intent in full."`
	Verify  verifyOptions  `cmd:"" help:"Check a journal's bbolt consistency and every record's CRC."`
	Compact compactOptions `cmd:"" help:"Delete terminal intents older than the retention."`
}

// findersCmd groups the offline finder commands.
type findersCmd struct {
	Coverage coverageOptions `cmd:"" help:"Classify every kind of a kinds file by finder strategy and count the coverage per provider."`
}

// Env is what every command's Run method receives from Main.
type Env struct {
	Ctx    context.Context
	Stdout io.Writer
	Stderr io.Writer
	Log    *zap.Logger
	// Progress is true when Stderr is a terminal: progress is drawn as one
	// line rewritten in place instead of a log line per update.
	Progress bool

	// finderTypes are the --finder types: the built-in ones and those of
	// WithFinderType.
	finderTypes map[string]FinderType
}

// An Option configures Main.
type Option func(*options)

type options struct {
	finderTypes map[string]FinderType
	plugins     kong.Plugins
}

// WithFinderType adds the --finder type name, or replaces the built-in one
// of that name. A development build adds the fake cloud's this way, so the
// operator binary links no test double.
func WithFinderType(name string, ft FinderType) Option {
	return func(o *options) { o.finderTypes[name] = ft }
}

// WithCommands adds commands: each cmd is a pointer to a struct whose
// fields are kong commands (tagged cmd:"") with a Run(*Env) error method.
func WithCommands(cmds ...any) Option {
	return func(o *options) { o.plugins = append(o.plugins, cmds...) }
}

// exitCodeError carries an exit code other than ExitError.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string { return e.err.Error() }
func (e *exitCodeError) Unwrap() error { return e.err }

// messageError replaces the text of err, which it wraps, with msg: for an
// error whose own text would only repeat what msg says.
type messageError struct {
	msg string
	err error
}

func (e *messageError) Error() string { return e.msg }
func (e *messageError) Unwrap() error { return e.err }

// usageError marks an error in the command's arguments: exit code 2.
func UsageError(format string, a ...any) error {
	return &exitCodeError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// errNeedsAttention is returned by recover and report, after the report was
// written, when it has entries an operator must act on.
var errNeedsAttention = errors.New("the report has conflicts, orphans or unresolved intents that need an operator; see the report's actions")

// ExitCode maps a command's error to the process exit code.
func ExitCode(err error) int {
	var ec *exitCodeError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errNeedsAttention):
		return ExitAttention
	case errors.As(err, &ec):
		return ec.code
	}
	return ExitError
}

// kongExit is the panic value of kong's Exit hook: kong calls Exit after it
// prints help, and Main turns it into a return.
type kongExit int

// Main parses args, runs the command and returns the process's exit code.
// Only the requested output goes to stdout; diagnostics and errors go to
// stderr.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, opts ...Option) (code int) {
	o := options{finderTypes: builtinFinderTypes()}
	for _, opt := range opts {
		opt(&o)
	}
	c := cli{Plugins: o.plugins}
	parser, err := kong.New(&c,
		kong.Name("intentjournal"),
		kong.Description("Inspect intent journals and recover interrupted creates of Crossplane managed resources.\n\n"+exitCodesHelp),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "intentjournal: %v\n", err)
		return ExitError
	}
	defer func() {
		if r := recover(); r != nil {
			k, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(k)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "intentjournal: %v\n", err)
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil && len(args) > 0 {
			fmt.Fprintf(stderr, "Run '%s' for usage.\n", strings.Join(append(append([]string{"intentjournal"}, commandPath(pe.Context)...), "--help"), " "))
		}
		return ExitUsage
	}
	level := c.LogLevel
	if level == "" {
		level = "info"
		if strings.HasPrefix(kctx.Command(), "journal ") {
			level = "warn"
		}
	}
	log, err := newLogger(level, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "intentjournal: %v\n", err)
		return ExitUsage
	}
	defer func() { _ = log.Sync() }()
	if !strings.HasPrefix(kctx.Command(), "journal ") {
		// controller-runtime's client logs API warnings through its
		// global logger, which complains when it was never set.
		ctrllog.SetLogger(zapr.NewLogger(log))
	}
	e := &Env{Ctx: ctx, Stdout: stdout, Stderr: stderr, Log: log, Progress: isTerminal(stderr), finderTypes: o.finderTypes}
	if err := kctx.Run(e); err != nil {
		fmt.Fprintf(stderr, "intentjournal: %v\n", err)
		return ExitCode(err)
	}
	return ExitOK
}

// commandPath returns the names of the commands selected so far.
func commandPath(ctx *kong.Context) []string {
	var out []string
	for _, p := range ctx.Path {
		if p.Command != nil {
			out = append(out, p.Command.Name)
		}
	}
	return out
}

// newLogger returns a console logger on w at level.
func newLogger(level string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("cannot parse --log-level: %w", err)
	}
	cfg := zap.NewDevelopmentEncoderConfig()
	cfg.EncodeTime = zapcore.ISO8601TimeEncoder
	cfg.EncodeLevel = zapcore.CapitalLevelEncoder
	cfg.StacktraceKey = ""
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(cfg), zapcore.AddSync(w), lvl)
	if isTerminal(w) {
		core = newProgressCore(core, w)
	}
	return zap.New(core), nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
