package scan

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/recovery"
)

// Reason says why scan took a managed resource up: which trace of a create
// that may have leaked it shows.
type Reason string

// The reasons, most pressing first: the order of Finding.Reasons.
const (
	// ReasonAlreadyExistsLoop: the managed resource's last create met
	// "already exists" (Synced False, or upjet's LastAsyncOperation False
	// with AsyncCreateFailure, with a message AlreadyExists matches). The
	// provider retries the create with backoff, forever: something holds
	// the key, most likely the create's own resource.
	ReasonAlreadyExistsLoop Reason = "AlreadyExistsLoop"
	// ReasonAsyncCreateFailed: upjet's async create failed
	// (LastAsyncOperation False, AsyncCreateFailure) for another reason,
	// a timeout or a provider error, and no external name is settled: the
	// cloud may have acted before the failure.
	ReasonAsyncCreateFailed Reason = "AsyncCreateFailed"
	// ReasonCreatePending: crossplane-runtime marked a create pending and
	// never recorded its result (crossplane.io/external-create-pending
	// newer than -succeeded and -failed). crossplane-runtime holds the
	// managed resource ("cannot determine creation result") until the mark
	// is removed.
	ReasonCreatePending Reason = "CreatePending"
	// ReasonCreateSucceededUnbound: crossplane-runtime recorded a create
	// as succeeded (crossplane.io/external-create-succeeded), which for
	// upjet's async create means only that it was dispatched, and no
	// external name is settled: absent, or equal to metadata.name on a
	// kind whose external name the cloud assigns. The managed resource is
	// not Ready. A provider killed while the create ran leaves this; on
	// restart it creates again.
	ReasonCreateSucceededUnbound Reason = "CreateSucceededUnbound"
)

// Reasons lists every reason, most pressing first.
var Reasons = []Reason{ReasonAlreadyExistsLoop, ReasonAsyncCreateFailed, ReasonCreatePending, ReasonCreateSucceededUnbound}

// Condition types and reasons scan reads: crossplane-runtime's and upjet's,
// the same in the v1 and v2 lines.
const (
	conditionReady              = "Ready"
	conditionSynced             = "Synced"
	conditionLastAsyncOperation = "LastAsyncOperation"
	reasonAsyncCreateFailure    = "AsyncCreateFailure"
)

// Facts are what Classify knows of a managed resource's kind.
type Facts struct {
	// CloudAssigned is true when the cloud assigns the kind's external
	// name (upjet's IdentifierFromProvider): an external name equal to
	// metadata.name, which crossplane-runtime's name initializer writes
	// before the create, is then no settled one.
	CloudAssigned bool
}

// Why Classify passes a managed resource over whatever traces it shows.
const (
	SkipPaused   = "paused"
	SkipDeleting = "being deleted"
	SkipBound    = "Ready and bound"
)

// Finding is what Classify read on one managed resource.
type Finding struct {
	// Reasons are why the managed resource is a candidate, most pressing
	// first; none when it is not one.
	Reasons []Reason
	// Evidence quotes the annotations and conditions behind each reason,
	// one sentence each, in the order of Reasons.
	Evidence []string
	// Skip says why a managed resource was passed over whatever it shows:
	// SkipPaused, SkipDeleting or SkipBound; "" otherwise.
	Skip string
	// Held is true when crossplane-runtime holds the managed resource's
	// create (ReasonCreatePending): it creates nothing until the pending
	// mark is removed, so it needs no pause.
	Held bool
	// LastCreate is when the create the reasons point at began, as far as
	// the annotations tell (the pending mark, else the succeeded mark);
	// zero when they tell nothing. For a managed resource passed over as
	// SkipBound, when its latest create began (Options.Copies).
	LastCreate time.Time
}

// Candidate reports whether the managed resource is a scan candidate.
func (f Finding) Candidate() bool { return len(f.Reasons) > 0 }

// Has reports whether r is one of the finding's reasons.
func (f Finding) Has(r Reason) bool { return slices.Contains(f.Reasons, r) }

