package crashmatrix

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/internal/testbed"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

const (
	// zone holds the trials' record sets.
	zone = "crash.example"
	// tagName is the fake cloud tag that names an object's managed resource.
	tagName = recovery.TagCrossplaneName
	// apiTimeout bounds one call to the API server or the fake cloud.
	apiTimeout = 30 * time.Second
	// fireTimeout bounds how long an armed provider may run before the
	// harness kills it anyway.
	fireTimeout = 60 * time.Second
)

// env is what the trials of one lane share: the line, one envtest, one
// fake cloud, the binaries.
type env struct {
	line     testbed.Line
	cl       *fakecloudtest.Cluster
	fc       *testbed.FakeCloud
	provider string // built with -tags failpoints
	mode     Mode
	converge time.Duration
	// keep, when set, receives the reports and provider logs of every
	// trial that breaks an invariant.
	keep string
	// debug runs the provider with --debug (crossplane-runtime's and
	// upjet's debug lines in its logs).
	debug bool
}

// buildTagged builds the main package pkg with -tags failpoints.
func buildTagged(t testing.TB, pkg string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("cannot find the go command: %v", err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(pkg)+"-failpoints")
	if b, err := exec.Command(goBin, "build", "-tags", "failpoints", "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("cannot build %s with -tags failpoints: %v\n%s", pkg, err, b)
	}
	return out
}

// incarnation is one run of the provider process.
type incarnation struct {
	*testbed.Process
	started time.Time
}

// start runs the provider, logging to name.log, with the failpoint terms
// fps armed.
func (e *env) start(t *testing.T, dir, name string, fps ...failpoint.Term) *incarnation {
	t.Helper()
	args := []string{"--kubeconfig", e.cl.Kubeconfig, "--metrics-bind-address", "0", "--max-reconcile-rate=100",
		"--replica", "provider-0", "--recovery-report", filepath.Join(dir, "recovery.json")}
	if e.mode == ModeJournal {
		args = append(args, "--journal", filepath.Join(dir, "intents.db"))
	} else {
		args = append(args, "--annotation-only")
	}
	if e.debug {
		args = append(args, "--debug")
	}
	var envv []string
	if len(fps) > 0 {
		envv = append(envv, failpoint.EnvVar+"="+failpoint.Format(fps...))
	}
	return &incarnation{Process: testbed.StartProcess(t, name, e.provider, args, envv...), started: time.Now()}
}

// fired reports whether the incarnation's log shows its failpoint fired.
func (p *incarnation) fired(t *testing.T) bool {
	t.Helper()
	b, err := os.ReadFile(p.LogPath())
	if err != nil {
		t.Fatalf("cannot read provider log: %v", err)
	}
	return bytes.Contains(b, []byte("failpoint: ")) && bytes.Contains(b, []byte(" fired on hit "))
}

// logContains reports whether the incarnation's log holds s.
func (p *incarnation) logContains(t *testing.T, s string) bool {
	t.Helper()
	b, err := os.ReadFile(p.LogPath())
	if err != nil {
		t.Fatalf("cannot read provider log: %v", err)
	}
	return bytes.Contains(b, []byte(s))
}

// TrialResult is what one trial measured.
type TrialResult struct {
	Plan       Plan
	Mode       Mode
	Fired      bool // the crash happened at the planned point
	InFlight   int  // MRs without external name whose object the cloud had made, at the crash
	Duration   time.Duration
	Violations []Violation
}

// Passed reports whether kind passed the trial: no violation of that kind
// and none of the whole trial.
func (r TrialResult) Passed(kind string) bool {
	for _, v := range r.Violations {
		if v.Kind == kind || v.Kind == "" {
			return false
		}
	}
	return true
}

