package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// writeScanReport writes the scan's report in format: the report's own
// JSON, that JSON as YAML, or a table with a row per entry, the summary,
// and for every entry that needs an operator its evidence and the commands
// of each action not carried out.
func writeScanReport(out io.Writer, format string, rep *report.Report) error {
	if format != formatTable {
		var buf bytes.Buffer
		if err := rep.Encode(&buf); err != nil {
			return err
		}
		return writeEncoded(out, format, buf.Bytes())
	}
	if len(rep.Entries) > 0 {
		t := tabular.New(out, "RESOURCE", "SCAN-REASON", "OUTCOME", "REASON", "FOUND", "ACTIONS")
		for _, e := range rep.Entries {
			found := make([]string, 0, len(e.Found))
			for _, f := range e.Found {
				s := f.ID
				switch {
				case f.Adopted:
					s += " (adopted)"
				case f.Owned && f.Weak:
					s += " (ours, weak)"
				case f.Owned:
					s += " (ours)"
				case f.LookAlike:
					s += " (look-alike)"
				default:
					s += " (not ours)"
				}
				found = append(found, s)
			}
			var reasons, actions []string
			if e.Scan != nil {
				reasons = e.Scan.Reasons
				for _, a := range e.Scan.Actions {
					s := a.Type
					if a.Applied {
						s += " (done)"
					}
					actions = append(actions, s)
				}
			}
			t.Row(kindName(e.Resource), strings.Join(reasons, ","), string(e.Outcome), e.Reason, strings.Join(found, ", "), strings.Join(actions, ", "))
		}
		if err := t.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	s := rep.Summary
	mode := " (--apply: paused and adopted as the actions say)"
	if rep.Source.DryRun {
		mode = " (dry run: nothing was changed)"
	}
	fmt.Fprintf(out, "%d candidate(s): %d cleared, %d adopted, %d conflict, %d orphan, %d unresolved%s\n",
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
		if e.Scan != nil {
			for _, ev := range e.Scan.Evidence {
				fmt.Fprintf(out, "    seen: %s\n", ev)
			}
			for _, a := range e.Scan.Actions {
				if a.Applied {
					fmt.Fprintf(out, "    done: %s\n", a.Note)
					continue
				}
				what := a.Type
				if a.ExternalName != "" {
					what += " " + a.ExternalName
				}
				fmt.Fprintf(out, "    %s (%s):\n", what, a.Note)
				for _, c := range a.Commands {
					fmt.Fprintf(out, "      %s\n", c)
				}
			}
		} else if e.Action != "" {
			fmt.Fprintf(out, "    action: %s\n", e.Action)
		}
	}
	return nil
}
