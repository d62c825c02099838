package report

import (
	"bytes"
	_ "embed" // the report JSON Schema
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaID is the $id of the report's JSON Schema (draft 2020-12).
const SchemaID = "https://intentjournal.io/schemas/orphan-report/v1alpha1.json"

//go:embed schema/report.schema.json
var reportSchema []byte

// JSONSchema returns the report's JSON Schema (draft 2020-12), the
// document published as docs/report.schema.json. The caller owns the copy.
func JSONSchema() []byte { return bytes.Clone(reportSchema) }

// compiledReportSchema compiles the embedded schema once. The compiler
// loads nothing from the network: the schema is added as a resource and
// the draft 2020-12 meta-schema is built into the library.
var compiledReportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reportSchema))
	if err != nil {
		return nil, fmt.Errorf("recovery: report schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("recovery: report schema: %w", err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("recovery: report schema: %w", err)
	}
	return s, nil
})

// ValidateJSON validates an encoded report against the embedded JSON
// Schema (draft 2020-12, with formats such as date-time asserted). It returns
// an error wrapping ErrMalformed and, for a schema violation, the
// library's *jsonschema.ValidationError, whose text lists every failing
// location. The schema cannot check that the summary matches the entries;
// Decode does.
func ValidateJSON(b []byte) error {
	if len(b) > MaxSize {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(b), MaxSize)
	}
	s, err := compiledReportSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%w: does not match %s: %w", ErrMalformed, SchemaID, err)
	}
	return nil
}
