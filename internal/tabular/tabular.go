// Package tabular writes the aligned text tables of the command line and
// the demo: kubectl's layout, "-" for an empty cell, kubectl's ages.
package tabular

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Table writes aligned columns.
type Table struct{ tw *tabwriter.Writer }

// New returns a Table writing to out, with header as its first row.
func New(out io.Writer, header ...string) *Table {
	t := &Table{tw: tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)}
	if len(header) > 0 {
		t.Row(header...)
	}
	return t
}

// Row writes one row; empty cells show as "-" so columns stay parseable.
func (t *Table) Row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			cells[i] = "-"
		}
	}
	t.RowAsIs(cells...)
}

// RowAsIs writes one row, leaving empty cells empty.
func (t *Table) RowAsIs(cells ...string) {
	for i, c := range cells {
		// Tabs and newlines would break the columns.
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

// Flush writes what is buffered.
func (t *Table) Flush() error {
	if err := t.tw.Flush(); err != nil {
		return fmt.Errorf("cannot write the output: %w", err)
	}
	return nil
}

// Age formats d the way kubectl does: the two largest units, e.g. 3d4h,
// 5m10s, 42s.
func Age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Round(time.Second)
	days := int(d / (24 * time.Hour))
	h := int(d/time.Hour) % 24
	m := int(d/time.Minute) % 60
	s := int(d/time.Second) % 60
	switch {
	case days > 0 && h > 0:
		return fmt.Sprintf("%dd%dh", days, h)
	case days > 0:
		return fmt.Sprintf("%dd", days)
	case h > 0 && m > 0:
		return fmt.Sprintf("%dh%dm", h, m)
	case h > 0:
		return fmt.Sprintf("%dh", h)
	case m > 0 && s > 0:
		return fmt.Sprintf("%dm%ds", m, s)
	case m > 0:
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%ds", s)
}
