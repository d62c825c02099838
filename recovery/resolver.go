package recovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Crossplane annotations recovery reads and writes. The keys are the same in
// crossplane-runtime v1 and v2.
const (
	AnnotationExternalName          = "crossplane.io/external-name"
	AnnotationExternalCreatePending = "crossplane.io/external-create-pending"
	AnnotationExternalCreateSucceed = "crossplane.io/external-create-succeeded"
	AnnotationExternalCreateFailed  = "crossplane.io/external-create-failed"
	AnnotationPaused                = "crossplane.io/paused"
)

// AnnotationRecovered records on a managed resource what the last recovery
// pass did to it: "<outcome> <RFC 3339 time>", e.g. "cleared
// 2026-11-22T09:10:00Z". Besides telling an operator, it wakes the
// provider's reconciler: crossplane-runtime's DesiredStateChanged event
// filter, which upjet providers use, ignores changes to
// external-create-pending, so a patch that only removed it would leave the
// resource waiting on "cannot determine creation result" until the next
// cache resync (an hour by default).
const AnnotationRecovered = "intentjournal.io/recovered"

// Run resolves every unsettled create intent once and returns the report.
// It returns an error only when the pass could not run (a scan failed, the
// context ended); everything it could not decide is in the report as
// unresolved, and stays blocked in the Gate.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	r, err := NewResolver(o)
	if err != nil {
		return nil, err
	}
	return r.Run(ctx)
}

// Resolver resolves candidates. Run uses one for a whole pass; the create
// path uses Resolve for a single resource.
type Resolver struct {
	o       Options
	log     *zap.Logger
	limiter *rate.Limiter
	strings sync.Map // interned apiVersion and kind strings for report entries
	// clock sums the time spent per phase; Run reports a pass's share.
	clock *stopwatch
}

// intern returns one shared copy of s: a pass keeps an entry per intent,
// and a few kinds repeat across all of them.
func (r *Resolver) intern(s string) string {
	v, _ := r.strings.LoadOrStore(s, s)
	return v.(string)
}

