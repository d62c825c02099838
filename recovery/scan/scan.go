package scan

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/logging"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// pageSize is how many managed resources one List returns.
const pageSize = 500

// scanner is one scan: the options, the two resolvers its decisions are
// made by, and its counters.
type scanner struct {
	o   Options
	log *zap.Logger
	// reportOnly decides every candidate with the recovery pass's Decide
	// under ModeReportOnly: an adoption becomes unresolved
	// (AdoptionDisabledByPolicy). adopt decides again under ModeAdopt a
	// candidate whose lookup found a resource with a strong proof, the
	// only kind scan adopts. Both are dry runs: scan carries its
	// decisions out itself, under its policy.
	reportOnly, adopt *recovery.Resolver

	// resources name each kind for kubectl; written before the workers
	// start.
	resources map[schema.GroupVersionKind]string
	// scanned, heldBack and skipped are discovery's, read once it ended.
	scanned, heldBack int
	skipped           map[string]int

	// mu guards the counters the workers and the progress log share:
	// the time the workers spent in lookups and patches, and how many.
	mu                      sync.Mutex
	lookups, patches        time.Duration
	lookupCount, patchCount int
	candidates, resolved    int
	outcomes                map[report.Outcome]int

	// bound holds every external name a scanned managed resource carries,
	// and copies the bound managed resources to look up for copies
	// (Options.Copies); both discovery's, read once it ended.
	bound  map[string]bool
	copies []copyWork
}

// Run scans every managed resource of o.Kinds for a create that may have
// leaked (Classify), looks each candidate up in the cloud through its
// kind's Finder, decides it with the recovery pass's rules (recovery.Decide:
// the same proofs, the same absence rules), and returns the report: one
// entry per candidate (and per duplicate of a resource it adopts), each
// with sources ["scan"], the reasons it was taken up, and the kubectl
// commands that adopt what was found or stop its create. Under o.Apply it
// carries out what the policy allows (see Options.Apply and the package
// documentation) and records in each action whether it did; without it,
// it writes nothing, not even an Event.
//
// Run returns an error only when the scan could not run (a List failed
// after retries, the context ended); what it could not decide is in the
// report as unresolved.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	if o.Client == nil {
		return nil, errNoClient
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Policy.Concurrency <= 0 {
		o.Policy.Concurrency = 16
	}
	if o.Policy.ProgressInterval <= 0 {
		o.Policy.ProgressInterval = 10 * time.Second
	}
	o.Source.DryRun = !o.Apply
	s := &scanner{o: o, log: logging.Zap(o.Logger).Named("scan"), outcomes: map[report.Outcome]int{},
		skipped: map[string]int{}, resources: map[schema.GroupVersionKind]string{}, bound: map[string]bool{}}
	sightings := recovery.NewSightings()
	resolver := func(mode recovery.Mode) (*recovery.Resolver, error) {
		p := o.Policy
		p.Modes, p.Default, p.DryRun, p.DeleteOrphans, p.AdoptionEvents = nil, mode, true, false, 0
		return recovery.NewResolver(recovery.Options{Client: o.Client, Kinds: o.Kinds, Finders: o.Finders, Policy: p,
			Sightings: sightings, Logger: o.Logger, Source: o.Source, Now: o.Now})
	}
	var err error
	if s.reportOnly, err = resolver(recovery.ModeReportOnly); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if s.adopt, err = resolver(recovery.ModeAdopt); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	for _, gvk := range o.Kinds {
		s.resources[gvk] = s.resourceOf(gvk) // before the workers read it
	}
	return s.run(ctx)
}

// work is one candidate on its way to a worker.
type work struct {
	obj     *unstructured.Unstructured
	gvk     schema.GroupVersionKind
	finding Finding
}

