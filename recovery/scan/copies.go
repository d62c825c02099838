package scan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Copies beside a bound managed resource.
//
// A provider restarted after a crash creates again every create that was in
// flight. For a kind whose ID the cloud assigns (a VPC, a network), that
// second create succeeds: the managed resource is Ready, bound to the
// second copy, and shows no trace of the first, which leaks. Classify
// cannot see it. Options.Copies looks for it from the other end: each
// managed resource that is bound, Ready or not yet, whose create is recent enough
// to have been repeated, is looked up through its kind's finder, as a
// candidate would be, and every resource found that no managed resource
// names as its external name is reported, an orphan entry of its own
// (recovery.ReasonUnboundCopy). Nothing is done about it under Apply: it may be the
// copy, or someone else's look-alike carrying the same tags, and scan
// never deletes.

const (
	// ReasonCopiesBesideBound is the scan reason of an entry Options.Copies
	// made: the managed resource is bound, and its kind's finder
	// found more than the resource it is bound to.
	ReasonCopiesBesideBound Reason = "CopiesBesideBound"
)

// copyWork is one bound managed resource to look up for copies.
type copyWork struct {
	work
	// externalName is the resource it is bound to.
	externalName string
}

// copyResult is what one lookup for copies found beyond every bound
// resource.
type copyResult struct {
	w      copyWork
	copies []recovery.ExternalResource
	err    error
}

// takeForCopies reports whether a managed resource that is no candidate
// is to be looked up for copies: Options.Copies is set, its kind has a
// finder, it is not being deleted, its external name is settled (bound:
// set, and not metadata.name on a kind whose name the cloud assigns),
// Ready or not yet, and its latest create began less than Options.Copies
// ago. A bound managed resource that is not Ready yet is one whose second
// create has just ended: its first copy leaked as surely.
func (s *scanner) takeForCopies(w work, cloudAssigned bool) bool {
	if s.o.Copies <= 0 || s.o.Finders[w.gvk.GroupKind()] == nil || w.finding.Candidate() || w.finding.Skip == SkipDeleting {
		return false
	}
	a := w.obj.GetAnnotations()
	if en := a[recovery.AnnotationExternalName]; en == "" || (cloudAssigned && en == w.obj.GetName()) {
		return false
	}
	last := lastCreate(a)
	return !last.IsZero() && s.o.Now().Sub(last) < s.o.Copies
}

// findCopies looks every managed resource of cw up, at most
// Policy.Concurrency at a time, and adds to rep an orphan entry per
// resource found that is bound to no managed resource (bound) and no entry
// of rep found already. A resource that the lookups of several managed
// resources found (their tags are the same: two namespaces' managed
// resources of the same name, tagged without their namespace) is reported
// once, under the first in namespace/name order, with the others named.
func (s *scanner) findCopies(ctx context.Context, rep *report.Report, cw []copyWork, bound map[string]bool) {
	if len(cw) == 0 {
		return
	}
	s.log.Info("looking up bound managed resources for copies a restarted provider made", zap.Int("resources", len(cw)),
		zap.Duration("within", s.o.Copies))
	seen := map[string]bool{}
	for id := range bound {
		seen[id] = true
	}
	for _, e := range rep.Entries {
		for _, f := range e.Found {
			seen[f.ID] = true
		}
	}

	results := make([]copyResult, len(cw))
	for i := range cw {
		results[i].w = cw[i]
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(s.o.Policy.Concurrency, len(cw)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = s.lookupCopies(ctx, cw[i], seen)
			}
		}()
	}
