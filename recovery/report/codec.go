package report

import (
	_ "embed" // the report JSON Schema
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxSize bounds an encoded report that Decode, ReadFile
// and ValidateJSON accept. A report entry is a few hundred bytes, so
// the bound holds about a million entries.
const MaxSize = 512 << 20

// Report errors. Decode and ValidateJSON wrap one of these, so
// callers branch with errors.Is.
var (
	// ErrUnsupported reports a well-formed document of another
	// apiVersion or kind: a newer major version is refused, never guessed at.
	ErrUnsupported = errors.New("recovery: unsupported report version")

	// ErrMalformed reports bytes that are not a report of this
	// version: not JSON, fields of the wrong type, unknown outcomes, a
	// summary that does not match the entries, or a schema violation.
	ErrMalformed = errors.New("recovery: malformed report")
)

// check reports the first inconsistency that would make the encoded report
// fail Decode. The caller holds r.mu.
func (r *Report) check() error {
	if r.APIVersion != APIVersion || r.Kind != Kind {
		return fmt.Errorf("%w: apiVersion %q, kind %q: this build reads %s %s",
			ErrUnsupported, r.APIVersion, r.Kind, APIVersion, Kind)
	}
	var want Summary
	for i, e := range r.Entries {
		if e == nil {
			return fmt.Errorf("%w: entry %d is null", ErrMalformed, i)
		}
		if !e.Outcome.Valid() {
			return fmt.Errorf("%w: entry %d (%s): unknown outcome %q", ErrMalformed, i, e.Resource, e.Outcome)
		}
		want.count(e.Outcome)
	}
	if r.Summary.counts() != want {
		return fmt.Errorf("%w: summary %+v does not match the %d entries, which count %+v",
			ErrMalformed, r.Summary.counts(), len(r.Entries), want)
	}
	if t := r.Summary.Timings; t != nil {
		return t.check()
	}
	return nil
}

// Encode writes the report to w as indented JSON with a trailing newline.
// It refuses, before writing anything, a report that Decode would
// refuse: another apiVersion or kind, an unknown outcome, or a summary that
// does not match the entries. Nil lists are written as empty arrays.
func (r *Report) Encode(w io.Writer) error {
	if r == nil {
		return fmt.Errorf("recovery: encode report: %w: nil report", ErrMalformed)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.check(); err != nil {
		return fmt.Errorf("recovery: encode report: %w", err)
	}
	r.normalize()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	// reportJSON has Report's fields and none of its methods; converting the
	// pointer does not copy the mutex.
	if err := enc.Encode((*reportJSON)(r)); err != nil {
		return fmt.Errorf("recovery: encode report: %w", err)
	}
	return nil
}

// normalize replaces nil lists with empty ones, so the JSON has arrays where
// the schema requires them. The caller holds r.mu or owns r.
func (r *Report) normalize() {
	if r.Entries == nil {
		r.Entries = []*Entry{}
	}
	for _, e := range r.Entries {
		if e == nil {
			continue // check refuses it
		}
		if e.Sources == nil {
			e.Sources = []string{}
		}
		if e.Found == nil {
			e.Found = []Found{}
		}
	}
}

// reportJSON is Report without methods, for encoding and decoding.
type reportJSON Report

// Decode parses an encoded report. Unknown fields are ignored, so a
// report of a newer minor version decodes. It returns an error wrapping
// ErrUnsupported for another apiVersion or kind, and ErrMalformed
// for input over MaxSize, input that is not a report, an unknown
// outcome, or a summary that does not match the entries. It never panics.
// The JSON Schema is stricter: see ValidateJSON.
func Decode(b []byte) (*Report, error) { return decode(b, MaxSize) }

func decode(b []byte, limit int) (*Report, error) {
	if len(b) > limit {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(b), limit)
	}
	// Read the identity alone first, so that another version whose other
	// fields changed type is reported as unsupported, not malformed.
	var head struct {
		APIVersion *string `json:"apiVersion"`
		Kind       *string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object with a string apiVersion and kind: %v", ErrMalformed, err)
	}
	if head.APIVersion == nil || head.Kind == nil {
		return nil, fmt.Errorf("%w: apiVersion and kind are required", ErrMalformed)
	}
	if *head.APIVersion != APIVersion || *head.Kind != Kind {
		return nil, fmt.Errorf("%w: apiVersion %q, kind %q: this build reads %s %s",
			ErrUnsupported, *head.APIVersion, *head.Kind, APIVersion, Kind)
	}
	r := new(Report)
	if err := json.Unmarshal(b, (*reportJSON)(r)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	r.normalize()
	return r, nil
}