// runTrial runs the plan p as trial i and returns what it measured.
func (e *env) runTrial(t *testing.T, i int, p Plan) TrialResult {
	t.Helper()
	start := time.Now()
	res := TrialResult{Plan: p, Mode: e.mode}
	dir := t.TempDir()
	prefix := fmt.Sprintf("t%03d", i)
	// The look-alikes come first, without faults, and at least a second
	// before the MRs: creationTimestamp keeps whole seconds, and
	// not-bound-to-older compares the cloud's clock against it.
	e.fc.SetFaults(t, fakecloud.Faults{})
	theirs := e.createLookAlikes(t, prefix, p)
	mrsNotBefore := time.Now().Add(1100 * time.Millisecond)
	e.fc.SetFaults(t, fakecloud.Faults{
		Latency:       fakecloud.Latencies{Create: p.Faults.CreateLatency},
		ErrorRate:     fakecloud.Rates{Create: p.Faults.ErrorRate},
		AmbiguousRate: fakecloud.Rates{Create: p.Faults.AmbiguousRate},
	})
	before := e.fc.Stats(t)
	var reports [][]byte
	var logs []string
	collect := func(inc *incarnation) {
		inc.Kill()
		logs = append(logs, inc.LogPath())
		if b, err := os.ReadFile(filepath.Join(dir, "recovery.json")); err == nil {
			if len(reports) == 0 || !bytes.Equal(reports[len(reports)-1], b) {
				reports = append(reports, b)
			}
		}
	}

	first := p.Point
	if p.Point == DuringRecovery {
		first = p.First
	}
	var p1 *incarnation
	if fp := first.Failpoint(); fp != "" {
		p1 = e.start(t, dir, "provider-armed", failpoint.Term{Point: fp, Action: failpoint.ActionKill, OnHit: p.KillOnHit})
	} else {
		p1 = e.start(t, dir, "provider-armed")
	}
	if len(theirs) > 0 {
		time.Sleep(time.Until(mrsNotBefore))
	}
	names := e.createMRs(t, prefix, p)
	if first == DuringCreate {
		e.killDuringCreate(t, p1, prefix, theirs, p.KillOnHit)
		res.Fired = true
	} else {
		res.Fired = e.waitFired(t, p1, names)
	}
	res.InFlight = e.inFlight(t, names, theirs)
	collect(p1)
	t.Logf("crashed after %s", time.Since(start).Round(100*time.Millisecond))

	if p.Point == DuringRecovery {
		p2 := e.start(t, dir, "provider-recovery-armed", failpoint.Term{Point: failpoint.RecoveryResolved, Action: failpoint.ActionKill, OnHit: p.RecoveryKillOnHit})
		deadline := time.Now().Add(fireTimeout)
		for time.Now().Before(deadline) {
			if exited, _ := p2.Exited(); exited || p2.logContains(t, "recovery pass finished") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		res.Fired = res.Fired && p2.fired(t)
		collect(p2)
	}

	pf := e.start(t, dir, "provider-restarted")
	e.waitConverged(t, pf, names, dir)
	t.Logf("converged %s after the restart", time.Since(pf.started).Round(100*time.Millisecond))
	time.Sleep(time.Second) // anything still looping would show in the counts
	after := e.fc.Stats(t)
	collect(pf)

	o := Observation{
		MRs:        e.snapshot(t, names),
		LookAlikes: theirs,
		Reports:    reports,
		Conflicts:  conflictsFromLogs(t, logs),
		CloudConflicts: map[string]int64{
			KindRecordSet: after.Kinds["recordsets"].Conflicts - before.Kinds["recordsets"].Conflicts,
			KindNetwork:   after.Kinds["networks"].Conflicts - before.Kinds["networks"].Conflicts,
		},
	}
	for _, c := range cloudObjects(after) {
		if strings.HasPrefix(c.MR, prefix+"-") {
			o.Cloud = append(o.Cloud, c)
		}
	}
	if e.mode == ModeJournal {
		o.Journal, o.JournalErr = verifyJournal(filepath.Join(dir, "intents.db"))
	}
	res.Violations = Check(o)
	res.Duration = time.Since(start)
	if len(res.Violations) > 0 && e.keep != "" {
		keepEvidence(t, filepath.Join(e.keep, fmt.Sprintf("%s-%d", e.mode, p.Seed)), reports, logs, e.managed(t, names))
	}
	e.cleanup(t, names, slices.Concat(o.Cloud, theirs))
	return res
}

// createMRs creates the plan's managed resources named after prefix.
func (e *env) createMRs(t *testing.T, prefix string, p Plan) []string {
	t.Helper()
	var objs []client.Object
	var names []string
	for j := range p.RecordSets {
		n := rsName(prefix, j)
		objs = append(objs, e.line.RecordSet(n, zone))
		names = append(names, n)
	}
	for j := range p.Networks {
		n := netName(prefix, j)
		objs = append(objs, e.line.Network(n, cidr(p.Seed, j)))
		names = append(names, n)
	}
	e.cl.Create(t, objs...)
	return names
}

// killDuringCreate SIGKILLs inc once the cloud has committed n of the
// trial's creates, while it still holds their answers (create latency).
// The look-alikes theirs are not the trial's creates.
func (e *env) killDuringCreate(t *testing.T, inc *incarnation, prefix string, theirs []CloudObject, n int) {
	t.Helper()
	deadline := time.Now().Add(fireTimeout)
	for time.Now().Before(deadline) {
		if len(ownObjects(e.fc.Stats(t), prefix, theirs)) >= n {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	inc.Kill()
}

// waitFired waits until inc's failpoint fires (the process is gone), every
// MR has converged without it firing, or fireTimeout passes.
func (e *env) waitFired(t *testing.T, inc *incarnation, names []string) bool {
	t.Helper()
	deadline := time.Now().Add(fireTimeout)
	for time.Now().Before(deadline) {
		if exited, _ := inc.Exited(); exited {
			return inc.fired(t)
		}
		if converged(e.snapshot(t, names), len(names)) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// waitConverged waits until every MR is Ready or paused and the pass of
// inc has written its report, or e.converge passes.
func (e *env) waitConverged(t *testing.T, inc *incarnation, names []string, dir string) {
	t.Helper()
	deadline := time.Now().Add(e.converge)
	for time.Now().Before(deadline) {
		if exited, err := inc.Exited(); exited {
			t.Errorf("the restarted provider exited (%v); log:\n%s", err, inc.LogTail(40))
			return
		}
		st, err := os.Stat(filepath.Join(dir, "recovery.json"))
		if err == nil && !st.ModTime().Before(inc.started) && converged(e.snapshot(t, names), len(names)) {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// converged reports whether all want MRs exist and are Ready or paused.
func converged(mrs []MR, want int) bool {
	if len(mrs) != want {
		return false
	}
	for _, m := range mrs {
		if !m.Ready && !m.Paused {
			return false
		}
	}
	return true
}

// inFlight counts the MRs with no external name whose object the cloud
// has made; a look-alike (theirs) is not an MR's object.
func (e *env) inFlight(t *testing.T, names []string, theirs []CloudObject) int {
	t.Helper()
	made := map[string]bool{}
	for _, c := range cloudObjects(e.fc.Stats(t)) {
		if !slices.ContainsFunc(theirs, func(la CloudObject) bool { return la.ID == c.ID }) {
			made[c.MR] = true
		}
	}
	n := 0
	for _, m := range e.snapshot(t, names) {
		if m.ExternalName == "" && made[m.Name] {
			n++
		}
	}
	return n
}

// managed returns the RecordSets and Networks called names.
func (e *env) managed(t *testing.T, names []string) []*unstructured.Unstructured {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	var out []*unstructured.Unstructured
	for _, kind := range []string{KindRecordSet, KindNetwork} {
		l := e.line.List(kind)
		if err := e.cl.Client.List(ctx, l, e.line.ListOptions()...); err != nil {
			t.Fatalf("cannot list %s: %v", kind, err)
		}
		for i := range l.Items {
			if want[l.Items[i].GetName()] {
				out = append(out, &l.Items[i])
			}
		}
	}
	return out
}

// snapshot returns the invariants' view of the MRs called names.
func (e *env) snapshot(t *testing.T, names []string) []MR {
	t.Helper()
	var out []MR
	for _, mg := range e.managed(t, names) {
		out = append(out, snapshotOf(mg))
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

// cloudObjects flattens the fake cloud's live objects.
func cloudObjects(s fakecloud.Stats) []CloudObject {
	var out []CloudObject
	for _, o := range s.Objects.All() {
		out = append(out, CloudObject{Kind: o.Kind, ID: o.ID, MR: o.Tags[tagName], Tags: o.Tags, CreatedAt: o.CreatedAt})
	}
	return out
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
func (e *env) cleanup(t *testing.T, names []string, cloud []CloudObject) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	for _, mg := range e.managed(t, names) {
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
		if c.Kind == KindRecordSet {
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
