package cli

import (
	"context"
	"io"
)

// recoverOptions are the options of `recover`.
type recoverOptions struct {
	passOptions `embed:""`

	DeleteOrphans bool   `name:"delete-orphans" help:"Delete orphaned cloud resources whose ownership is proven, through the kind's finder (off by default)."`
	DryRun        bool   `name:"dry-run" help:"Decide and report, but change nothing: no patches, no journal writes, no deletes, no Events."`
	Report        string `name:"report" placeholder:"FILE" help:"Also write the report as JSON to FILE (atomically, mode 0600)."`
}

// Run runs `recover`.
func (o *recoverOptions) Run(e *Env) error {
	o.log, o.progress, o.finderTypes = e.Log, e.Progress, e.finderTypes
	return runRecover(e.Ctx, e.Stdout, *o)
}

// runRecover runs the recovery pass: every unsettled create intent of the
// journal and the scanned kinds is cleared, adopted or reported, and the
// report is written to out (and to --report).
func runRecover(ctx context.Context, out io.Writer, o recoverOptions) error {
	return runPass(ctx, out, o.passOptions, passMode{
		dryRun:        o.DryRun,
		deleteOrphans: o.DeleteOrphans,
		reportFile:    o.Report,
		// A dry run changes nothing, not even the journal file's meta
		// page, which a writable open commits.
		readOnlyJournal: o.DryRun,
	})
}

// Help is the detailed help of `recover`.
func (o *recoverOptions) Help() string {
	return "Run it while the provider is stopped (scaled to 0 replicas): the provider holds the journal's lock, " +
		"and a locked journal makes the pass fall back to annotations only.\n\n" + exitCodesHelp
}
