package recovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
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

// Event reasons recovery emits on managed resources.
const (
	EventAdopted   = "IntentAdopted"
	EventConflict  = "IntentConflict"
	EventDuplicate = "IntentOrphanedDuplicate"
	EventLookAlike = "IntentLookAlikeNotOurs"
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
}

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
	// Recorder, when set, receives Events on managed resources.
	Recorder record.EventRecorder
	// Logger logs progress at info level; nil means no logs.
	Logger *zap.Logger
	// Source describes the pass in the report (cluster, owner, notes).
	Source Source
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

// Run resolves every unsettled create intent once and returns the report.
// It returns an error only when the pass could not run (a scan failed, the
// context ended); everything it could not decide is in the report as
// unresolved, and stays blocked in the Gate.
func Run(ctx context.Context, o Options) (*Report, error) {
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
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
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
	lim := rate.NewLimiter(rate.Inf, 1)
	if p.LookupsPerSecond > 0 {
		lim = rate.NewLimiter(rate.Limit(p.LookupsPerSecond), max(1, int(p.LookupsPerSecond)))
	}
	if o.Journal != nil && o.Source.Journal == "" {
		o.Source.Journal = o.Journal.Path()
	}
	o.Source.DryRun = p.DryRun
	return &Resolver{o: o, log: o.Logger.Named("recovery"), limiter: lim}, nil
}

// Run resolves every unsettled create intent once. See the package Run.
func (r *Resolver) Run(ctx context.Context) (*Report, error) {
	start := r.o.Now()
	rep := NewReport(r.o.Source, start)
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
		case <-ctx.Done():
			return false
		}
	}
	err := r.discoverJournal(ctx, rep, seen, quarantined, emit)
	if err == nil {
		err = r.discoverAnnotations(ctx, seen, quarantined, emit)
	}
	if err == nil && r.o.Gate != nil {
		r.o.Gate.MarkScanned()
	}
	close(work)
	wg.Wait()
	tick.Stop()
	close(stopTick)
	rep.Sort()
	prog.log("recovery pass finished")
	if err != nil {
		return rep, fmt.Errorf("recovery: %w", err)
	}
	return rep, nil
}

// discoverJournal emits a candidate per unsettled journal intent in scope.
// An intent out of scope (a create this process is running now) marks its
// UID seen all the same: the annotation scan must not take the resource up
// again as an incomplete create of unknown owner, since the journal knows
// its owner.
func (r *Resolver) discoverJournal(ctx context.Context, rep *Report, seen, quarantined map[types.UID]struct{}, emit func(*Candidate) bool) error {
	if r.o.Journal == nil {
		return nil
	}
	for in, err := range r.o.Journal.Unsettled(ctx) {
		var ce *journal.CorruptError
		switch {
		case errors.As(err, &ce):
			// What this record said is lost. The resource's annotation,
			// found by the annotation scan, may still tell; until then
			// the UID stays quarantined and Begin refuses it.
			r.log.Warn("journal record unreadable; relying on the resource's annotation", zap.String("uid", ce.Key), zap.Error(err))
			rep.AddNote(fmt.Sprintf("journal record %s is corrupt and quarantined; resolved from its annotation if the resource has one", ce.Key))
			quarantined[types.UID(ce.Key)] = struct{}{}
			continue
		case errors.Is(err, journal.ErrUnsupportedVersion):
			rep.AddNote(err.Error())
			continue
		case err != nil:
			return fmt.Errorf("cannot scan the journal: %w", err)
		}
		if r.o.Scope != nil && !r.o.Scope(in) {
			seen[types.UID(in.Resource.UID)] = struct{}{}
			continue
		}
		c := &Candidate{Intent: in, Sources: []string{SourceJournal}, inJournal: true}
		c.GVK = schema.FromAPIVersionAndKind(in.Resource.APIVersion, in.Resource.Kind)
		if !emit(c) {
			return ctx.Err()
		}
	}
	return nil
}

