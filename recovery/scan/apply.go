package scan

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// Event reasons scan --apply posts on the managed resources it changes.
const (
	// EventPaused: scan paused the managed resource (a loop on "already
	// exists", or a create held for an operator).
	EventPaused = "IntentScanPaused"
	// EventAdopted: scan adopted a cloud resource proven the create's by
	// a strong proof; the recovery pass's reason.
	EventAdopted = recovery.EventAdopted
)

// apply carries out what the policy allows of e's actions: a pause, an
// adoption on a strong proof. It never deletes and never clears. Each
// action records whether it was carried out and why not; an adoption
// whose patch failed leaves the entry unresolved (ApplyFailed), as in a
// recovery pass.
func (s *scanner) apply(ctx context.Context, c *recovery.Candidate, w work, e *report.Entry) {
	if e.Scan == nil {
		return
	}
	now := s.o.Now().UTC().Format(time.RFC3339)
	for i := range e.Scan.Actions {
		a := &e.Scan.Actions[i]
		switch {
		case a.Type == report.ScanActionPause:
			err := s.patch(ctx, c, func(ann map[string]string) {
				ann[recovery.AnnotationPaused] = "true"
				ann[recovery.AnnotationRecovered] = string(e.Outcome) + " " + now
			})
			if err != nil {
				a.Note = fmt.Sprintf("scan --apply could not pause it: %v", err)
				s.log.Warn("cannot pause", zap.Stringer("resource", c.Intent.Resource), zap.Error(err))
				continue
			}
			a.Applied, a.Note = true, "paused by scan --apply: "+a.Note
			s.event(c, corev1.EventTypeWarning, EventPaused, "Paused by intentjournal scan (%s): %s", w.finding.Reasons[0], e.Message)
			s.log.Info("paused", zap.Stringer("resource", c.Intent.Resource), zap.String("reason", string(w.finding.Reasons[0])))
		case a.Type == report.ScanActionAdopt && e.Outcome == report.OutcomeAdopted && a.ExternalName == e.ExternalName:
			s.adoptOne(ctx, c, w, e, a, now)
		}
	}
}

// adoptOne binds the cloud resource of a, proven ours by a strong proof,
// to the managed resource, unless the managed resource was bound to
// something else since the scan read it.
func (s *scanner) adoptOne(ctx context.Context, c *recovery.Candidate, w work, e *report.Entry, a *report.ScanAction, now string) {
	facts := Facts{CloudAssigned: s.o.CloudAssigned[w.gvk.GroupKind()]}
	var boundTo string
	err := s.patch(ctx, c, func(ann map[string]string) {
		boundTo = ""
		if en := ann[recovery.AnnotationExternalName]; en != "" && en != a.ExternalName && !(facts.CloudAssigned && en == c.Intent.Resource.Name) {
			boundTo = en // the provider settled a name meanwhile: leave it
			return
		}
		ann[recovery.AnnotationExternalName] = a.ExternalName
		delete(ann, recovery.AnnotationExternalCreatePending)
		ann[recovery.AnnotationRecovered] = string(report.OutcomeAdopted) + " " + now
	})
	if err == nil && boundTo != "" {
		err = fmt.Errorf("its external name became %s after the scan read it", boundTo)
	}
	if err != nil {
		s.log.Warn("cannot adopt", zap.Stringer("resource", c.Intent.Resource), zap.String("external-name", a.ExternalName), zap.Error(err))
		a.Note = fmt.Sprintf("scan --apply could not adopt it: %v", err)
		e.Outcome, e.Reason = report.OutcomeUnresolved, recovery.ReasonApplyFailed
		e.Message = fmt.Sprintf("decided adopted for %s but could not carry it out: %v", c.Intent.Resource, err)
		e.ExternalName = ""
		for i := range e.Found {
			e.Found[i].Adopted = false
		}
		return
	}
	a.Applied, a.Note = true, "adopted by scan --apply: "+a.Note
	s.event(c, corev1.EventTypeNormal, EventAdopted, "Adopted cloud resource %s left by an interrupted create (intentjournal scan, proof %s)", a.ExternalName, proofOf(e, a.ExternalName))
	s.log.Info("adopted", zap.Stringer("resource", c.Intent.Resource), zap.String("external-name", a.ExternalName))
}

// patch changes the managed resource's annotations through the recovery
// pass's guarded patch, and times it.
func (s *scanner) patch(ctx context.Context, c *recovery.Candidate, change func(map[string]string)) error {
	t := s.o.Now()
	err := s.reportOnly.PatchAnnotations(ctx, c, change)
	s.mu.Lock()
	s.patches += s.o.Now().Sub(t)
	s.patchCount++
	s.mu.Unlock()
	return err
}

// proofOf returns the proof of the found resource id.
func proofOf(e *report.Entry, id string) string {
	for _, f := range e.Found {
		if f.ID == id {
			return f.Proof
		}
	}
	return ""
}

func (s *scanner) event(c *recovery.Candidate, typ, reason, format string, a ...any) {
	if s.o.Recorder == nil || c.Object == nil {
		return
	}
	s.o.Recorder.Eventf(c.Object, typ, reason, format, a...)
}