// NewResolver checks o and fills in defaults.
func NewResolver(o Options) (*Resolver, error) {
	if o.Client == nil {
		return nil, errors.New("recovery: a Kubernetes client is required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sightings == nil {
		o.Sightings = NewSightings()
	}
	p := &o.Policy
	if p.Concurrency <= 0 {
		p.Concurrency = 16
	}
	if p.LookupTimeout <= 0 {
		p.LookupTimeout = 30 * time.Second
	}
	if p.LookupRetries < 0 {
		p.LookupRetries = 0
	} else if p.LookupRetries == 0 {
		p.LookupRetries = 3
	}
	if p.RetryBackoff <= 0 {
		p.RetryBackoff = 250 * time.Millisecond
	}
	if p.ProgressInterval <= 0 {
		p.ProgressInterval = 10 * time.Second
	}
	if p.ProgressEvery <= 0 {
		p.ProgressEvery = 1000
	}
	if p.AdoptionEvents == 0 {
		p.AdoptionEvents = DefaultAdoptionEvents
	}
	lim := rate.NewLimiter(rate.Inf, 1)
	if p.LookupsPerSecond > 0 {
		lim = rate.NewLimiter(rate.Limit(p.LookupsPerSecond), max(1, int(p.LookupsPerSecond)))
	}
	if o.Journal != nil && o.Source.Journal == "" {
		o.Source.Journal = o.Journal.Path()
	}
	o.Source.DryRun = p.DryRun
	return &Resolver{o: o, log: logging.Zap(o.Logger).Named("recovery"), limiter: lim, clock: &stopwatch{now: o.Now}}, nil
}

// Run resolves every unsettled create intent once. See the package Run.
// The report's summary carries the pass's Timings: what this Resolver's
// phases spent from the start of the pass to its end (a Resolve called on
// the same Resolver meanwhile, outside the pass, would count too).
func (r *Resolver) Run(ctx context.Context) (*report.Report, error) {
	start := r.o.Now()
	before := r.clock.snapshot(0)
	rep := report.New(r.o.Source, start)
	events := &eventBudget{left: r.o.Policy.AdoptionEvents}
	ctx = withEventBudget(ctx, events)
	prog := newProgress(r.log, r.o.Policy.ProgressEvery)
	r.log.Info("recovery pass starting",
		zap.Bool("journal", r.o.Journal != nil), zap.Int("kinds", len(r.o.Kinds)),
		zap.Bool("dry-run", r.o.Policy.DryRun), zap.Int("concurrency", r.o.Policy.Concurrency))

	work := make(chan *Candidate, 2*r.o.Policy.Concurrency)
	var wg sync.WaitGroup
	for range r.o.Policy.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				for _, e := range r.Resolve(ctx, c) {
					rep.Add(e)
					prog.done(e.Outcome)
				}
				failpoint.Hit(failpoint.RecoveryResolved)
			}
		}()
	}
	tick := time.NewTicker(r.o.Policy.ProgressInterval)
	stopTick := make(chan struct{})
	go func() {
		for {
			select {
			case <-tick.C:
				prog.log("recovery progress")
			case <-stopTick:
				return
			}
		}
	}()

	seen := map[types.UID]struct{}{}
	quarantined := map[types.UID]struct{}{}
	// waited is the time discovery spent waiting for a free worker: it is
	// the workers' time, not discovery's.
	var waited time.Duration
	emit := func(c *Candidate) bool {
		uid := types.UID(c.Intent.Resource.UID)
		seen[uid] = struct{}{}
		if r.o.Gate != nil {
			r.o.Gate.Block(uid, fmt.Sprintf("intent %s of %s is being recovered", c.Intent.ID, c.Intent.Resource))
		}
		prog.found()
		select {
		case work <- c:
			return true
		default:
		}
		t := r.o.Now()
		defer func() { waited += r.o.Now().Sub(t) }()
		select {
		case work <- c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	discoverStart := r.o.Now()
	err := r.discoverJournal(ctx, rep, seen, quarantined, emit)
	if err == nil {
		err = r.discoverAnnotations(ctx, seen, quarantined, emit)
	}
	r.clock.add(phaseDiscover, r.o.Now().Sub(discoverStart)-waited)
	if err == nil && r.o.Gate != nil {
		r.o.Gate.MarkScanned()
	}
	close(work)
	wg.Wait()
	tick.Stop()
	close(stopTick)
	if n := events.withheldEvents(); n > 0 {
		note := fmt.Sprintf("%d adoptions have no %s Event: a pass posts at most %d (Policy.AdoptionEvents); each is in this report and in its resource's %s annotation",
			n, EventAdopted, r.o.Policy.AdoptionEvents, AnnotationRecovered)
		rep.AddNote(note)
		r.log.Info("adoption Events limited", zap.Int("withheld", n), zap.Int("posted", r.o.Policy.AdoptionEvents))
	}
	rep.Sort()
	timings := timingsSince(r.clock.snapshot(r.o.Now().Sub(start)), before)
	rep.SetTimings(timings)
	prog.log("recovery pass finished", timingFields(timings)...)
	if err != nil {
		return rep, fmt.Errorf("recovery: %w", err)
	}
	return rep, nil
}

// Resolve resolves one candidate: reads its managed resource (for journal
// candidates), looks it up in the cloud, decides, and carries the decision
// out. It returns the report entries: one for the candidate, plus one per
// orphaned duplicate. The create path calls it for a single resource.
func (r *Resolver) Resolve(ctx context.Context, c *Candidate) []report.Entry {
	if c.Object != nil || !c.inJournal || r.o.Reader == nil {
		return r.resolve(ctx, c)
	}
	// The candidate may be resolved from a cached copy: keep what
	// discovery found, to decide again from a live read if the copy
	// proves stale.
	orig := *c
	orig.Sources = slices.Clone(c.Sources)
	entries := r.resolve(ctx, c)
	if !c.stale {
		return entries
	}
	r.clock.tally(counterReread)
	r.log.Debug("cached copy was stale; deciding again from a live read", zap.Stringer("resource", c.Intent.Resource))
	*c = orig
	c.live = true
	return r.resolve(ctx, c)
}

// resolve is Resolve without the second decision a stale cached copy
// calls for.
func (r *Resolver) resolve(ctx context.Context, c *Candidate) []report.Entry {
	if c.Object == nil && c.inJournal {
		t := r.o.Now()
		obj, err := r.readCandidate(ctx, c)
		r.clock.since(phaseRead, t)
		switch {
		case meta.IsNoMatchError(err):
			return r.finish(ctx, c, Decision{Outcome: report.OutcomeUnresolved, Reason: ReasonCRDMissing,
				Message: fmt.Sprintf("the API server does not serve %s: is its CRD installed?", c.GVK),
				Action:  fmt.Sprintf("install the CRD of %s, then rerun: intentjournal recover", c.GVK.GroupKind())})
		case err != nil && !apierrors.IsNotFound(err):
			return r.finish(ctx, c, Decision{Outcome: report.OutcomeUnresolved, Reason: ReasonAPIServerError,
				Message: fmt.Sprintf("cannot read %s: %v", c.Intent.Resource, err),
				Action:  "check the API server and the recovery's RBAC, then rerun: intentjournal recover"})
		case err == nil:
			r.merge(c, obj)
		}
	}
	finder := r.o.Finders[c.GVK.GroupKind()]
	if finder == nil {
		return r.finish(ctx, c, Decision{Outcome: report.OutcomeUnresolved, Reason: ReasonNoFinder,
			Message: fmt.Sprintf("no Finder is configured for %s", c.GVK.GroupKind()),
			Action:  "configure a finder for this kind, then rerun: intentjournal recover"})
	}
	t := r.o.Now()
	c.DeadBy = r.o.Sightings.First(c, t)
	found, err := r.lookup(ctx, finder, c)
	r.clock.since(phaseLookup, t)
	rules := r.o.Policy.rules(c.GVK.GroupKind())
	rules.AbsenceUnproven = AbsenceUnproven(finder, c)
	rules.AbsenceProvenAt, rules.Now = AbsenceProvenAt(finder, c), r.o.Now()
	return r.finish(ctx, c, Decide(c, found, err, rules))
}

// readCandidate fetches the candidate's managed resource for a decision:
// from Options.Reader when one is set and no cached copy of it proved
// stale, else from the API server. A miss in the Reader is no proof of
// anything (an informer not synced, a cache scoped to other namespaces or
// labels, a resource created since): it is read from the API server.
func (r *Resolver) readCandidate(ctx context.Context, c *Candidate) (*unstructured.Unstructured, error) {
	c.cached = false
	if r.o.Reader != nil && !c.live {
		obj, err := r.readFrom(c, func(key client.ObjectKey, obj *unstructured.Unstructured) error {
			return r.o.Reader.Get(ctx, key, obj)
		})
		if err == nil {
			c.cached = true
			r.clock.tally(counterCacheRead)
			return obj, nil
		}
		r.log.Debug("cache miss; reading from the API server", zap.Stringer("resource", c.Intent.Resource), zap.Error(err))
	}
	return r.read(ctx, c)
}

// read fetches the candidate's managed resource from the API server.
func (r *Resolver) read(ctx context.Context, c *Candidate) (*unstructured.Unstructured, error) {
	return r.readFrom(c, func(key client.ObjectKey, obj *unstructured.Unstructured) error {
		return r.retryAPI(ctx, func() error { return r.o.Client.Get(ctx, key, obj) })
	})
}

// readFrom fetches the candidate's managed resource with get, and
// reports a resource of the same name but another UID as not found.
func (r *Resolver) readFrom(c *Candidate, get func(client.ObjectKey, *unstructured.Unstructured) error) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(c.GVK)
	key := client.ObjectKey{Namespace: c.Intent.Resource.Namespace, Name: c.Intent.Resource.Name}
	if err := get(key, obj); err != nil {
		return nil, err
	}
	if string(obj.GetUID()) != c.Intent.Resource.UID {
		// Same name, new object: the one the intent was for is gone.
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: c.GVK.Group, Resource: c.GVK.Kind}, key.Name)
	}
	return obj, nil
}