// discoverAnnotations lists every managed kind and emits a candidate per
// resource with an unsettled intent annotation or an incomplete create that
// the journal did not already yield.
func (r *Resolver) discoverAnnotations(ctx context.Context, seen, quarantined map[types.UID]struct{}, emit func(*Candidate) bool) error {
	for _, gvk := range r.o.Kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		cont := ""
		for {
			err := r.retryAPI(ctx, func() error {
				opts := []client.ListOption{client.Limit(500), client.Continue(cont)}
				if r.o.Selector != nil {
					opts = append(opts, client.MatchingLabelsSelector{Selector: r.o.Selector})
				}
				return r.o.Client.List(ctx, list, opts...)
			})
			if meta.IsNoMatchError(err) {
				r.log.Warn("managed kind is not served; skipping", zap.String("kind", gvk.String()))
				break
			}
			if err != nil {
				return fmt.Errorf("cannot list %s: %w", gvk.Kind, err)
			}
			for i := range list.Items {
				obj := &list.Items[i]
				if _, ok := seen[obj.GetUID()]; ok {
					continue
				}
				c, ok := r.annotationCandidate(obj, gvk)
				if !ok || (r.o.Scope != nil && !r.o.Scope(c.Intent)) || r.tooRecent(c) {
					continue
				}
				if _, q := quarantined[obj.GetUID()]; q {
					c.quarantined = true
					c.Sources = append([]string{SourceJournal}, c.Sources...)
				}
				if !emit(c) {
					return ctx.Err()
				}
			}
			if cont = list.GetContinue(); cont == "" {
				break
			}
		}
	}
	return nil
}

// annotationCandidate reports whether obj has an unsettled create.
func (r *Resolver) annotationCandidate(obj *unstructured.Unstructured, gvk schema.GroupVersionKind) (*Candidate, bool) {
	c := &Candidate{GVK: gvk, Object: obj}
	in, has, err := journal.AnnotationIntent(obj.GetAnnotations())
	switch {
	case has && err != nil:
		// Unreadable: resolve from the resource's identity alone.
		r.log.Warn("intent annotation unreadable; resolving by the resource's identity", zap.String("resource", obj.GetName()), zap.Error(err))
		c.Sources = append(c.Sources, SourceAnnotation)
	case has && in.Unsettled():
		c.Intent = in
		c.Sources = append(c.Sources, SourceAnnotation)
	}
	if createIncomplete(obj.GetAnnotations()) {
		c.Sources = append(c.Sources, SourceIncompleteCreate)
	}
	if len(c.Sources) == 0 {
		return nil, false
	}
	c.Intent.Resource = refOf(obj)
	return c, true
}

func refOf(obj *unstructured.Unstructured) journal.ResourceRef {
	return journal.ResourceRef{
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(),
		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: string(obj.GetUID()),
	}
}

// tooRecent reports whether c is an incomplete create that no intent
// explains and whose pending mark is younger than Options.IncompleteAge:
// the reconcile that wrote the mark may still be running.
func (r *Resolver) tooRecent(c *Candidate) bool {
	if r.o.IncompleteAge <= 0 || c.Intent.Owner != (journal.Owner{}) || !slices.Contains(c.Sources, SourceIncompleteCreate) {
		return false
	}
	pending, err := time.Parse(time.RFC3339, c.Object.GetAnnotations()[AnnotationExternalCreatePending])
	if err != nil {
		// createIncomplete parsed it; unreachable but for a change
		// between the two reads. Wait for a later pass.
		return true
	}
	return r.o.Now().Sub(pending) < r.o.IncompleteAge
}

// createIncomplete is crossplane-runtime's meta.ExternalCreateIncomplete on
// an annotation map: a create started (pending) after the last recorded
// success or failure.
func createIncomplete(a map[string]string) bool {
	parse := func(k string) time.Time {
		t, err := time.Parse(time.RFC3339, a[k])
		if err != nil {
			return time.Time{}
		}
		return t
	}
	pending := parse(AnnotationExternalCreatePending)
	if pending.IsZero() {
		return false
	}
	latest := parse(AnnotationExternalCreateSucceed)
	if f := parse(AnnotationExternalCreateFailed); f.After(latest) {
		latest = f
	}
	return pending.After(latest)
}