dispatch:
	for i := range cw {
		select {
		case next <- i:
		case <-ctx.Done():
			// Not looked up: counted as failed lookups in the note.
			for j := i; j < len(cw); j++ {
				results[j].err = ctx.Err()
			}
			break dispatch
		}
	}
	close(next)
	wg.Wait()

	slices.SortFunc(results, func(a, b copyResult) int {
		return strings.Compare(a.w.obj.GetNamespace()+"/"+a.w.obj.GetName(), b.w.obj.GetNamespace()+"/"+b.w.obj.GetName())
	})
	foundBy := map[string][]string{}
	failed, firstErr := 0, ""
	for _, r := range results {
		if r.err != nil {
			failed++
			if firstErr == "" {
				firstErr = fmt.Sprintf("%s: %v", ref(r.w.work), r.err)
			}
			continue
		}
		for _, c := range r.copies {
			foundBy[c.ID] = append(foundBy[c.ID], ref(r.w.work))
		}
	}
	reported := map[string]bool{}
	for _, r := range results {
		for _, c := range r.copies {
			if reported[c.ID] {
				continue
			}
			reported[c.ID] = true
			e := copyEntry(r.w, c, foundBy[c.ID][1:])
			rep.Add(e)
			s.count(e.Outcome)
		}
	}
	if failed > 0 {
		rep.AddNote(fmt.Sprintf("%d of %d lookups for copies beside a bound managed resource failed, so copies may be missing from this report; the first: %s", failed, len(cw), firstErr))
	}
	s.log.Info("looked up bound managed resources for copies", zap.Int("resources", len(cw)), zap.Int("copies", len(reported)), zap.Int("failed", failed))
}

// lookupCopies finds, through the finder of cw's kind, what is not seen
// (bound, or in an entry already).
func (s *scanner) lookupCopies(ctx context.Context, cw copyWork, seen map[string]bool) copyResult {
	t := s.o.Now()
	found, _, err := s.reportOnly.Lookup(ctx, candidate(cw.work))
	s.mu.Lock()
	s.lookups += s.o.Now().Sub(t)
	s.lookupCount++
	s.mu.Unlock()
	out := copyResult{w: cw, err: err}
	for _, r := range found {
		names := externalNames(r.ID, r.Listed)
		if !slices.Contains(names, cw.externalName) && !anyIn(seen, names) {
			out.copies = append(out.copies, r)
		}
	}
	return out
}

// copyEntry is the orphan entry of a copy found beside w's bound resource;
// also lists the other managed resources whose lookup found it.
func copyEntry(w copyWork, c recovery.ExternalResource, also []string) report.Entry {
	res := candidate(w.work).Intent.Resource
	f := report.Found{ID: c.ID, Listed: c.Listed, Tags: c.Tags, CreatedAt: c.CreatedAt, Arguments: string(c.Args), ArgumentsDiffer: c.ArgsDiffer,
		ArgumentsNotCompared: c.ArgsNotCompared}
	msg := fmt.Sprintf("%s is bound to %s; its kind's lookup also found %s, which no managed resource names as its external name: "+
		"a copy a provider restarted after a crash made of a create that was in flight (the first copy leaks, the second is bound), "+
		"or someone else's resource that carries the same crossplane tags", res, w.externalName, c.ID)
	if len(also) > 0 {
		msg += fmt.Sprintf("; the lookups of %s found it too (their tags are the same)", strings.Join(also, ", "))
	}
	e := report.Entry{
		Resource: res, Sources: []string{report.SourceScan}, Found: []report.Found{f},
		Outcome: report.OutcomeOrphan, Reason: recovery.ReasonUnboundCopy, Message: msg,
		Action: fmt.Sprintf("check where %s came from (its tags and creation time) and delete it where it was made if it is a leaked copy: scan never deletes", c.ID),
		Scan: &report.Scan{Reasons: []string{string(ReasonCopiesBesideBound)}, Evidence: []string{
			fmt.Sprintf("crossplane.io/external-name is %s, Ready is %s, and its latest create began %s", w.externalName,
				orAbsent(readyStatus(w.obj)), stamp(lastCreate(w.obj.GetAnnotations()))),
		}},
	}
	return e
}

// ref names w's managed resource as the report's messages do.
func ref(w work) string {
	return candidate(w).Intent.Resource.String()
}

// readyStatus is the status of obj's Ready condition, "" when it has none.
func readyStatus(obj interface{ UnstructuredContent() map[string]any }) string {
	c, _ := conditions(obj.UnstructuredContent()).of(conditionReady)
	return c.Status
}