func (s *scanner) run(ctx context.Context) (*report.Report, error) {
	start := s.o.Now()
	rep := report.New(s.o.Source, start)
	s.log.Info("scan starting", zap.Int("kinds", len(s.o.Kinds)), zap.Bool("apply", s.o.Apply),
		zap.Int("concurrency", s.o.Policy.Concurrency), zap.Duration("min-age", s.o.MinAge))

	queue := make(chan work, 2*s.o.Policy.Concurrency)
	var wg sync.WaitGroup
	for range s.o.Policy.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range queue {
				for _, e := range s.resolve(ctx, w) {
					rep.Add(e)
					s.count(e.Outcome)
				}
			}
		}()
	}
	tick := time.NewTicker(s.o.Policy.ProgressInterval)
	stopTick := make(chan struct{})
	go func() {
		for {
			select {
			case <-tick.C:
				s.progress("recovery progress")
			case <-stopTick:
				return
			}
		}
	}()

	var waited time.Duration
	emit := func(w work) bool {
		select {
		case queue <- w:
			return true
		default:
		}
		t := s.o.Now()
		defer func() { waited += s.o.Now().Sub(t) }()
		select {
		case queue <- w:
			return true
		case <-ctx.Done():
			return false
		}
	}
	discoverStart := s.o.Now()
	err := s.discover(ctx, rep, emit)
	discover := s.o.Now().Sub(discoverStart) - waited
	close(queue)
	wg.Wait()
	tick.Stop()
	close(stopTick)

	if err == nil {
		s.findCopies(ctx, rep, s.copies, s.bound)
	}
	if s.heldBack > 0 {
		rep.AddNote(fmt.Sprintf("%d managed resource(s) show a create younger than the minimum age %s, which may still be under way, and were not taken up; scan again later", s.heldBack, s.o.MinAge))
	}
	rep.Sort()
	s.mu.Lock()
	timings := report.Timings{Wall: s.o.Now().Sub(start), Discover: max(discover, 0),
		Lookups: s.lookups, LookupCount: s.lookupCount, Patches: s.patches, PatchCount: s.patchCount}
	s.mu.Unlock()
	rep.SetTimings(timings)
	s.progress("scan finished", zap.Int("scanned", s.scanned), zap.Int("held-back", s.heldBack), zap.Any("skipped", s.skippedCounts()),
		zap.Duration("wall", timings.Wall), zap.Duration("discover", timings.Discover),
		zap.Duration("lookups", timings.Lookups), zap.Int("lookups-count", timings.LookupCount),
		zap.Duration("patches", timings.Patches), zap.Int("patches-count", timings.PatchCount))
	if err != nil {
		return rep, fmt.Errorf("scan: %w", err)
	}
	return rep, nil
}

// discover lists every managed resource of every kind and classifies it,
// then emits each candidate: once every external name is known (bound),
// so that no candidate is offered a resource another managed resource is
// bound to.
func (s *scanner) discover(ctx context.Context, rep *report.Report, emit func(work) bool) error {
	var found []work
	if err := s.list(ctx, rep, func(w work) { found = append(found, w) }); err != nil {
		return err
	}
	for _, w := range found {
		if !emit(w) {
			return ctx.Err()
		}
	}
	return nil
}

// list lists every managed resource of every kind, classifies it, records
// its external name in bound and, under Options.Copies, what to look up for
// copies, and calls take with each candidate.
func (s *scanner) list(ctx context.Context, rep *report.Report, take func(work)) error {
	for _, gvk := range s.o.Kinds {
		facts := Facts{CloudAssigned: s.o.CloudAssigned[gvk.GroupKind()]}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		cont := ""
		for {
			err := s.reportOnly.RetryAPI(ctx, func() error {
				return s.o.Client.List(ctx, list, client.Limit(pageSize), client.Continue(cont))
			})
			if meta.IsNoMatchError(err) {
				s.log.Warn("managed kind is not served; skipping", zap.String("kind", gvk.String()))
				rep.AddNote(fmt.Sprintf("the API server does not serve %s: it was not scanned", gvk))
				break
			}
			if err != nil {
				return fmt.Errorf("cannot list %s: %w", gvk.Kind, err)
			}
			for i := range list.Items {
				obj := list.Items[i].DeepCopy()
				s.scanned++
				f := Classify(obj, facts)
				if f.Skip != "" {
					s.skipped[f.Skip]++
				}
				en := obj.GetAnnotations()[recovery.AnnotationExternalName]
				if en != "" {
					s.bound[en] = true
				}
				if w := (work{obj: obj, gvk: gvk, finding: f}); s.takeForCopies(w, facts.CloudAssigned) {
					s.copies = append(s.copies, copyWork{work: w, externalName: en})
				}
				if !f.Candidate() {
					continue
				}
				if s.young(f) {
					s.heldBack++
					continue
				}
				s.mu.Lock()
				s.candidates++
				s.mu.Unlock()
				take(work{obj: obj, gvk: gvk, finding: f})
			}
			if cont = list.GetContinue(); cont == "" {
				break
			}
		}
	}
	return nil
}

// young reports whether f is a create that may still be under way: its
// only reasons a pending or succeeded create younger than MinAge.
func (s *scanner) young(f Finding) bool {
	if s.o.MinAge <= 0 || f.LastCreate.IsZero() || f.Has(ReasonAlreadyExistsLoop) || f.Has(ReasonAsyncCreateFailed) {
		return false
	}
	return s.o.Now().Sub(f.LastCreate) < s.o.MinAge
}

