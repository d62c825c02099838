package report

import (
	_ "embed" // the report JSON Schema
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/intentjournal/intentjournal/internal/atomicfile"
)

// ReadFile reads and decodes the report at path, refusing a file
// larger than MaxSize before reading it whole.
func ReadFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recovery: read report: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("recovery: read report %s: %w", path, err)
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("recovery: read report %s: %w", path, err)
	}
	return r, nil
}

// WriteFile writes r to path atomically with mode 0600, whatever the
// umask: it encodes into a temporary file in the same directory, fsyncs it,
// renames it over path and fsyncs the directory. A crash or an error leaves
// either the previous file at path or the complete new one, never a partial
// file; on error the temporary file is removed. When only the final
// directory fsync fails, the new report is at path but may not survive a
// power loss, and the error says so.
func WriteFile(path string, r *Report) error {
	if r == nil {
		return fmt.Errorf("recovery: write report %s: %w: nil report", path, ErrMalformed)
	}
	err := atomicfile.Write(path, 0o600, r.Encode)
	switch {
	case errors.Is(err, atomicfile.ErrNotDurable):
		// The new report is complete at path; only its directory entry
		// may not survive a power loss.
		return fmt.Errorf("recovery: wrote report %s, but the rename may not be durable: %w", path, err)
	case err != nil:
		return fmt.Errorf("recovery: write report %s: %w", path, err)
	}
	return nil
}
