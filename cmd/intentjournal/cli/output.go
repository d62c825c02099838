package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	return "", UsageError("unknown output format %q: want table, json or yaml", o.Output)
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

// timestamp formats t in UTC, or "" when it is zero.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
