package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// reportOptions are the options of `report`.
type reportOptions struct {
	passOptions `embed:""`
}

// Run runs `report`.
func (o *reportOptions) Run(e *Env) error {
	o.log, o.progress, o.finderTypes = e.Log, e.Progress, e.finderTypes
	return runReport(e.Ctx, e.Stdout, *o)
}

// runReport prints the orphan report of journal plus cluster without
// changing anything: a dry-run pass with the journal opened read-only.
func runReport(ctx context.Context, out io.Writer, o reportOptions) error {
	return runPass(ctx, out, o.passOptions, passMode{dryRun: true, readOnlyJournal: true})
}

// writeReport writes rep in format: the report's own JSON (recovery's
// Encode, which checks it), that JSON as YAML, or a table.
func writeReport(out io.Writer, format string, rep *report.Report) error {
	if format != formatTable {
		var buf bytes.Buffer
		if err := rep.Encode(&buf); err != nil {
			return err
		}
		return writeEncoded(out, format, buf.Bytes())
	}
	if len(rep.Entries) == 0 {
		return writeReportFooter(out, rep)
	}
	t := tabular.New(out, "RESOURCE", "UID", "OUTCOME", "REASON", "EXTERNAL-NAME", "FOUND")
	for _, e := range rep.Entries {
		found := make([]string, 0, len(e.Found))
		for _, f := range e.Found {
			s := f.ID
			switch {
			case f.Adopted:
				s += " (adopted)"
			case f.Owned:
				s += " (ours)"
			default:
				s += " (not ours)"
			}
			found = append(found, s)
		}
		t.Row(kindName(e.Resource), e.Resource.UID, string(e.Outcome), e.Reason, e.ExternalName, strings.Join(found, ", "))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	return writeReportFooter(out, rep)
}

// writeReportFooter writes the summary, the notes and the actions.
func writeReportFooter(out io.Writer, rep *report.Report) error {
	s := rep.Summary
	mode := ""
	if rep.Source.DryRun {
		mode = " (dry run: nothing was changed)"
	}
	fmt.Fprintf(out, "%d intent(s): %d cleared, %d adopted, %d conflict, %d orphan, %d unresolved%s\n",
		s.Total, s.Cleared, s.Adopted, s.Conflict, s.Orphan, s.Unresolved, mode)
	for _, n := range rep.Source.Notes {
		fmt.Fprintf(out, "Note: %s\n", n)
	}
	first := true
	for _, e := range rep.Entries {
		if !e.NeedsAttention() {
			continue
		}
		if first {
			fmt.Fprintln(out, "\nNeeds attention:")
			first = false
		}
		fmt.Fprintf(out, "  %s %s: %s\n", kindName(e.Resource), e.Outcome, e.Message)
		if e.Action != "" {
			fmt.Fprintf(out, "    action: %s\n", e.Action)
		}
	}
	return nil
}

// Help is the detailed help of `report`.
func (o *reportOptions) Help() string {
	return "The journal is opened read-only; nothing in the cluster, the cloud or the journal changes.\n\n" + exitCodesHelp
}
