package scan

import (
	"errors"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Options configure Run.
type Options struct {
	// Client lists the managed resources and, under Apply, patches them.
	Client client.Client
	// Kinds are the managed kinds to scan (DiscoverKinds finds a
	// provider's).
	Kinds []schema.GroupVersionKind
	// Resources name each kind's resource (plural.group) for the kubectl
	// commands of the report; a kind not listed is looked up in Client's
	// RESTMapper, else named kind.group in lower case.
	Resources map[schema.GroupVersionKind]string
	// Finders look up, per kind, the cloud resources a candidate's create
	// may have made: the recovery pass's finders. A candidate of a kind
	// without one is reported unresolved (NoFinderForKind).
	Finders map[schema.GroupKind]recovery.Finder
	// CloudAssigned lists the kinds whose external name the cloud assigns
	// (upjet's IdentifierFromProvider): for them an external name equal to
	// metadata.name is not a settled one (Facts.CloudAssigned).
	CloudAssigned map[schema.GroupKind]bool
	// MinAge, when positive, passes over a managed resource whose only
	// reasons are a pending or succeeded create younger than MinAge: on a
	// running provider such a create may still be under way. A loop on
	// "already exists" or a failed async create is never passed over: that
	// create has ended. The report's notes count what was passed over.
	MinAge time.Duration
	// Copies, when positive, also looks up each managed resource that is
	// bound (Ready or not yet) and whose latest create began less than Copies ago,
	// through its kind's finder, and reports as an orphan
	// (recovery.ReasonUnboundCopy) every resource found that no scanned managed
	// resource names as its external name: the first copy of a create a
	// restarted provider made again, which no trace on the managed
	// resource shows (copies.go). It costs a lookup per such managed
	// resource. Nothing is done about a copy under Apply.
	Copies time.Duration
	// Apply carries out what the scan's policy allows: pause a managed
	// resource whose entry needs an operator (a loop on "already exists"
	// among them), unless crossplane-runtime holds its create already;
	// adopt a cloud resource proven the create's by a strong proof. It
	// never deletes, and never clears. Without Apply, nothing is written.
	Apply bool
	// Policy tunes the lookups as it tunes a recovery pass's
	// (Concurrency, LookupTimeout, LookupsPerSecond, LookupRetries,
	// RetryBackoff, ClockSkew, ProgressInterval). Its Modes, Default,
	// DryRun, DeleteOrphans and AdoptionEvents are the scan's own and
	// ignored.
	Policy recovery.Policy
	// Recorder, when set, receives an Event for each action Apply carries
	// out. Nothing is posted without Apply.
	Recorder record.EventRecorder
	// Logger logs progress at info level; the zero Logger logs nothing.
	Logger logr.Logger
	// Source describes the scan in the report (cluster, owner, notes);
	// Run sets its DryRun to !Apply.
	Source report.Source
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// errNoClient is Run's error for Options without a client.
var errNoClient = errors.New("scan: a Kubernetes client is required")
