package recovery

import (
	"bytes"
	"cmp"
	_ "embed" // the report JSON Schema
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/intentjournal/intentjournal/internal/atomicfile"
	"github.com/intentjournal/intentjournal/journal"
)

// ReportAPIVersion and ReportKind identify the report format. A decoder
// accepts exactly this pair; any other apiVersion is another format.
const (
	ReportAPIVersion = "intentjournal.io/v1alpha1"
	ReportKind       = "OrphanReport"
)

// ReportSchemaID is the $id of the report's JSON Schema (draft 2020-12).
const ReportSchemaID = "https://intentjournal.io/schemas/orphan-report/v1alpha1.json"

// MaxReportSize bounds an encoded report that DecodeReport, ReadReportFile
// and ValidateReportJSON accept. A report entry is a few hundred bytes, so
// the bound holds about a million entries.
const MaxReportSize = 512 << 20

// Report errors. DecodeReport and ValidateReportJSON wrap one of these, so
// callers branch with errors.Is.
var (
	// ErrUnsupportedReport reports a well-formed document of another
	// apiVersion or kind: a newer major version is refused, never guessed at.
	ErrUnsupportedReport = errors.New("recovery: unsupported report version")

	// ErrMalformedReport reports bytes that are not a report of this
	// version: not JSON, fields of the wrong type, unknown outcomes, a
	// summary that does not match the entries, or a schema violation.
	ErrMalformedReport = errors.New("recovery: malformed report")
)

// Outcome is what the recovery pass decided for one unsettled intent.
type Outcome string

// The outcomes. Cleared and adopted need nothing from an operator; conflict,
// orphan and unresolved do (see Report.NeedsAttention and docs/report.md).
const (
	// OutcomeCleared means nothing was created: the intent was dropped
	// and the managed resource may create again.
	OutcomeCleared Outcome = "cleared"
	// OutcomeAdopted means the resource was found, proven ours, and bound
	// to the managed resource through its external name.
	OutcomeAdopted Outcome = "adopted"
	// OutcomeConflict means a resource with the natural key exists but is
	// not provably ours. The managed resource is paused.
	OutcomeConflict Outcome = "conflict"
	// OutcomeOrphan means a cloud resource of ours has no managed resource:
	// the managed resource was deleted meanwhile, or the create ran more
	// than once and this is an extra copy.
	OutcomeOrphan Outcome = "orphan"
	// OutcomeUnresolved means the lookup failed. The intent is kept and
	// the next recovery pass retries it.
	OutcomeUnresolved Outcome = "unresolved"
)

// Outcomes lists every outcome in the order the summary shows them.
var Outcomes = []Outcome{OutcomeCleared, OutcomeAdopted, OutcomeConflict, OutcomeOrphan, OutcomeUnresolved}

// Valid reports whether o is a known outcome.
func (o Outcome) Valid() bool { return slices.Contains(Outcomes, o) }

// NeedsAttention reports whether an operator must act on an entry with this
// outcome. Unknown outcomes need attention: a reader fails closed.
func (o Outcome) NeedsAttention() bool {
	return o != OutcomeCleared && o != OutcomeAdopted
}

// Entry sources: where the recovery pass learnt of an intent.
const (
	// SourceJournal is an unsettled record in the intent journal.
	SourceJournal = "journal"
	// SourceAnnotation is the intentjournal.io/create-intent annotation on
	// the managed resource.
	SourceAnnotation = "annotation"
	// SourceIncompleteCreate is crossplane-runtime's
	// crossplane.io/external-create-pending annotation newer than both
	// -succeeded and -failed, with no intent recorded.
	SourceIncompleteCreate = "incomplete-create"
)

// sourceOrder is the canonical order of an entry's sources, as the schema's
// enum lists them.
var sourceOrder = []string{SourceJournal, SourceAnnotation, SourceIncompleteCreate}

// Report is the orphan report: what one recovery pass found and did for every
// unsettled create intent. Its JSON form is versioned by APIVersion and Kind
// and described by the schema that ReportJSONSchema returns.
//
// Add is safe for concurrent use; the other methods lock too, but the
// exported fields are plain data: read them directly only when no Add can
// run concurrently.
type Report struct {
	APIVersion  string    `json:"apiVersion"`
	Kind        string    `json:"kind"`
	GeneratedAt time.Time `json:"generatedAt"`
	Source      Source    `json:"source"`
	Summary     Summary   `json:"summary"`
	// Entries are pointers so that a pass with 100,000 intents grows
	// the list by copying pointers, not whole entries: a contiguous
	// []Entry needs the old and the new backing array live at once.
	Entries []*Entry `json:"entries"`

	mu sync.Mutex
}