// resourceOf names gvk's resource for kubectl: Options.Resources, else the
// RESTMapper's plural, else kind.group in lower case.
func (s *scanner) resourceOf(gvk schema.GroupVersionKind) string {
	if r := s.o.Resources[gvk]; r != "" {
		return r
	}
	name := strings.ToLower(gvk.Kind)
	if m := s.o.Client.RESTMapper(); m != nil {
		if mapping, err := m.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			name = mapping.Resource.Resource
		}
	}
	if gvk.Group == "" {
		return name
	}
	return name + "." + gvk.Group
}

// candidate is the recovery candidate of a scanned managed resource: no
// intent, no journal, the resource as it was listed. A create that met
// "already exists" is recorded as such, as an intent settled failed with
// class conflict would be: Decide then holds that the key is taken, and a
// resource found by tags alone blocks the create too.
func candidate(w work) *recovery.Candidate {
	c := &recovery.Candidate{
		GVK:     w.gvk,
		Object:  w.obj.DeepCopy(),
		Sources: []string{report.SourceScan},
		Intent: journal.Intent{Resource: journal.ResourceRef{
			APIVersion: w.obj.GetAPIVersion(), Kind: w.obj.GetKind(),
			Namespace: w.obj.GetNamespace(), Name: w.obj.GetName(), UID: string(w.obj.GetUID()),
		}},
	}
	c.SpecTags = specTags(w.obj)
	if w.finding.Has(ReasonAlreadyExistsLoop) {
		c.Intent.State = journal.StateFailed
		c.Intent.Outcome = journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassConflict}
	}
	return c
}

// specTags returns the crossplane tags of obj's spec.forProvider, in the
// first of its map fields (by name) that holds crossplane-kind and
// crossplane-name: what a stock provider's tagger wrote there before the
// create, and so what the create sent (recovery.Candidate.SpecTags). Nil
// when no field holds them.
func specTags(obj *unstructured.Unstructured) map[string]string {
	fp, _, _ := unstructured.NestedMap(obj.Object, "spec", "forProvider")
	for _, k := range slices.Sorted(maps.Keys(fp)) {
		m, ok := fp[k].(map[string]any)
		if !ok {
			continue
		}
		str := make(map[string]string, len(m))
		for tk, tv := range m {
			if v, ok := tv.(string); ok {
				str[tk] = v
			}
		}
		if tags := recovery.CrossplaneTags(str); tags[recovery.TagCrossplaneKind] != "" && tags[recovery.TagCrossplaneName] != "" {
			return tags
		}
	}
	return nil
}

// resolve decides one candidate, applies the scan's policy, carries out
// what it allows under Apply, and returns the report entries.
func (s *scanner) resolve(ctx context.Context, w work) []report.Entry {
	t := s.o.Now()
	c := candidate(w)
	entries := s.reportOnly.Resolve(ctx, c)
	if strongProof(entries) {
		// Decided again under the adopt mode: Decide alone picks which
		// resource a strong proof adopts.
		c = candidate(w)
		entries = s.adopt.Resolve(ctx, c)
	}
	s.mu.Lock()
	s.lookups += s.o.Now().Sub(t)
	s.lookupCount++
	s.mu.Unlock()
	tg := target{resource: s.resources[w.gvk], namespace: w.obj.GetNamespace(), name: w.obj.GetName()}
	entries = s.policy(w, tg, entries)
	for i := range entries {
		if s.o.Apply {
			s.apply(ctx, c, w, &entries[i])
		}
		finish(&entries[i])
	}
	return entries
}

// strongProof reports whether any entry found a resource proven ours by a
// strong proof.
func strongProof(entries []report.Entry) bool {
	for _, e := range entries {
		if slices.ContainsFunc(e.Found, func(f report.Found) bool { return f.Owned && recovery.Proof(f.Proof).Strong() }) {
			return true
		}
	}
	return false
}

func (s *scanner) count(o report.Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resolved++
	s.outcomes[o]++
}

// skippedCounts copies how many managed resources were passed over, by
// why; called once discovery ended.
func (s *scanner) skippedCounts() map[string]int {
	out := make(map[string]int, len(s.skipped))
	for k, v := range s.skipped {
		out[k] = v
	}
	return out
}

// progress logs the counts so far under msg, in the fields the CLI's
// status line reads (resolved, discovered, outcomes).
func (s *scanner) progress(msg string, extra ...zap.Field) {
	s.mu.Lock()
	counts := make(map[string]int, len(s.outcomes))
	for k, v := range s.outcomes {
		counts[string(k)] = v
	}
	fields := []zap.Field{zap.Int("resolved", s.resolved), zap.Int("discovered", s.candidates), zap.Any("outcomes", counts)}
	s.mu.Unlock()
	s.log.Info(msg, append(fields, extra...)...)
}