// Resolve resolves one candidate: reads its managed resource (for journal
// candidates), looks it up in the cloud, decides, and carries the decision
// out. It returns the report entries: one for the candidate, plus one per
// orphaned duplicate. The create path calls it for a single resource.
func (r *Resolver) Resolve(ctx context.Context, c *Candidate) []Entry {
	if c.Object == nil && c.inJournal {
		obj, err := r.read(ctx, c)
		switch {
		case meta.IsNoMatchError(err):
			return r.finish(ctx, c, Decision{Outcome: OutcomeUnresolved, Reason: ReasonCRDMissing,
				Message: fmt.Sprintf("the API server does not serve %s: is its CRD installed?", c.GVK),
				Action:  fmt.Sprintf("install the CRD of %s, then rerun: intentjournal recover", c.GVK.GroupKind())})
		case err != nil && !apierrors.IsNotFound(err):
			return r.finish(ctx, c, Decision{Outcome: OutcomeUnresolved, Reason: "APIServerError",
				Message: fmt.Sprintf("cannot read %s: %v", c.Intent.Resource, err),
				Action:  "check the API server and the recovery's RBAC, then rerun: intentjournal recover"})
		case err == nil:
			r.merge(c, obj)
		}
	}
	finder := r.o.Finders[c.GVK.GroupKind()]
	if finder == nil {
		return r.finish(ctx, c, Decision{Outcome: OutcomeUnresolved, Reason: ReasonNoFinder,
			Message: fmt.Sprintf("no Finder is configured for %s", c.GVK.GroupKind()),
			Action:  "configure a finder for this kind, then rerun: intentjournal recover"})
	}
	found, err := r.lookup(ctx, finder, c)
	return r.finish(ctx, c, Decide(c, found, err, r.o.Policy.rules(c.GVK.GroupKind())))
}

