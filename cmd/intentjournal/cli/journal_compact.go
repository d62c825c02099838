package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"
)

// compactOptions are the options of `journal compact`.
type compactOptions struct {
	journalFile `embed:""`
	Retention   time.Duration `name:"retention" default:"720h" help:"Keep terminal intents updated within this long; older ones are deleted. Unsettled intents are never deleted."`

	log *zap.Logger
}

// Run runs `journal compact`.
func (o *compactOptions) Run(e *Env) error {
	o.log = e.Log
	return runJournalCompact(e.Ctx, e.Stdout, *o)
}

// runJournalCompact deletes old terminal intents. It is the only journal
// command that opens the journal for writing.
func runJournalCompact(ctx context.Context, out io.Writer, o compactOptions) error {
	if o.Retention <= 0 {
		return UsageError("--retention must be positive, got %s", o.Retention)
	}
	j, err := o.open(o.log, true)
	if err != nil {
		return err
	}
	n, err := j.Compact(ctx, o.Retention)
	if cerr := j.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot compact journal %s (deleted %d before the error; compact is safe to rerun): %w", o.Path, n, err)
	}
	fmt.Fprintf(out, "deleted %d terminal intent(s) last updated more than %s ago from %s\n", n, o.Retention, o.Path)
	return nil
}