// Classify reads the traces a create leaves on a managed resource of a
// stock provider (crossplane-runtime's create annotations, the external
// name, the Ready, Synced and LastAsyncOperation conditions) and says
// whether the create may have leaked, and why. A managed resource that is
// paused, being deleted, or Ready with its external name settled is never
// a candidate. It is a pure function of obj, which it never changes.
func Classify(obj *unstructured.Unstructured, f Facts) Finding {
	var out Finding
	a := obj.GetAnnotations()
	switch {
	case obj.GetDeletionTimestamp() != nil:
		out.Skip = SkipDeleting
		return out
	case a[recovery.AnnotationPaused] == "true":
		out.Skip = SkipPaused
		return out
	}
	en := a[recovery.AnnotationExternalName]
	bound := en != "" && !(f.CloudAssigned && en == obj.GetName())
	conds := conditions(obj.Object)
	ready, _ := conds.of(conditionReady)
	isReady := ready.Status == "True"
	if isReady && bound {
		out.Skip = SkipBound
		out.LastCreate = lastCreate(a)
		return out
	}
	unbound := "absent"
	if en != "" {
		unbound = "equal to metadata.name, which the cloud does not assign to this kind"
	}

	// Reasons are added in their order (Reasons), most pressing first.
	add := func(r Reason, evidence string) {
		if !out.Has(r) {
			out.Reasons = append(out.Reasons, r)
			out.Evidence = append(out.Evidence, evidence)
		}
	}
	// A create that met "already exists", in either condition upjet and
	// crossplane-runtime report it in.
	if synced, ok := conds.of(conditionSynced); ok && synced.Status == "False" && CreateFailed(synced.Message) {
		if _, exists := AlreadyExists(synced.Message); exists {
			add(ReasonAlreadyExistsLoop, synced.evidence())
		}
	}
	last, hasLast := conds.of(conditionLastAsyncOperation)
	if hasLast && last.Status == "False" && last.Reason == reasonAsyncCreateFailure {
		if _, exists := AlreadyExists(last.Message); exists {
			add(ReasonAlreadyExistsLoop, last.evidence())
		} else if !bound {
			add(ReasonAsyncCreateFailed, fmt.Sprintf("%s, and crossplane.io/external-name is %s", last.evidence(), unbound))
		}
	}
	pending, succeeded, failed := annotationTime(a, recovery.AnnotationExternalCreatePending),
		annotationTime(a, recovery.AnnotationExternalCreateSucceed), annotationTime(a, recovery.AnnotationExternalCreateFailed)
	switch {
	case recovery.CreateIncomplete(a):
		add(ReasonCreatePending, fmt.Sprintf("crossplane.io/external-create-pending is %s, newer than -succeeded (%s) and -failed (%s): a create began and its result was never recorded",
			stamp(pending), stamp(succeeded), stamp(failed)))
		out.Held, out.LastCreate = true, pending
	case !succeeded.IsZero() && !bound && !isReady:
		add(ReasonCreateSucceededUnbound, fmt.Sprintf("crossplane.io/external-create-succeeded is %s, crossplane.io/external-name is %s, and Ready is %s",
			stamp(succeeded), unbound, orAbsent(ready.Status)))
		out.LastCreate = succeeded
	}
	if len(out.Reasons) == 0 {
		out.Reasons, out.Evidence = nil, nil
	}
	return out
}

// lastCreate is when the latest create the annotations record began: the
// pending mark, else the succeeded mark; zero when neither is set.
func lastCreate(a map[string]string) time.Time {
	pending, succeeded := annotationTime(a, recovery.AnnotationExternalCreatePending), annotationTime(a, recovery.AnnotationExternalCreateSucceed)
	if pending.After(succeeded) {
		return pending
	}
	return succeeded
}

// annotationTime parses the RFC 3339 time crossplane-runtime writes into
// its create annotations; zero when absent or unparsable, as
// crossplane-runtime reads them.
func annotationTime(a map[string]string, key string) time.Time {
	t, err := time.Parse(time.RFC3339, a[key])
	if err != nil {
		return time.Time{}
	}
	return t
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "absent"
	}
	return t.UTC().Format(time.RFC3339)
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// maxQuoted bounds a condition message quoted as evidence: a Terraform
// diagnostic can run to kilobytes.
const maxQuoted = 300

// quote returns s, cut to maxQuoted bytes on a rune boundary.
func quote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
