package report

import (
	"cmp"
	_ "embed" // the report JSON Schema
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/intentjournal/intentjournal/journal"
)

// APIVersion and Kind identify the report format. A decoder
// accepts exactly this pair; any other apiVersion is another format.
const (
	APIVersion = "intentjournal.io/v1alpha1"
	Kind       = "OrphanReport"
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
	// SourceScan is `intentjournal scan`: a managed resource of a stock
	// provider (no journal, no intent annotation) whose annotations and
	// conditions show a create that may have leaked. The entry's Scan says
	// why it was taken up.
	SourceScan = "scan"
)

// sourceOrder is the canonical order of an entry's sources, as the schema's
// enum lists them.
var sourceOrder = []string{SourceJournal, SourceAnnotation, SourceIncompleteCreate, SourceScan}

// Report is the orphan report: what one recovery pass found and did for every
// unsettled create intent. Its JSON form is versioned by APIVersion and Kind
// and described by the schema that JSONSchema returns.
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
// entries; the outcome counts add up to it. Timings, when set, say where
// the pass spent its time.
type Summary struct {
	Total      int `json:"total"`
	Cleared    int `json:"cleared"`
	Adopted    int `json:"adopted"`
	Conflict   int `json:"conflict"`
	Orphan     int `json:"orphan"`
	Unresolved int `json:"unresolved"`
	// Timings are the pass's wall time and its time per phase; nil in a
	// report that no pass made. Added in v1alpha1 as an optional field:
	// readers of earlier reports see none.
	Timings *Timings `json:"timings,omitempty"`
}

// counts returns s without its timings, for comparing counts.
func (s Summary) counts() Summary {
	s.Timings = nil
	return s
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
	// SourceAnnotation, SourceIncompleteCreate, SourceScan.
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
	// Scan is what `intentjournal scan` found and did; nil in the entries
	// of a recovery pass. Added in v1alpha1 as an optional field.
	Scan *Scan `json:"scan,omitempty"`
}

// Found is one cloud resource that the lookup for an intent returned.
type Found struct {
	// ID is the cloud's ID or name for the resource: its external name,
	// or, when Listed, the cloud's own identifier.
	ID string `json:"id"`
	// Listed is true when ID is the cloud's own identifier (an ARN, a
	// full resource name, an ARM ID) as a tag listing returned it, and
	// nothing observed the resource: its external name is not known, and
	// it is never adopted.
	Listed bool `json:"listed,omitempty"`
	// Tags are the resource's tags as the cloud reported them.
	Tags map[string]string `json:"tags,omitempty"`
	// CreatedAt is when the cloud says the resource was created.
	CreatedAt time.Time `json:"createdAt,omitzero"`
	// Owned is true when ownership is proven (see Proof).
	Owned bool `json:"owned"`
	// Adopted is true for the resource bound to the managed resource.
	Adopted bool `json:"adopted"`
	// Proof says how ownership is proven: IntentID, RecordedID, UIDTag,
	// CrossplaneTags, KeyVacant or CrossplaneTagsUntimed (weak). Empty when
	// not owned.
	Proof string `json:"proof,omitempty"`
	// Weak is true when Proof is weak (KeyVacant, CrossplaneTags,
	// CrossplaneTagsUntimed): it cannot tell this create's resource from
	// one someone else made with the same proof, so it adopts only a
	// resource whose arguments match the create's (Arguments), and it
	// never deletes.
	Weak bool `json:"weak,omitempty"`
	// Arguments is how the resource compares with the arguments the
	// create sent: "match", "differ", or empty when the lookup did not
	// compare them.
	Arguments string `json:"arguments,omitempty"`
	// ArgumentsDiffer names the arguments that applying the create's would
	// change, where known: an extra tag, or a value for an argument the
	// create left unset, differs too.
	ArgumentsDiffer []string `json:"argumentsDiffer,omitempty"`
	// ArgumentsNotCompared names the arguments the create set that could
	// not be compared (sensitive or write-only: the read does not report
	// them).
	ArgumentsNotCompared []string `json:"argumentsNotCompared,omitempty"`
	// LookAlike is true for a resource that carries the managed resource's
	// crossplane tags but is proven not to be its (another cluster's, or
	// older than the create). It is never adopted, imported or deleted.
	LookAlike bool `json:"lookAlike,omitempty"`
	// NotOurs says why a resource that is not owned is not ours.
	NotOurs string `json:"notOurs,omitempty"`
}

// New returns an empty report for src, generated at now (kept in UTC).
func New(src Source, now time.Time) *Report {
	return &Report{
		APIVersion:  APIVersion,
		Kind:        Kind,
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

// SetTimings records where the pass spent its time in the summary. It is
// safe for concurrent use.
func (r *Report) SetTimings(t Timings) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Summary.Timings = &t
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
// entry in canonical order (journal, annotation, incomplete-create, scan,
// then any other); its found resources by ID.
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