// Source says where the recovery pass read its intents from, and as whom.
type Source struct {
	// Cluster is the API server URL or the kubeconfig context.
	Cluster string `json:"cluster,omitempty"`
	// ClusterUID identifies the cluster: the UID of its kube-system
	// namespace (see ClusterID). Intents of another cluster are never
	// resolved in this one.
	ClusterUID string `json:"clusterUID,omitempty"`
	// Journal is the journal path; empty in annotation-only mode.
	Journal string `json:"journal,omitempty"`
	// Owner is the replica that ran the recovery pass.
	Owner journal.Owner `json:"owner"`
	// DryRun is true when the pass changed nothing: the outcomes are what
	// it would have done.
	DryRun bool `json:"dryRun"`
	// Notes are degraded conditions, one sentence each, e.g. "journal
	// locked by ...: fell back to annotations".
	Notes []string `json:"notes,omitempty"`
}

// Summary counts the entries of a report by outcome. Total is the number of
// entries; the outcome counts add up to it.
type Summary struct {
	Total      int `json:"total"`
	Cleared    int `json:"cleared"`
	Adopted    int `json:"adopted"`
	Conflict   int `json:"conflict"`
	Orphan     int `json:"orphan"`
	Unresolved int `json:"unresolved"`
}

// count adds one entry with outcome o. An unknown outcome counts towards
// Total alone, which makes the summary inconsistent: Encode refuses it.
func (s *Summary) count(o Outcome) {
	s.Total++
	switch o {
	case OutcomeCleared:
		s.Cleared++
	case OutcomeAdopted:
		s.Adopted++
	case OutcomeConflict:
		s.Conflict++
	case OutcomeOrphan:
		s.Orphan++
	case OutcomeUnresolved:
		s.Unresolved++
	}
}

// Entry is what the recovery pass decided for one intent. An intent whose
// create ran more than once gives two entries: the adopted one, and an
// orphan entry listing the extra copies.
type Entry struct {
	// IntentID is the intent's ID; empty when the intent was inferred from
	// an incomplete create alone.
	IntentID string `json:"intentId"`
	// Resource is the managed resource the intent belongs to.
	Resource journal.ResourceRef `json:"resource"`
	// Sources say where the intent was found: SourceJournal,
	// SourceAnnotation, SourceIncompleteCreate.
	Sources []string `json:"sources"`
	// IntendedExternalName is the external name the create was going to
	// use, when it was known before the create.
	IntendedExternalName string `json:"intendedExternalName,omitempty"`
	// ExternalName is the external name bound to the managed resource when
	// the outcome is adopted.
	ExternalName string `json:"externalName,omitempty"`
	// Found lists the cloud resources the lookup found.
	Found []Found `json:"found"`
	// Outcome is the decision.
	Outcome Outcome `json:"outcome"`
	// Reason is a short CamelCase machine reason, e.g. "Adopted", "NotOurs" or
	// "LookAlikeNotOurs" (the Reason constants).
	Reason string `json:"reason"`
	// Message is one human sentence.
	Message string `json:"message,omitempty"`
	// Action is the concrete command or annotation that resolves the entry.
	Action string `json:"action,omitempty"`
}

// Found is one cloud resource that the lookup for an intent returned.
type Found struct {
	// ID is the cloud's ID or name for the resource.
	ID string `json:"id"`
	// Tags are the resource's tags as the cloud reported them.
	Tags map[string]string `json:"tags,omitempty"`
	// CreatedAt is when the cloud says the resource was created.
	CreatedAt time.Time `json:"createdAt,omitzero"`
	// Owned is true when ownership is proven (see Proof).
	Owned bool `json:"owned"`
	// Adopted is true for the resource bound to the managed resource.
	Adopted bool `json:"adopted"`
	// Proof says how ownership is proven: IntentID, RecordedID, UIDTag,
	// CrossplaneTags or CrossplaneTagsUntimed (weak). Empty when not owned.
	Proof string `json:"proof,omitempty"`
	// LookAlike is true for a resource that carries the managed resource's
	// crossplane tags but is proven not to be its (another cluster's, or
	// older than the create). It is never adopted, imported or deleted.
	LookAlike bool `json:"lookAlike,omitempty"`
	// NotOurs says why a resource that is not owned is not ours.
	NotOurs string `json:"notOurs,omitempty"`
}

