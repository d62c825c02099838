package recovery

import (
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Policy tunes a recovery pass.
type Policy struct {
	// Modes sets the mode per kind; kinds not listed use Default.
	Modes map[schema.GroupKind]Mode
	// Default is the mode of unlisted kinds; empty means ModeAdopt.
	Default Mode
	// DryRun decides and reports but changes nothing: no patches, no
	// journal writes, no deletes, no events.
	DryRun bool
	// DeleteOrphans deletes orphaned cloud resources whose ownership is
	// strongly proven (Proof.Strong: a UID tag, intent ID or recorded ID,
	// never crossplane tags alone), through the kind's Deleter. Off by
	// default. Look-alikes are never deleted.
	DeleteOrphans bool
	// ClockSkew is how far the cloud's clock may lag the provider's (see
	// Judge); zero means DefaultClockSkew.
	ClockSkew time.Duration
	// Concurrency is how many candidates are resolved at once (default 16).
	Concurrency int
	// LookupsPerSecond limits Finder calls across workers (0: unlimited).
	LookupsPerSecond float64
	// LookupTimeout bounds one Finder call (default 30s): a hanging cloud
	// API makes that candidate unresolved, never the pass hang.
	LookupTimeout time.Duration
	// LookupRetries is how many times a failed lookup or API call is
	// retried, with exponential backoff from RetryBackoff (defaults 3, 250ms).
	LookupRetries int
	RetryBackoff  time.Duration
	// ProgressInterval is how often progress is logged at info level
	// (default 10s); progress is also logged every ProgressEvery (default
	// 1000) resolved candidates.
	ProgressInterval time.Duration
	ProgressEvery    int
	// AdoptionEvents is how many Normal IntentAdopted Events one pass
	// (Run) posts; 0 means DefaultAdoptionEvents, a negative value no
	// limit. client-go's event recorder queues 1,000 Events and drops the
	// rest without a word: a pass that adopts thousands would lose most of
	// its Events, Warnings among them, and load the API server with the
	// others. Every adoption is in the report and in its resource's
	// intentjournal.io/recovered annotation; the report notes how many
	// went without an Event. Warning Events (conflicts, duplicates,
	// look-alikes) are never limited.
	AdoptionEvents int
}

// DefaultAdoptionEvents is Policy.AdoptionEvents' default: a tenth of
// client-go's event queue.
const DefaultAdoptionEvents = 100

// rules returns what Decide applies to the kind gk.
func (p Policy) rules(gk schema.GroupKind) Rules {
	return Rules{Mode: p.mode(gk), ClockSkew: p.ClockSkew}
}

func (p Policy) mode(gk schema.GroupKind) Mode {
	if m, ok := p.Modes[gk]; ok {
		return m
	}
	if p.Default != "" {
		return p.Default
	}
	return ModeAdopt
}

// Options configure Run.
type Options struct {
	// Journal holds the intents; nil means annotation-only mode.
	Journal *journal.Journal
	// Client reads and patches managed resources.
	Client client.Client
	// Reader, when set, serves a pass's reads of journal candidates'
	// managed resources instead of a GET through Client: in a provider,
	// the manager's cache, which its informers keep current and which
	// already holds every managed resource (adapter.New sets it). A cached
	// copy may lag the API server, so a decision made from one is carried
	// out only through a patch guarded by the copy's resourceVersion; on a
	// conflict the pass reads the resource once from Client, and decides
	// again when anything but its status conditions changed. A miss in
	// Reader (not found, another UID, any error) is read from Client.
	Reader client.Reader
	// Kinds are the managed kinds whose annotations are scanned.
	Kinds []schema.GroupVersionKind
	// Finders look up cloud resources, per kind.
	Finders map[schema.GroupKind]Finder
	// Deleters delete orphans under Policy.DeleteOrphans, per kind.
	Deleters map[schema.GroupKind]Deleter
	// Policy tunes the pass.
	Policy Policy
	// Gate, when set, is closed until the pass has discovered every
	// candidate, then opened per candidate as it is resolved.
	Gate *Gate
	// Sightings remembers when each unsettled intent was first taken up
	// (Candidate.DeadBy), across passes; nil means a new, empty one.
	Sightings *Sightings
	// Recorder, when set, receives Events on managed resources.
	Recorder record.EventRecorder
	// Logger logs progress at info level (zapr.NewLogger(z) for a
	// zap.Logger z); the zero Logger logs nothing.
	Logger logr.Logger
	// Source describes the pass in the report (cluster, owner, notes).
	Source report.Source
	// Scope, when set, limits the pass to the intents it returns true for
	// (the intents this replica owns, or whose owner is dead).
	Scope func(journal.Intent) bool
	// Selector, when set, limits the annotation scan to managed resources
	// whose labels it matches (a label shard's selector). Journal intents
	// are not filtered by it: they are this replica's own.
	Selector labels.Selector
	// IncompleteAge, when positive, holds back an incomplete create that
	// no intent explains (neither the journal nor an intent annotation
	// names its owner) until its crossplane.io/external-create-pending
	// mark is at least this old. crossplane-runtime writes that mark and
	// the create's result within one reconcile, which its timeout bounds:
	// a mark older than the timeout plus crossplane-runtime's 30s grace
	// was left by a reconcile that has ended, most likely by a process
	// that died. Zero takes every incomplete create at once, which is
	// right only while no reconciler of these resources runs (a first
	// pass, behind the Gate). The Recoverer sets it on its later passes.
	IncompleteAge time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}