// merge attaches the resource to a journal candidate, taking the
// annotation's intent instead when a newer epoch wrote it.
func (r *Resolver) merge(c *Candidate, obj *unstructured.Unstructured) {
	c.Object = obj
	if createIncomplete(obj.GetAnnotations()) {
		c.Sources = append(c.Sources, report.SourceIncompleteCreate)
	}
	ann, has, err := journal.AnnotationIntent(obj.GetAnnotations())
	if !has || err != nil {
		return
	}
	c.Sources = append(c.Sources, report.SourceAnnotation)
	if ann.ID != c.Intent.ID && journal.CompareEpoch(ann.Owner.Epoch, c.Intent.Owner.Epoch) > 0 {
		ref, keys := c.Intent.Resource, c.Intent.LookupKeys
		c.Intent = ann
		c.Intent.Resource = ref
		if c.Intent.LookupKeys == nil {
			c.Intent.LookupKeys = keys
		}
		// The journal's own intent is older: settle it along with this one.
	}
}

// lookup calls the finder under the rate limit and timeout, retrying
// failures with exponential backoff from Policy.RetryBackoff. A failed wait
// for the rate limiter, or the end of ctx, is not retried.
func (r *Resolver) lookup(ctx context.Context, f Finder, c *Candidate) ([]ExternalResource, error) {
	var found []ExternalResource
	err := r.retry(ctx, r.o.Policy.RetryBackoff, func(attempt int) (bool, error) {
		if err := r.limiter.Wait(ctx); err != nil {
			return false, err
		}
		lctx, cancel := context.WithTimeout(ctx, r.o.Policy.LookupTimeout)
		res, err := f.Find(lctx, c)
		if err == nil && lctx.Err() != nil {
			err = lctx.Err()
		}
		cancel()
		if err == nil {
			found = res
			return false, nil
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("lookup timed out after %s: %w", r.o.Policy.LookupTimeout, err)
		}
		r.log.Debug("lookup failed", zap.Stringer("resource", c.Intent.Resource), zap.Int("attempt", attempt+1), zap.Error(err))
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// ResolveObject resolves the unsettled create of one managed resource, as
// the create path does before creating again (an intent from an earlier
// process, or a 409). It merges the journal's intent for the resource's UID
// with its annotation, like a pass would. It returns ok false, and no
// entries, when the resource has nothing unsettled.
func (r *Resolver) ResolveObject(ctx context.Context, obj *unstructured.Unstructured) (entries []report.Entry, ok bool, err error) {
	gvk := obj.GroupVersionKind()
	c, found := r.annotationCandidate(obj, gvk)
	if !found {
		c = &Candidate{GVK: gvk, Object: obj, Intent: journal.Intent{Resource: refOf(obj)}}
	}
	if j := r.o.Journal; j != nil {
		in, err := j.Get(ctx, string(obj.GetUID()))
		switch {
		case err == nil && in.Unsettled():
			c.Intent, c.inJournal = in, true
			c.Sources = append([]string{report.SourceJournal}, c.Sources...)
			c.Object = nil // merge re-attaches it, weighing the annotation's epoch
			r.merge(c, obj)
			found = true
		case errors.Is(err, journal.ErrCorrupt):
			c.quarantined = true
			c.Sources = append([]string{report.SourceJournal}, c.Sources...)
			found = true
		case err != nil && !errors.Is(err, journal.ErrNotFound):
			return nil, false, fmt.Errorf("cannot read the journal for %s: %w", refOf(obj), err)
		}
	}
	if !found {
		return nil, false, nil
	}
	return r.Resolve(ctx, c), true, nil
}
