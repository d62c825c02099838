package failpoint

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// EnvVar is the environment variable that arms failpoints in a binary
// built with -tags failpoints.
const EnvVar = "INTENTJOURNAL_FAILPOINTS"

// Names of the points. Each names the moment a SIGKILL at it models.
const (
	// BeforeBegin is in the wrapped Create, after the intent is built and
	// before journal Begin: nothing is durable yet.
	BeforeBegin = "before-begin"
	// AfterBegin is in the wrapped Create, after Begin (the intent is in
	// the journal, or in annotation-only mode patched on the object) and
	// before the inner Create starts upjet's async create goroutine.
	AfterBegin = "after-begin"
	// AfterCreate is at the entry of the wrapped async create callback:
	// the cloud has answered (made the resource, or refused) and nothing
	// has recorded the answer.
	AfterCreate = "after-create"
	// AfterSettle is in the callback, after the intent is settled
	// succeeded with the external name and before the merge patch that
	// persists crossplane.io/external-name.
	AfterSettle = "after-settle"
	// RecoveryResolved is in the recovery pass, after each resolved
	// candidate: kill@N dies after the Nth, midway through the pass.
	RecoveryResolved = "recovery-resolved"
)

// Names returns every point name, in the order of the create path.
func Names() []string {
	return []string{BeforeBegin, AfterBegin, AfterCreate, AfterSettle, RecoveryResolved}
}

// Action is what an armed point does when it fires.
type Action string

// Actions.
const (
	// ActionKill sends SIGKILL to the process.
	ActionKill Action = "kill"
)

// Term arms one point: Action runs on the OnHit-th hit of Point.
type Term struct {
	Point  string
	Action Action
	// OnHit is the 1-based hit that fires the action.
	OnHit int
}

// String returns t in the syntax Parse reads.
func (t Term) String() string { return fmt.Sprintf("%s=%s@%d", t.Point, t.Action, t.OnHit) }

// ErrSyntax is wrapped by every error Parse returns.
var ErrSyntax = errors.New("failpoint: bad " + EnvVar)

// maxOnHit bounds N in action@N, so that a typo cannot arm a point that
// never fires while looking armed.
const maxOnHit = 1_000_000

// Parse reads a failpoint list, e.g. "after-begin=kill@3;recovery-resolved=kill".
// Empty terms (and an empty list) are allowed; a point may appear once.
// Whitespace around terms and their parts is ignored.
func Parse(s string) ([]Term, error) {
	var out []Term
	for raw := range strings.SplitSeq(s, ";") {
		term := strings.TrimSpace(raw)
		if term == "" {
			continue
		}
		t, err := parseTerm(term)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o Term) bool { return o.Point == t.Point }) {
			return nil, fmt.Errorf("%w: point %q is armed twice", ErrSyntax, t.Point)
		}
		out = append(out, t)
	}
	return out, nil
}

func parseTerm(term string) (Term, error) {
	name, spec, ok := strings.Cut(term, "=")
	if !ok {
		return Term{}, fmt.Errorf("%w: term %q is not point=action[@N]", ErrSyntax, term)
	}
	name, spec = strings.TrimSpace(name), strings.TrimSpace(spec)
	if !slices.Contains(Names(), name) {
		return Term{}, fmt.Errorf("%w: unknown point %q (known: %s)", ErrSyntax, name, strings.Join(Names(), ", "))
	}
	action, nth, hasN := strings.Cut(spec, "@")
	t := Term{Point: name, Action: Action(strings.TrimSpace(action)), OnHit: 1}
	if t.Action != ActionKill {
		return Term{}, fmt.Errorf("%w: point %q: unknown action %q (known: %s)", ErrSyntax, name, t.Action, ActionKill)
	}
	if hasN {
		n, err := strconv.Atoi(strings.TrimSpace(nth))
		if err != nil || n < 1 || n > maxOnHit {
			return Term{}, fmt.Errorf("%w: point %q: hit %q is not an integer in [1, %d]", ErrSyntax, name, nth, maxOnHit)
		}
		t.OnHit = n
	}
	return t, nil
}

// Format returns terms in the syntax Parse reads, for an environment
// variable.
func Format(terms ...Term) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = t.String()
	}
	return strings.Join(parts, ";")
}