// NewReport returns an empty report for src, generated at now (kept in UTC).
func NewReport(src Source, now time.Time) *Report {
	return &Report{
		APIVersion:  ReportAPIVersion,
		Kind:        ReportKind,
		GeneratedAt: now.UTC(),
		Source:      src,
		Entries:     []*Entry{},
	}
}

// Add appends e and counts it in the summary. Nil Sources and Found become
// empty lists, so the JSON always has arrays. Add is safe for concurrent use.
func (r *Report) Add(e Entry) {
	if e.Sources == nil {
		e.Sources = []string{}
	}
	if e.Found == nil {
		e.Found = []Found{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Entries = append(r.Entries, &e)
	r.Summary.count(e.Outcome)
}

// AddNote appends a note on a degraded condition of the pass to
// Source.Notes, e.g. "journal locked by provider-fakecloud-0: fell back to
// annotations". It is safe for concurrent use.
func (r *Report) AddNote(note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Source.Notes = append(r.Source.Notes, note)
}

// Sort puts the report in a stable order, independent of the order in which
// concurrent workers added entries: entries by resource kind, namespace,
// name, UID, intent ID, outcome and first found ID; the sources of each
// entry in canonical order (journal, annotation, incomplete-create, then
// any other); its found resources by ID.
func (r *Report) Sort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.Entries {
		slices.SortStableFunc(e.Sources, func(a, b string) int {
			return cmp.Or(cmp.Compare(sourceRank(a), sourceRank(b)), strings.Compare(a, b))
		})
		slices.SortStableFunc(e.Found, func(a, b Found) int { return strings.Compare(a.ID, b.ID) })
	}
	slices.SortStableFunc(r.Entries, func(a, b *Entry) int {
		return cmp.Or(
			strings.Compare(a.Resource.Kind, b.Resource.Kind),
			strings.Compare(a.Resource.Namespace, b.Resource.Namespace),
			strings.Compare(a.Resource.Name, b.Resource.Name),
			strings.Compare(a.Resource.UID, b.Resource.UID),
			strings.Compare(a.IntentID, b.IntentID),
			strings.Compare(string(a.Outcome), string(b.Outcome)),
			strings.Compare(firstFoundID(a), firstFoundID(b)),
		)
	})
}

func sourceRank(s string) int {
	if i := slices.Index(sourceOrder, s); i >= 0 {
		return i
	}
	return len(sourceOrder)
}

func firstFoundID(e *Entry) string {
	if len(e.Found) == 0 {
		return ""
	}
	return e.Found[0].ID
}

// NeedsAttention reports whether an operator must act: any entry is a
// conflict, an orphan or unresolved, has an outcome this build does not
// know, or found a look-alike (see Entry.NeedsAttention). The CLI exits
// with code 3 when it is true.
func (r *Report) NeedsAttention() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.Summary
	if s.Conflict+s.Orphan+s.Unresolved > 0 || s.Cleared+s.Adopted != s.Total {
		return true
	}
	for _, e := range r.Entries {
		if e.NeedsAttention() {
			return true
		}
	}
	return false
}

// NeedsAttention reports whether an operator must act on e: its outcome
// needs attention, or it found a look-alike. A look-alike is left alone
// whatever the outcome, but someone else, another cluster most likely, is
// making resources with this managed resource's name and tags in the same
// account, and only an operator can find out who.
func (e *Entry) NeedsAttention() bool {
	if e.Outcome.NeedsAttention() {
		return true
	}
	for _, f := range e.Found {
		if f.LookAlike {
			return true
		}
	}
	return false
}

// check reports the first inconsistency that would make the encoded report
// fail DecodeReport. The caller holds r.mu.
func (r *Report) check() error {
	if r.APIVersion != ReportAPIVersion || r.Kind != ReportKind {
		return fmt.Errorf("%w: apiVersion %q, kind %q: this build reads %s %s",
			ErrUnsupportedReport, r.APIVersion, r.Kind, ReportAPIVersion, ReportKind)
	}
	var want Summary
	for i, e := range r.Entries {
		if e == nil {
			return fmt.Errorf("%w: entry %d is null", ErrMalformedReport, i)
		}
		if !e.Outcome.Valid() {
			return fmt.Errorf("%w: entry %d (%s): unknown outcome %q", ErrMalformedReport, i, e.Resource, e.Outcome)
		}
		want.count(e.Outcome)
	}
	if r.Summary != want {
		return fmt.Errorf("%w: summary %+v does not match the %d entries, which count %+v",
			ErrMalformedReport, r.Summary, len(r.Entries), want)
	}
	return nil
}

