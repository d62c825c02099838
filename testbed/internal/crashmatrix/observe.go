package crashmatrix

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// managed returns the trial's managed resources.
func (e *env) managed(t *testing.T, tr *trial) []*unstructured.Unstructured {
	t.Helper()
	want := map[string]bool{}
	for _, n := range tr.names {
		want[n] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	var out []*unstructured.Unstructured
	for _, l := range e.lists(tr) {
		if err := e.cl.Client.List(ctx, l.list, l.opts...); err != nil {
			t.Fatalf("cannot list %s: %v", l.list.GetKind(), err)
		}
		for i := range l.list.Items {
			if want[l.list.Items[i].GetName()] {
				out = append(out, &l.list.Items[i])
			}
		}
	}
	return out
}

// snapshot returns the invariants' view of the trial's managed resources.
func (e *env) snapshot(t *testing.T, tr *trial) []MR {
	t.Helper()
	var out []MR
	for _, mg := range e.managed(t, tr) {
		m := snapshotOf(mg)
		m.Kind = tr.line.CloudKind(m.Kind)
		out = append(out, m)
	}
	return out
}

// snapshotOf returns the invariants' view of the managed resource mg.
func snapshotOf(mg *unstructured.Unstructured) MR {
	ready := condition(mg, "Ready")
	m := MR{
		Kind: mg.GetKind(), Name: mg.GetName(), UID: string(mg.GetUID()),
		ExternalName: mg.GetAnnotations()[annotationExternalName],
		Ready:        ready.Status == "True",
		Paused:       mg.GetAnnotations()[annotationPaused] == "true",
		CreatedAt:    mg.GetCreationTimestamp().Time,
	}
	if in, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && err == nil {
		m.IntentState = string(in.State)
	}
	var parts []string
	for _, ct := range []string{"Ready", "Synced"} {
		c := condition(mg, ct)
		parts = append(parts, fmt.Sprintf("%s=%s/%s %q", ct, c.Status, c.Reason, c.Message))
	}
	m.Status = strings.Join(parts, " ")
	return m
}

// crossplane-runtime's annotations, read off unstructured objects.
const (
	annotationExternalName = "crossplane.io/external-name"
	annotationPaused       = "crossplane.io/paused"
)

// cond is what the harness reads of a status condition.
type cond struct{ Status, Reason, Message string }

// condition returns mg's status condition of type ct; a missing one has
// status Unknown, as crossplane-runtime's GetCondition says.
func condition(mg *unstructured.Unstructured, ct string) cond {
	conds, _, _ := unstructured.NestedSlice(mg.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != ct {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		return cond{Status: str("status"), Reason: str("reason"), Message: str("message")}
	}
	return cond{Status: "Unknown"}
}

// cloudObjects returns the fake cloud's live record sets and networks,
// the lane's Records among them (see the function cloudObjects).
func (e *env) cloudObjects(s fakecloud.Stats) []CloudObject {
	var recordID func(zone, name, typ string) string
	if e.records != nil {
		recordID = e.records.ExternalName
	}
	return cloudObjects(s, recordID)
}

// conflictsFromLogs counts, per managed resource, the creates the provider
// settled as a 409 conflict, over every incarnation's log.
func conflictsFromLogs(t *testing.T, paths []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		f, err := os.Open(p)
		if err != nil {
			t.Fatalf("cannot open provider log: %v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var l struct {
				Msg        string `json:"msg"`
				Resource   string `json:"resource"`
				ErrorClass string `json:"error-class"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "intent settled" && l.ErrorClass == string(journal.ErrorClassConflict) {
				out[l.Resource]++
			}
		}
		_ = f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("cannot read provider log %s: %v", p, err)
		}
	}
	return out
}

// verifyJournal opens the journal read-only and verifies it.
func verifyJournal(path string) (*journal.VerifyReport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	j, err := journal.Open(path, journal.WithReadOnly())
	if err != nil {
		return nil, fmt.Errorf("cannot open the journal: %w", err)
	}
	defer j.Close()
	r, err := j.Verify(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot verify the journal: %w", err)
	}
	return r, nil
}

// cleanup removes the trial's MRs (finalizers dropped: no provider runs)
// and the cloud objects cloud (the look-alikes among them), and clears the
// faults.
func (e *env) cleanup(t *testing.T, tr *trial, cloud []CloudObject) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	for _, mg := range e.managed(t, tr) {
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
		if err := e.cl.Client.Patch(ctx, mg, patch); err != nil {
			t.Fatalf("cannot drop the finalizers of %s: %v", mg.GetName(), err)
		}
		if err := client.IgnoreNotFound(e.cl.Client.Delete(ctx, mg)); err != nil {
			t.Fatalf("cannot delete %s: %v", mg.GetName(), err)
		}
	}
	for _, c := range cloud {
		var err error
		if c.Kind == KindRecordSet || c.Kind == KindRecord {
			err = e.fc.Client.DeleteRecordSet(ctx, c.ID)
		} else {
			err = e.fc.Client.DeleteNetwork(ctx, c.ID)
		}
		if err != nil && !errors.Is(err, fakecloud.ErrNotFound) {
			t.Fatalf("cannot delete %s %s: %v", c.Kind, c.ID, err)
		}
	}
	e.fc.SetFaults(t, fakecloud.Faults{})
}

// keepEvidence copies a failed trial's reports, provider logs and
// managed resources (managed.json: annotations, conditions and all) into
// dir.
func keepEvidence(t *testing.T, dir string, reports [][]byte, logs []string, mrs []*unstructured.Unstructured) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("cannot keep the evidence: %v", err)
		return
	}
	if b, err := json.MarshalIndent(mrs, "", "  "); err != nil {
		t.Errorf("cannot encode the managed resources: %v", err)
	} else if err := os.WriteFile(filepath.Join(dir, "managed.json"), b, 0o644); err != nil {
		t.Errorf("cannot keep the managed resources: %v", err)
	}
	for i, b := range reports {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("recovery-%d.json", i)), b, 0o644); err != nil {
			t.Errorf("cannot keep a report: %v", err)
		}
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(l)), b, 0o644)
		}
		if err != nil {
			t.Errorf("cannot keep a provider log: %v", err)
		}
	}
	t.Logf("reports, provider logs and managed resources kept in %s", dir)
}

// lookAlikeFates describes, one line each, what became of every
// look-alike and foreign record of o and of the managed resource it
// resembles: the resource's state, and the last report entry that found
// the look-alike (outcome, reason, and how its arguments compared), or
// that no report found it (the create path settled a 409 itself, or the
// create never met it). For the trial's log: the invariants decide.
func lookAlikeFates(o Observation) []string {
	type seen struct {
		e report.Entry
		f report.Found
	}
	last := map[string]seen{} // by the key a report names a look-alike by
	for _, b := range o.Reports {
		rep, err := report.Decode(b)
		if err != nil {
			continue // report-validates says why
		}
		for _, e := range rep.Entries {
			for _, f := range e.Found {
				last[f.ID] = seen{*e, f}
			}
		}
	}
	mrs := map[string]MR{}
	for _, m := range o.MRs {
		mrs[m.Name] = m
	}
	var out []string
	for _, la := range o.LookAlikes {
		var b strings.Builder
		fmt.Fprintf(&b, "look-alike %s %s of %s:", la.Kind, la.name(), la.MR)
		switch m, ok := mrs[la.MR]; {
		case !ok:
			b.WriteString(" its managed resource is gone;")
		case m.Paused:
			fmt.Fprintf(&b, " %s paused (intent %q);", m.Name, m.IntentState)
		case m.Ready:
			fmt.Fprintf(&b, " %s Ready, bound to %q;", m.Name, m.ExternalName)
		default:
			fmt.Fprintf(&b, " %s neither Ready nor paused;", m.Name)
		}
		s, ok := last[la.key()]
		if !ok {
			b.WriteString(" no report found it")
			out = append(out, b.String())
			continue
		}
		fmt.Fprintf(&b, " report: %s %s", s.e.Outcome, s.e.Reason)
		if s.f.Arguments != "" {
			fmt.Fprintf(&b, ", arguments %s", s.f.Arguments)
		}
		if len(s.f.ArgumentsDiffer) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(s.f.ArgumentsDiffer, ", "))
		}
		if s.f.Adopted {
			b.WriteString(", adopted")
		}
		out = append(out, b.String())
	}
	return out
}
