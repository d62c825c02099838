package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/yaml"
)

// Output formats of -o.
const (
	formatTable = "table"
	formatJSON  = "json"
	formatYAML  = "yaml"
)

// outputFlag is the -o flag shared by the commands that print data.
type outputFlag struct {
	Output string `short:"o" enum:"table,json,yaml" default:"table" help:"Output format: table, json or yaml."`
}

func (o outputFlag) format() (string, error) {
	switch o.Output {
	case "", formatTable:
		return formatTable, nil
	case formatJSON, formatYAML:
		return o.Output, nil
	}
	return "", usageError("unknown output format %q: want table, json or yaml", o.Output)
}

// writeData writes v as indented JSON or as YAML. The YAML is converted from
// the JSON, so both show the same field names.
func writeData(out io.Writer, format string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("cannot encode the output: %w", err)
	}
	return writeEncoded(out, format, buf.Bytes())
}

// writeEncoded writes JSON bytes as they are, or converted to YAML.
func writeEncoded(out io.Writer, format string, b []byte) error {
	if format == formatYAML {
		y, err := yaml.JSONToYAML(b)
		if err != nil {
			return fmt.Errorf("cannot convert the output to YAML: %w", err)
		}
		b = y
	}
	if _, err := out.Write(b); err != nil {
		return fmt.Errorf("cannot write the output: %w", err)
	}
	return nil
}

// table writes aligned columns.
type table struct{ tw *tabwriter.Writer }

func newTable(out io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)}
	if len(header) > 0 {
		t.row(header...)
	}
	return t
}

// row writes one row; empty cells show as "-" so columns stay parseable.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			cells[i] = "-"
		}
	}
	t.rowAsIs(cells...)
}

// rowAsIs writes one row, leaving empty cells empty.
func (t *table) rowAsIs(cells ...string) {
	for i, c := range cells {
		// Tabs and newlines would break the columns.
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error {
	if err := t.tw.Flush(); err != nil {
		return fmt.Errorf("cannot write the output: %w", err)
	}
	return nil
}

// age formats d the way kubectl does: the two largest units, e.g. 3d4h,
// 5m10s, 42s.
func age(d time.Duration) string {
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

// timestamp formats t in UTC, or "" when it is zero.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