// Encode writes the report to w as indented JSON with a trailing newline.
// It refuses, before writing anything, a report that DecodeReport would
// refuse: another apiVersion or kind, an unknown outcome, or a summary that
// does not match the entries. Nil lists are written as empty arrays.
func (r *Report) Encode(w io.Writer) error {
	if r == nil {
		return fmt.Errorf("recovery: encode report: %w: nil report", ErrMalformedReport)
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

// DecodeReport parses an encoded report. Unknown fields are ignored, so a
// report of a newer minor version decodes. It returns an error wrapping
// ErrUnsupportedReport for another apiVersion or kind, and ErrMalformedReport
// for input over MaxReportSize, input that is not a report, an unknown
// outcome, or a summary that does not match the entries. It never panics.
// The JSON Schema is stricter: see ValidateReportJSON.
func DecodeReport(b []byte) (*Report, error) { return decodeReport(b, MaxReportSize) }

func decodeReport(b []byte, limit int) (*Report, error) {
	if len(b) > limit {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformedReport, len(b), limit)
	}
	// Read the identity alone first, so that another version whose other
	// fields changed type is reported as unsupported, not malformed.
	var head struct {
		APIVersion *string `json:"apiVersion"`
		Kind       *string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object with a string apiVersion and kind: %v", ErrMalformedReport, err)
	}
	if head.APIVersion == nil || head.Kind == nil {
		return nil, fmt.Errorf("%w: apiVersion and kind are required", ErrMalformedReport)
	}
	if *head.APIVersion != ReportAPIVersion || *head.Kind != ReportKind {
		return nil, fmt.Errorf("%w: apiVersion %q, kind %q: this build reads %s %s",
			ErrUnsupportedReport, *head.APIVersion, *head.Kind, ReportAPIVersion, ReportKind)
	}
	r := new(Report)
	if err := json.Unmarshal(b, (*reportJSON)(r)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformedReport, err)
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	r.normalize()
	return r, nil
}

// ReadReportFile reads and decodes the report at path, refusing a file
// larger than MaxReportSize before reading it whole.
func ReadReportFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recovery: read report: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxReportSize+1))
	if err != nil {
		return nil, fmt.Errorf("recovery: read report %s: %w", path, err)
	}
	r, err := DecodeReport(b)
	if err != nil {
		return nil, fmt.Errorf("recovery: read report %s: %w", path, err)
	}
	return r, nil
}

// WriteReportFile writes r to path atomically with mode 0600, whatever the
// umask: it encodes into a temporary file in the same directory, fsyncs it,
// renames it over path and fsyncs the directory. A crash or an error leaves
// either the previous file at path or the complete new one, never a partial
// file; on error the temporary file is removed. When only the final
// directory fsync fails, the new report is at path but may not survive a
// power loss, and the error says so.
func WriteReportFile(path string, r *Report) error {
	if r == nil {
		return fmt.Errorf("recovery: write report %s: %w: nil report", path, ErrMalformedReport)
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

//go:embed schema/report.schema.json
var reportSchema []byte

// ReportJSONSchema returns the report's JSON Schema (draft 2020-12), the
// document published as docs/report.schema.json. The caller owns the copy.
func ReportJSONSchema() []byte { return bytes.Clone(reportSchema) }

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
	if err := c.AddResource(ReportSchemaID, doc); err != nil {
		return nil, fmt.Errorf("recovery: report schema: %w", err)
	}
	s, err := c.Compile(ReportSchemaID)
	if err != nil {
		return nil, fmt.Errorf("recovery: report schema: %w", err)
	}
	return s, nil
})

// ValidateReportJSON validates an encoded report against the embedded JSON
// Schema (draft 2020-12, with formats such as date-time asserted). It returns
// an error wrapping ErrMalformedReport and, for a schema violation, the
// library's *jsonschema.ValidationError, whose text lists every failing
// location. The schema cannot check that the summary matches the entries;
// DecodeReport does.
func ValidateReportJSON(b []byte) error {
	if len(b) > MaxReportSize {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrMalformedReport, len(b), MaxReportSize)
	}
	s, err := compiledReportSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformedReport, err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%w: does not match %s: %w", ErrMalformedReport, ReportSchemaID, err)
	}
	return nil
}
