package crashmatrix

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
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
	// healWindow is how long a restarted provider that has not converged
	// within the converge window may take once the harness stops the
	// cloud failing. Each create of a trial fails at its error rate for as
	// long as the trial lasts; a resource whose creates keep failing is
	// retrying, not stuck, but each failure costs it a reconcile that
	// resolves the failed create's intent and another that creates again,
	// each backed off by crossplane-runtime up to a minute (once in CI:
	// five failed creates in a row of one Network, 6 minutes). With the
	// cloud healthy it needs two backoffs and one create, under 3 minutes;
	// what is still not Ready or paused then is stuck (not-stuck).
	healWindow = 3 * time.Minute
)

// env is what the trials of one lane share: the line, one envtest, one
// fake cloud, the binaries.
type env struct {
	line testbed.Line
	// weak, when set, is how the line runs within-skew trials
	// (WithWeakTags); records, its Record kind (WithRecords).
	weak    *WeakTags
	records *Records
	// providerArgs are every trial's extra provider flags
	// (WithProviderArgs).
	providerArgs []string
	cl           *fakecloudtest.Cluster
	fc           *testbed.FakeCloud
	provider     string // built with -tags failpoints
	mode         Mode
	converge     time.Duration
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

// trial is one trial as the harness runs it: its plan, and where its
// managed resources live.
type trial struct {
	p      Plan
	prefix string
	dir    string
	// line serves the trial's RecordSets and Networks: the env's line,
	// or in a within-skew trial the WeakTags line.
	line testbed.Line
	// providerArgs are the provider's extra flags: WeakTags.ProviderArgs
	// in a within-skew trial.
	providerArgs []string
	// records is how many Records the trial creates: the plan's foreign
	// records on a line with a Record kind, else none.
	records int
	// names are the managed resources' names, the Records' first.
	names []string
}

// newTrial lays out the plan p as trial i.
func (e *env) newTrial(t *testing.T, i int, p Plan) *trial {
	tr := &trial{p: p, prefix: fmt.Sprintf("t%03d", i), dir: t.TempDir(), line: e.line}
	if p.LookAlikesWithinSkew && p.LookAlikes() > 0 && e.weak != nil {
		tr.line, tr.providerArgs = e.weak.Line, e.weak.ProviderArgs
	}
	if e.records != nil {
		tr.records = p.ForeignRecords
	}
	for j := range tr.records {
		tr.names = append(tr.names, recName(tr.prefix, j))
	}
	for j := range p.RecordSets {
		tr.names = append(tr.names, rsName(tr.prefix, j))
	}
	for j := range p.Networks {
		tr.names = append(tr.names, netName(tr.prefix, j))
	}
	return tr
}

// lists returns empty lists of the kinds the trial creates, with the
// options that scope each to its namespace.
func (e *env) lists(tr *trial) []scopedList {
	out := []scopedList{
		{tr.line.List(KindRecordSet), tr.line.ListOptions()},
		{tr.line.List(KindNetwork), tr.line.ListOptions()},
	}
	if tr.records > 0 {
		out = append(out, scopedList{e.records.Line.List(KindRecord), e.records.Line.ListOptions()})
	}
	return out
}

// scopedList is a list of one kind and what scopes it.
type scopedList struct {
	list *unstructured.UnstructuredList
	opts []client.ListOption
}

// start runs the trial's provider, logging to name.log, with the
// failpoint terms fps armed.
func (e *env) start(t *testing.T, tr *trial, name string, fps ...failpoint.Term) *incarnation {
	t.Helper()
	dir := tr.dir
	args := []string{"--kubeconfig", e.cl.Kubeconfig, "--metrics-bind-address", "0", "--max-reconcile-rate=100",
		"--replica", "provider-0", "--recovery-report", filepath.Join(dir, "recovery.json")}
	args = append(args, e.providerArgs...)
	args = append(args, tr.providerArgs...)
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
	Plan     Plan
	Mode     Mode
	Fired    bool // the crash happened at the planned point
	InFlight int  // MRs without external name whose object the cloud had made, at the crash
	// Weak says the provider sent no UID tag (a within-skew trial on a
	// line WithWeakTags): only weak proofs could find its resources.
	Weak bool
	// Records is how many Records the trial created; Foreign how many
	// foreign records the harness made at their keys before their
	// creates (the rest lost the race).
	Records, Foreign int
	// Healed says the restarted provider converged only after the
	// harness stopped the cloud failing (healWindow).
	Healed     bool
	Duration   time.Duration
	Violations []Violation
}

// Kinds returns the kinds the trial created.
func (r TrialResult) Kinds() []string {
	k := r.Plan.Kinds()
	if r.Records > 0 {
		k = append(k, KindRecord)
	}
	return k
}

// variant describes, for the trial's log line, what issue #29 added.
func (r TrialResult) variant() string {
	var s string
	if r.Weak {
		s += " no-uid-tag"
	}
	if r.Records > 0 {
		s += fmt.Sprintf(" foreign-made=%d/%d", r.Foreign, r.Records)
	}
	if r.Healed {
		s += " healed"
	}
	return s
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
	tr := e.newTrial(t, i, p)
	res := TrialResult{Plan: p, Mode: e.mode, Weak: len(tr.providerArgs) > 0, Records: tr.records}
	dir := tr.dir
	// The look-alikes come first, without faults. Older ones (issue #15)
	// come at least a second before the MRs: creationTimestamp keeps
	// whole seconds, and not-bound-to-older compares the cloud's clock
	// against it. Those within the skew allowance (issue #29) need no
	// wait: the creates begin seconds after them.
	e.fc.SetFaults(t, fakecloud.Faults{})
	theirs := e.createLookAlikes(t, tr)
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
		p1 = e.start(t, tr, "provider-armed", failpoint.Term{Point: fp, Action: failpoint.ActionKill, OnHit: p.KillOnHit})
	} else {
		p1 = e.start(t, tr, "provider-armed")
	}
	if len(theirs) > 0 && !p.LookAlikesWithinSkew {
		time.Sleep(time.Until(mrsNotBefore))
	}
	var foreign *foreignRecords
	if tr.records > 0 {
		// Watching before the Records exist: the key probe may label
		// one at once.
		foreign = e.raceForeignRecords(t, tr.names[:tr.records], p.LookAlikesSuperset)
	}
	e.createMRs(t, tr)
	if first == DuringCreate {
		e.killDuringCreate(t, p1, tr.prefix, theirs, p.KillOnHit)
		res.Fired = true
	} else {
		res.Fired = e.waitFired(t, p1, tr)
	}
	res.InFlight = e.inFlight(t, tr, theirs, foreign)
	collect(p1)
	t.Logf("crashed after %s", time.Since(start).Round(100*time.Millisecond))

	if p.Point == DuringRecovery {
		p2 := e.start(t, tr, "provider-recovery-armed", failpoint.Term{Point: failpoint.RecoveryResolved, Action: failpoint.ActionKill, OnHit: p.RecoveryKillOnHit})
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

	pf := e.start(t, tr, "provider-restarted")
	if !e.waitConverged(t, pf, tr, e.converge) {
		t.Logf("not converged %s after the restart, the cloud failing %.0f%% of creates; from now on it fails none", e.converge, 100*p.Faults.ErrorRate)
		e.fc.SetFaults(t, fakecloud.Faults{})
		res.Healed = true
		e.waitConverged(t, pf, tr, healWindow)
	}
	t.Logf("converged %s after the restart", time.Since(pf.started).Round(100*time.Millisecond))
	time.Sleep(time.Second) // anything still looping would show in the counts
	fr := foreign.stop()
	res.Foreign = len(fr.made)
	if tr.records > 0 {
		t.Logf("foreign records: %d made between the key probe and the create, %d races lost to the Record's own create", len(fr.made), fr.lost)
	}
	after := e.fc.Stats(t)
	collect(pf)

	o := Observation{
		MRs:        e.snapshot(t, tr),
		LookAlikes: slices.Concat(theirs, fr.made),
		Reports:    reports,
		Conflicts:  conflictsFromLogs(t, logs),
		CloudConflicts: map[string]int64{
			KindRecordSet: after.Kinds["recordsets"].Conflicts - before.Kinds["recordsets"].Conflicts - fr.conflicts,
			KindNetwork:   after.Kinds["networks"].Conflicts - before.Kinds["networks"].Conflicts,
		},
	}
	for _, c := range e.cloudObjects(after) {
		if strings.HasPrefix(c.MR, tr.prefix+"-") {
			o.Cloud = append(o.Cloud, c)
		}
	}
	if e.mode == ModeJournal {
		o.Journal, o.JournalErr = verifyJournal(filepath.Join(dir, "intents.db"))
	}
	res.Violations = Check(o)
	for _, l := range lookAlikeFates(o) {
		t.Log(l)
	}
	res.Duration = time.Since(start)
	if len(res.Violations) > 0 && e.keep != "" {
		keepEvidence(t, filepath.Join(e.keep, fmt.Sprintf("%s-%d", e.mode, p.Seed)), reports, logs, e.managed(t, tr))
	}
	e.cleanup(t, tr, slices.Concat(o.Cloud, o.LookAlikes))
	return res
}

// createMRs creates the trial's managed resources: its Records first,
// so that the kills the plan places among the first hits often meet them.
func (e *env) createMRs(t *testing.T, tr *trial) {
	t.Helper()
	var objs []client.Object
	for _, n := range tr.names[:tr.records] {
		fp := map[string]any{"zone": zone, "name": n, "type": "A", "ttl": int64(recordTTL), "rrdatas": []any{recordData}}
		if tr.p.LookAlikesSuperset {
			delete(fp, "ttl") // left to its default, 300: a foreign TTL of 600 is a superset
		}
		objs = append(objs, e.records.Line.Managed(KindRecord, n, fp))
	}
	for j := range tr.p.RecordSets {
		objs = append(objs, tr.line.RecordSet(rsName(tr.prefix, j), zone))
	}
	for j := range tr.p.Networks {
		objs = append(objs, tr.line.Network(netName(tr.prefix, j), cidr(tr.p.Seed, j)))
	}
	e.cl.Create(t, objs...)
}

// killDuringCreate SIGKILLs inc once the cloud has committed n of the
// trial's creates, while it still holds their answers (create latency).
// The look-alikes theirs are not the trial's creates.
func (e *env) killDuringCreate(t *testing.T, inc *incarnation, prefix string, theirs []CloudObject, n int) {
	t.Helper()
	deadline := time.Now().Add(fireTimeout)
	for time.Now().Before(deadline) {
		if len(ownObjects(e.cloudObjects(e.fc.Stats(t)), prefix, theirs)) >= n {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	inc.Kill()
}

// waitFired waits until inc's failpoint fires (the process is gone), every
// MR has converged without it firing, or fireTimeout passes.
func (e *env) waitFired(t *testing.T, inc *incarnation, tr *trial) bool {
	t.Helper()
	deadline := time.Now().Add(fireTimeout)
	for time.Now().Before(deadline) {
		if exited, _ := inc.Exited(); exited {
			return inc.fired(t)
		}
		if converged(e.snapshot(t, tr), len(tr.names)) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// waitConverged waits until every MR is Ready or paused and the pass of
// inc has written its report, or within passes. It reports whether it
// saw that; a provider that exited fails the test and counts as
// converged, since waiting longer cannot help.
func (e *env) waitConverged(t *testing.T, inc *incarnation, tr *trial, within time.Duration) bool {
	t.Helper()
	dir := tr.dir
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if exited, err := inc.Exited(); exited {
			t.Errorf("the restarted provider exited (%v); log:\n%s", err, inc.LogTail(40))
			return true
		}
		st, err := os.Stat(filepath.Join(dir, "recovery.json"))
		if err == nil && !st.ModTime().Before(inc.started) && converged(e.snapshot(t, tr), len(tr.names)) {
			return true
		}
		time.Sleep(250 * time.Millisecond)
	}
	return false
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
// has made; a look-alike (theirs) or a foreign record is not an MR's
// object.
func (e *env) inFlight(t *testing.T, tr *trial, theirs []CloudObject, foreign *foreignRecords) int {
	t.Helper()
	made := map[string]bool{}
	for _, c := range e.cloudObjects(e.fc.Stats(t)) {
		if !slices.ContainsFunc(theirs, func(la CloudObject) bool { return la.ID == c.ID }) && !foreign.theirs(c) {
			made[c.MR] = true
		}
	}
	n := 0
	for _, m := range e.snapshot(t, tr) {
		if m.ExternalName == "" && made[m.Name] {
			n++
		}
	}
	return n
}