// read fetches the candidate's managed resource.
func (r *Resolver) read(ctx context.Context, c *Candidate) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(c.GVK)
	key := client.ObjectKey{Namespace: c.Intent.Resource.Namespace, Name: c.Intent.Resource.Name}
	err := r.retryAPI(ctx, func() error { return r.o.Client.Get(ctx, key, obj) })
	if err != nil {
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
		c.Sources = append(c.Sources, SourceIncompleteCreate)
	}
	ann, has, err := journal.AnnotationIntent(obj.GetAnnotations())
	if !has || err != nil {
		return
	}
	c.Sources = append(c.Sources, SourceAnnotation)
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
// failures with exponential backoff.
func (r *Resolver) lookup(ctx context.Context, f Finder, c *Candidate) ([]ExternalResource, error) {
	var err error
	backoff := r.o.Policy.RetryBackoff
	for attempt := 0; attempt <= r.o.Policy.LookupRetries; attempt++ {
		if attempt > 0 {
			if !sleep(ctx, backoff) {
				return nil, ctx.Err()
			}
			backoff *= 2
		}
		if err = r.limiter.Wait(ctx); err != nil {
			return nil, err
		}
		lctx, cancel := context.WithTimeout(ctx, r.o.Policy.LookupTimeout)
		var found []ExternalResource
		found, err = f.Find(lctx, c)
		if err == nil && lctx.Err() != nil {
			err = lctx.Err()
		}
		cancel()
		if err == nil {
			return found, nil
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("lookup timed out after %s: %w", r.o.Policy.LookupTimeout, err)
		}
		r.log.Debug("lookup failed", zap.Stringer("resource", c.Intent.Resource), zap.Int("attempt", attempt+1), zap.Error(err))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return nil, err
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryAPI retries an API call on errors that a fresh attempt may cure:
// the server unreachable, overloaded or timing out.
func (r *Resolver) retryAPI(ctx context.Context, call func() error) error {
	backoff := r.o.Policy.RetryBackoff
	var err error
	for attempt := 0; attempt <= r.o.Policy.LookupRetries; attempt++ {
		if attempt > 0 && !sleep(ctx, backoff) {
			return ctx.Err()
		}
		backoff *= 2
		if err = call(); err == nil || !transient(err) {
			return err
		}
	}
	return err
}

func transient(err error) bool {
	var ne net.Error
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || errors.As(err, &ne) ||
		strings.Contains(err.Error(), "connection refused")
}

// finish carries out d (unless dry-run), settles the journal, opens the
// gate for a resolved candidate and returns the report entries.
func (r *Resolver) finish(ctx context.Context, c *Candidate, d Decision) []Entry {
	if !r.o.Policy.DryRun {
		if err := r.apply(ctx, c, &d); err != nil {
			d = Decision{Outcome: OutcomeUnresolved, Reason: "ApplyFailed", Found: d.Found,
				Message: fmt.Sprintf("decided %s for %s but could not carry it out: %v", d.Outcome, c.Intent.Resource, err),
				Action:  "check the API server and the recovery's RBAC, then rerun: intentjournal recover"}
		}
	}
	uid := types.UID(c.Intent.Resource.UID)
	if r.o.Gate != nil {
		if d.Outcome == OutcomeUnresolved {
			r.o.Gate.Block(uid, d.Reason+": "+d.Message)
		} else {
			r.o.Gate.Unblock(uid)
		}
	}
	fields := []zap.Field{
		zap.Stringer("resource", c.Intent.Resource), zap.String("outcome", string(d.Outcome)),
		zap.String("reason", d.Reason), zap.Stringer("intent-id", c.Intent.ID),
	}
	if d.Adopt != nil {
		fields = append(fields, zap.String("external-name", d.Adopt.ID))
	}
	if d.Outcome == OutcomeCleared {
		r.log.Debug("intent resolved", fields...)
	} else {
		r.log.Info("intent resolved", fields...)
	}
	return r.entries(c, d)
}

func (r *Resolver) entries(c *Candidate, d Decision) []Entry {
	srcs := make([]string, 0, len(c.Sources))
	for _, s := range c.Sources {
		if !slices.Contains(srcs, s) {
			srcs = append(srcs, s)
		}
	}
	id := ""
	if !c.Intent.ID.IsZero() {
		id = c.Intent.ID.String()
	}
	ref := c.Intent.Resource
	ref.APIVersion, ref.Kind = r.intern(ref.APIVersion), r.intern(ref.Kind)
	e := Entry{
		IntentID: id, Resource: ref, Sources: srcs,
		IntendedExternalName: c.Intent.ExternalName, Found: d.Found,
		Outcome: d.Outcome, Reason: d.Reason, Message: d.Message, Action: d.Action,
	}
	if e.Found == nil {
		e.Found = []Found{}
	}
	if d.Adopt != nil {
		e.ExternalName = d.Adopt.ID
	}
	if d.Outcome == OutcomeOrphan {
		// One entry per orphaned cloud resource, so the summary counts
		// cloud resources.
		out := make([]Entry, 0, len(d.Orphans))
		for _, o := range d.Orphans {
			oe := e
			oe.Found = []Found{d.foundByID(o.ID)}
			out = append(out, oe)
		}
		return out
	}
	out := []Entry{e}
	for _, o := range d.Orphans {
		out = append(out, Entry{
			IntentID: id, Resource: c.Intent.Resource, Sources: srcs,
			Found:   []Found{d.foundByID(o.ID)},
			Outcome: OutcomeOrphan, Reason: ReasonDuplicate,
			Message: fmt.Sprintf("%s is a later duplicate of %s, which %s adopted", o.ID, d.Adopt.ID, c.Intent.Resource),
			Action:  fmt.Sprintf("delete the cloud resource %s (or rerun intentjournal recover with --delete-orphans)", o.ID),
		})
	}
	return out
}

// apply carries out a decision: patch the managed resource, delete orphans
// under the policy, settle the journal, emit Events.
func (r *Resolver) apply(ctx context.Context, c *Candidate, d *Decision) error {
	recovered := string(d.Outcome) + " " + r.o.Now().UTC().Format(time.RFC3339)
	switch d.Outcome {
	case OutcomeCleared:
		if c.Object != nil {
			if err := r.patch(ctx, c, func(a map[string]string) {
				delete(a, AnnotationExternalCreatePending)
				delete(a, journal.AnnotationKey)
				a[AnnotationRecovered] = recovered
			}); err != nil {
				return err
			}
		}
	case OutcomeAdopted:
		id := d.Adopt.ID
		if err := r.patch(ctx, c, func(a map[string]string) {
			a[AnnotationExternalName] = id
			delete(a, AnnotationExternalCreatePending)
			delete(a, journal.AnnotationKey)
			a[AnnotationRecovered] = recovered
		}); err != nil {
			return err
		}
		r.event(c, corev1.EventTypeNormal, EventAdopted, "Adopted cloud resource %s left by an interrupted create (%s)", id, d.Reason)
	case OutcomeConflict:
		in := c.Intent
		if in.ID.IsZero() {
			// A create no intent explains (the process died before
			// Begin, or ran without intentjournal): record the conflict
			// on the resource all the same. A pass killed after this
			// patch and before its report leaves the reason behind: the
			// paused resource says "reported", not just "paused".
			in = journal.Stamp(journal.Intent{Resource: in.Resource, Owner: r.o.Source.Owner}, r.o.Now(), 0)
		}
		in.State = journal.StateReported
		in.Outcome.State, in.Outcome.Reason = journal.StateReported, d.Reason
		if err := r.patch(ctx, c, func(a map[string]string) {
			a[AnnotationPaused] = "true"
			delete(a, AnnotationExternalCreatePending)
			a[AnnotationRecovered] = recovered
			if v, err := journal.EncodeAnnotation(in); err == nil {
				a[journal.AnnotationKey] = v
			}
		}); err != nil {
			return err
		}
		r.event(c, corev1.EventTypeWarning, EventConflict, "Paused: %s To resolve: %s", d.Message, d.Action)
	case OutcomeUnresolved:
		return nil
	}
	if len(d.Orphans) > 0 {
		r.deleteOrphans(ctx, c, d)
	}
	for _, l := range d.LookAlikes {
		r.event(c, corev1.EventTypeWarning, EventLookAlike,
			"Cloud resource %s carries this resource's crossplane tags but is not its; it was left untouched. Find who made it (another cluster pointed at this account, a rebuilt cluster, a person) and delete it there or rename its managed resource", l.ID)
	}
	return r.settle(ctx, c, d)
}

func (r *Resolver) deleteOrphans(ctx context.Context, c *Candidate, d *Decision) {
	del := r.o.Deleters[c.GVK.GroupKind()]
	for _, o := range d.Orphans {
		if c.Object != nil {
			r.event(c, corev1.EventTypeWarning, EventDuplicate, "Cloud resource %s is a duplicate left by an interrupted create", o.ID)
		}
		if !r.o.Policy.DeleteOrphans || del == nil || !Proof(d.foundByID(o.ID).Proof).Strong() {
			continue
		}
		if err := del.Delete(ctx, c, o); err != nil {
			r.log.Warn("cannot delete orphan", zap.String("external-id", o.ID), zap.Error(err))
			continue
		}
		r.log.Info("orphan deleted", zap.String("external-id", o.ID), zap.Stringer("resource", c.Intent.Resource))
	}
}

// settle records the outcome in the journal and releases a quarantined
// record that the outcome resolved.
func (r *Resolver) settle(ctx context.Context, c *Candidate, d *Decision) error {
	j := r.o.Journal
	if j == nil {
		return nil
	}
	if c.quarantined {
		// The outcome is decided from the annotation: the quarantined
		// record has nothing more to tell, and Begin may run again.
		return j.Release(ctx, c.Intent.Resource.UID)
	}
	if !c.inJournal {
		return nil
	}
	cur, err := j.Get(ctx, c.Intent.Resource.UID)
	if err != nil {
		return fmt.Errorf("cannot read the journal: %w", err)
	}
	o := journal.Outcome{Reason: d.Reason, Message: d.Message}
	switch d.Outcome {
	case OutcomeAdopted:
		o.State, o.ExternalName = journal.StateAdopted, d.Adopt.ID
	case OutcomeCleared:
		o.State = journal.StateCleared
		if cur.State == journal.StateSucceeded {
			// The create succeeded but its resource is gone: nothing
			// leaks, but the journal keeps the fact that it existed.
			o.State = journal.StateReported
		}
	default:
		o.State = journal.StateReported
	}
	if _, err := j.Settle(ctx, cur.Resource.UID, cur.ID, o); err != nil && !errors.Is(err, journal.ErrInvalidTransition) {
		return fmt.Errorf("cannot settle the journal: %w", err)
	}
	return nil
}

// patch changes the managed resource's annotations, guarded by its
// resourceVersion. On a conflict it reads the resource afresh and applies
// the change again.
func (r *Resolver) patch(ctx context.Context, c *Candidate, change func(map[string]string)) error {
	obj := c.Object
	for attempt := 0; ; attempt++ {
		orig := obj.DeepCopy()
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		change(a)
		obj.SetAnnotations(a)
		err := r.retryAPI(ctx, func() error {
			return r.o.Client.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		})
		if err == nil {
			c.Object = obj
			return nil
		}
		if !apierrors.IsConflict(err) || attempt >= 5 {
			return fmt.Errorf("cannot patch %s: %w", c.Intent.Resource, err)
		}
		fresh, rerr := r.read(ctx, c)
		if rerr != nil {
			return fmt.Errorf("cannot re-read %s after a conflict: %w", c.Intent.Resource, rerr)
		}
		obj = fresh
	}
}

func (r *Resolver) event(c *Candidate, typ, reason, format string, a ...any) {
	if r.o.Recorder == nil || c.Object == nil {
		return
	}
	r.o.Recorder.Eventf(c.Object, typ, reason, format, a...)
}

// progress counts outcomes and logs them with a rate and an ETA.
type progress struct {
	logger     *zap.Logger
	every      int64
	start      time.Time
	discovered atomic.Int64
	resolved   atomic.Int64
	mu         sync.Mutex
	counts     map[Outcome]int
}

func newProgress(log *zap.Logger, every int) *progress {
	return &progress{logger: log, every: int64(every), start: time.Now(), counts: map[Outcome]int{}}
}

func (p *progress) found() { p.discovered.Add(1) }

func (p *progress) done(o Outcome) {
	p.mu.Lock()
	p.counts[o]++
	p.mu.Unlock()
	if n := p.resolved.Add(1); n%p.every == 0 {
		p.log("recovery progress")
	}
}

func (p *progress) log(msg string) {
	p.mu.Lock()
	counts := make(map[string]int, len(p.counts))
	for k, v := range p.counts {
		counts[string(k)] = v
	}
	p.mu.Unlock()
	done, found := p.resolved.Load(), p.discovered.Load()
	elapsed := time.Since(p.start)
	fields := []zap.Field{zap.Int64("resolved", done), zap.Int64("discovered", found), zap.Any("outcomes", counts), zap.Duration("elapsed", elapsed.Round(time.Millisecond))}
	if done > 0 && found > done {
		eta := time.Duration(float64(elapsed) / float64(done) * float64(found-done))
		fields = append(fields, zap.Duration("eta", eta.Round(time.Second)))
	}
	p.logger.Info(msg, fields...)
}

// ResolveObject resolves the unsettled create of one managed resource, as
// the create path does before creating again (an intent from an earlier
// process, or a 409). It merges the journal's intent for the resource's UID
// with its annotation, like a pass would. It returns ok false, and no
// entries, when the resource has nothing unsettled.
func (r *Resolver) ResolveObject(ctx context.Context, obj *unstructured.Unstructured) (entries []Entry, ok bool, err error) {
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
			c.Sources = append([]string{SourceJournal}, c.Sources...)
			c.Object = nil // merge re-attaches it, weighing the annotation's epoch
			r.merge(c, obj)
			found = true
		case errors.Is(err, journal.ErrCorrupt):
			c.quarantined = true
			c.Sources = append([]string{SourceJournal}, c.Sources...)
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
