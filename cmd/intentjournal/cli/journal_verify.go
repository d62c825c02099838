package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/journal"
)

// verifyOptions are the options of `journal verify`.
type verifyOptions struct {
	journalFile `embed:""`
	outputFlag  `embed:""`

	log *zap.Logger
}

// Run runs `journal verify`.
func (o *verifyOptions) Run(e *Env) error {
	o.log = e.Log
	return runJournalVerify(e.Ctx, e.Stdout, *o)
}

// verifyOutput is the json and yaml form of `journal verify`.
type verifyOutput struct {
	Journal string `json:"journal"`
	OK      bool   `json:"ok"`
	*journal.VerifyReport
}

// runJournalVerify checks the journal read-only and prints what it found.
// A journal that does not verify clean is an error (exit code 1), returned
// after the findings are written.
func runJournalVerify(ctx context.Context, out io.Writer, o verifyOptions) error {
	format, err := o.format()
	if err != nil {
		return err
	}
	j, err := o.open(o.log, false)
	if err != nil {
		return err
	}
	defer j.Close()
	r, err := j.Verify(ctx)
	if err != nil {
		return fmt.Errorf("cannot verify journal %s: %w", o.Path, err)
	}
	if format != formatTable {
		err = writeData(out, format, verifyOutput{Journal: o.Path, OK: r.OK(), VerifyReport: r})
	} else {
		err = writeVerifyTable(out, o.Path, r)
	}
	if err != nil {
		return err
	}
	if !r.OK() {
		n := len(r.Corrupt) + len(r.Quarantined) + len(r.Unsupported) + len(r.Consistency)
		return fmt.Errorf("journal %s did not verify: %d problem(s)", o.Path, n)
	}
	return nil
}

func writeVerifyTable(out io.Writer, path string, r *journal.VerifyReport) error {
	status := "OK"
	if !r.OK() {
		status = "PROBLEMS FOUND"
	}
	fmt.Fprintf(out, "Journal:    %s\nStatus:     %s\nRecords:    %d\nUnsettled:  %d\n\n", path, status, r.Records, r.Unsettled)
	t := tabular.New(out, "STATE", "RECORDS")
	for _, s := range journal.States {
		t.Row(string(s), strconv.Itoa(r.ByState[s]))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if r.OK() {
		return nil
	}
	fmt.Fprintln(out)
	t = tabular.New(out, "PROBLEM", "UID", "DETAIL")
	for _, c := range r.Corrupt {
		t.Row("corrupt", c.Key, c.Reason)
	}
	for _, c := range r.Quarantined {
		t.Row("quarantined", c.Key, c.Reason)
	}
	for _, u := range r.Unsupported {
		t.Row("unsupported-version", "", u)
	}
	for _, c := range r.Consistency {
		t.Row("bbolt-consistency", "", c)
	}
	return t.Flush()
}

// Help is the detailed help of `journal verify`.
func (o *verifyOptions) Help() string {
	return "The journal is opened read-only. Exits 1, after listing them, when any record is corrupt, " +
		"quarantined or of a newer format, or bbolt's consistency check fails."
}
