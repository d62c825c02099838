package scaleout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

const (
	// leaseNS holds every Lease of the tests.
	leaseNS = "crossplane-system"
	// leaderElectionID is cmd/provider-fakecloud's leader-election Lease
	// prefix.
	leaderElectionID = "crossplane-leader-election-provider-fakecloud"
	// zone holds the tests' record sets (on a namespaced line, each
	// namespace's own zone; see zoneOf).
	zone = "example-com"
	// tagName is the crossplane-name tag upjet puts on cloud objects.
	tagName = recovery.TagCrossplaneName
	// apiTimeout bounds one API call of a test.
	apiTimeout = 30 * time.Second
)

// env is a cluster serving one line's CRDs, the fake cloud and the built
// binaries.
type env struct {
	line testbed.Line
	// scopes are where the managed resources of a batch go (see spread):
	// line, and on a namespaced line a second namespace.
	scopes []testbed.Line
	bins   testbed.Binaries
	cl     *fakecloudtest.Cluster
	fc     *testbed.FakeCloud
	dir    string
	// kube knows the built-in kinds (Leases).
	kube client.Client
	// providers are the replicas e.provider started, whose logs a failed
	// convergence searches for the stuck resources.
	providers []*testbed.Provider
}

// start builds line's binaries, starts envtest with line's CRDs, the fake
// cloud with the given create latency and line's provider config, and
// creates the Lease namespace and the managed resources' namespaces.
// Under -short it skips t before building (testbed.BuildBinaries).
func start(t *testing.T, line testbed.Line, createLatency time.Duration) *env {
	t.Helper()
	e := &env{line: line, scopes: scopes(line), bins: testbed.BuildBinaries(t, line.ProviderPackage), dir: t.TempDir()}
	where := "cluster-scoped"
	if line.Namespaced() {
		var nss []string
		for _, s := range e.scopes {
			nss = append(nss, s.Namespace)
		}
		where = fmt.Sprintf("namespaces %q", nss)
	}
	t.Logf("scale-out: line %s, group %s, %s", line.Name, line.Group, where)
	e.cl = fakecloudtest.StartClusterWith(t, line.CRDs)
	e.fc = testbed.StartFakeCloud(t, e.bins.FakeCloud, fmt.Sprintf(`--faults={"latency":{"create":%q}}`, createLatency))
	kube, err := client.New(e.cl.Config, client.Options{})
	if err != nil {
		t.Fatalf("cannot create a client for Leases: %v", err)
	}
	e.kube = kube
	objs := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS}}}
	for _, s := range e.scopes {
		if s.Namespaced() {
			objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.Namespace}})
		}
	}
	e.cl.Create(t, append(objs, line.ProviderConfig(e.fc.URL))...)
	return e
}

// provider starts provider-fakecloud as replica, with common flags plus
// args. Its log is named after the replica.
func (e *env) provider(t *testing.T, replica string, args ...string) *testbed.Provider {
	t.Helper()
	all := append([]string{"--max-reconcile-rate=100", "--poll=5s", "--leader-election-namespace=" + leaseNS,
		"--bucket-lease-namespace=" + leaseNS, "--replica", replica}, args...)
	p := testbed.StartNamedProvider(t, "provider-"+replica, e.bins.Provider, e.cl.Kubeconfig, all...)
	e.providers = append(e.providers, p)
	return p
}

// path returns a file name in the test's directory.
func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

// labelled sets the shard label on obj and returns it.
func labelled[T client.Object](obj T, shard string) T {
	obj.SetLabels(map[string]string{ownership.DefaultShardLabel: shard})
	return obj
}

// managed lists every managed resource of both kinds, in every namespace,
// each kind sorted by key.
func (e *env) managed(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, kind := range []string{testbed.KindRecordSet, testbed.KindNetwork} {
		l := e.line.List(kind)
		if err := retryTransient(t, "list "+kind, func(ctx context.Context) error { return e.cl.Client.List(ctx, l) }); err != nil {
			t.Fatalf("cannot list %s: %v", kind, err)
		}
		items := make([]*unstructured.Unstructured, len(l.Items))
		for i := range l.Items {
			items[i] = &l.Items[i]
		}
		slices.SortFunc(items, func(a, b *unstructured.Unstructured) int { return strings.Compare(key(a), key(b)) })
		out = append(out, items...)
	}
	return out
}

// transientAttempts bounds retryTransient: a test's read survives an API
// server that is slow for a while (three providers relisting after a
// restart, on a loaded CI machine), never one that is down.
const transientAttempts = 4

// retryTransient runs call with a fresh apiTimeout context until it
// succeeds, fails for good, or has timed out transientAttempts times. Only
// a timeout or the API server's own "try again" answers are retried, each
// one logged: what the tests measure is the provider, not how fast the
// test's own reads are served.
func retryTransient(t *testing.T, what string, call func(context.Context) error) error {
	t.Helper()
	var err error
	for attempt := 1; attempt <= transientAttempts; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		err = call(ctx)
		cancel()
		if err == nil || !transient(err) {
			return err
		}
		t.Logf("%s: attempt %d of %d: %v", what, attempt, transientAttempts, err)
	}
	return err
}

// transient reports whether err is a timeout or an API server answer
// that asks the client to come back later.
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err)
}

// lease returns the Lease name in leaseNS, or nil when there is none.
func lease(t *testing.T, e *env, name string) *coordinationv1.Lease {
	t.Helper()
	l := &coordinationv1.Lease{}
	get := func(ctx context.Context) error {
		return e.kube.Get(ctx, types.NamespacedName{Namespace: leaseNS, Name: name}, l)
	}
	if err := retryTransient(t, "get lease "+name, get); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil
		}
		t.Fatalf("cannot get lease %s: %v", name, err)
	}
	return l
}

// figures are the crash matrix's invariants, measured.
type figures struct {
	MRs, CloudObjects, Creates, Conflicts int64
	// Duplicates counts cloud objects beyond one per MR and kind.
	Duplicates int
	// Orphans are cloud objects no MR is bound to; Unreported those of
	// them no recovery report lists.
	Orphans, Unreported []string
	// DoubleBound are external names more than one MR is bound to.
	DoubleBound []string
	// Stuck are MRs (by key) neither Ready nor paused with a report entry.
	Stuck []string
}

// ok reports whether f meets the invariants.
func (f figures) ok() bool {
	return f.Duplicates == 0 && len(f.Unreported) == 0 && len(f.DoubleBound) == 0 && len(f.Stuck) == 0
}

// measure computes the figures from the MRs, the fake cloud and the
// recovery reports.
func (e *env) measure(t *testing.T, reports ...*report.Report) figures {
	t.Helper()
	mrs := e.managed(t)
	st := e.fc.Stats(t)
	return tally(mrs, st.Objects.All(), st.Total().Creates, st.Total().Conflicts, reports...)
}

// tally computes the figures from the MRs, the fake cloud's live objects,
// its create and conflict counts, and the recovery reports (nil ones
// skipped).
func tally(mrs []*unstructured.Unstructured, objs []fakecloud.Object, creates, conflicts int64, reports ...*report.Report) figures {
	f := figures{MRs: int64(len(mrs)), Creates: creates, Conflicts: conflicts}
	reported := map[string]bool{}
	paused := map[string]bool{}
	for _, rep := range reports {
		if rep == nil {
			continue
		}
		for _, ent := range rep.Entries {
			for _, fo := range ent.Found {
				if !fo.Adopted {
					reported[fo.ID] = true
				}
			}
			if ent.Outcome == report.OutcomeConflict {
				paused[refKey(ent.Resource)] = true
			}
		}
	}
	bound := map[string]int{}
	for _, mg := range mrs {
		if en := externalName(mg); en != "" {
			bound[en]++
		}
		if !isReady(mg) && !(isPaused(mg) && paused[key(mg)]) {
			f.Stuck = append(f.Stuck, key(mg))
		}
	}
	// A cloud object belongs to the MR its crossplane tags name: kind,
	// namespace (on a namespaced line) and name.
	per := map[[3]string]int{}
	for _, o := range objs {
		f.CloudObjects++
		per[[3]string{o.Kind, o.Tags[recovery.TagCrossplaneNamespace], o.Tags[tagName]}]++
		if bound[o.ID] == 0 {
			f.Orphans = append(f.Orphans, o.ID)
			if !reported[o.ID] {
				f.Unreported = append(f.Unreported, o.ID)
			}
		}
	}
	for _, n := range per {
		f.Duplicates += max(0, n-1)
	}
	for en, n := range bound {
		if n > 1 {
			f.DoubleBound = append(f.DoubleBound, en)
		}
	}
	slices.Sort(f.Stuck)
	slices.Sort(f.Orphans)
	slices.Sort(f.Unreported)
	slices.Sort(f.DoubleBound)
	return f
}

// converge waits until the figures meet the invariants, and returns them.
func converge(t *testing.T, e *env, timeout time.Duration, reports func() []*report.Report) figures {
	t.Helper()
	var f figures
	deadline := time.Now().Add(timeout)
	for {
		f = e.measure(t, reports()...)
		if f.ok() {
			return f
		}
		if time.Now().After(deadline) {
			var stuck []*unstructured.Unstructured
			for _, mg := range e.managed(t) {
				if slices.Contains(f.Stuck, key(mg)) {
					stuck = append(stuck, mg)
				}
			}
			t.Fatalf("after %s the invariants do not hold: %+v\nstuck:\n%s%s", timeout, f, describe(stuck), e.mentions(stuck))
		}
		time.Sleep(time.Second)
	}
}

// readReport reads and validates a recovery report file; a missing file
// is nil.
func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	rep, err := report.ReadFile(path)
	if err != nil {
		return nil
	}
	return rep
}

// verifyJournal opens the journal at path (its process must have exited)
// and fails the test unless it verifies and holds no unsettled intent.
func verifyJournal(t *testing.T, path string) *journal.VerifyReport {
	t.Helper()
	j, err := journal.Open(path)
	if err != nil {
		t.Fatalf("cannot open journal %s: %v", path, err)
	}
	defer j.Close()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	vr, err := j.Verify(ctx)
	if err != nil {
		t.Fatalf("cannot verify journal %s: %v", path, err)
	}
	if !vr.OK() {
		t.Errorf("journal %s does not verify: %+v", path, vr)
	}
	return vr
}

// validateReport fails the test unless the report file at path exists and
// validates against the report schema.
func validateReport(t *testing.T, path string) *report.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read recovery report: %v", err)
	}
	if err := report.ValidateJSON(b); err != nil {
		t.Fatalf("recovery report %s does not validate: %v", path, err)
	}
	rep, err := report.Decode(b)
	if err != nil {
		t.Fatalf("cannot decode recovery report %s: %v", path, err)
	}
	return rep
}

// running fails the test at once if any of ps has exited, so a provider
// that fails at start shows its log rather than a timeout.
func running(t *testing.T, ps ...*testbed.Provider) {
	t.Helper()
	for _, p := range ps {
		if done, err := p.Exited(); done {
			t.Fatalf("provider (pid %d) exited: %v\n%s", p.Pid(), err, p.LogTail(20))
		}
	}
}

// recoveryPasses returns the outcome counts of every recovery pass a
// provider's log records that resolved anything.
func recoveryPasses(t *testing.T, logPath string) []map[string]int {
	t.Helper()
	var out []map[string]int
	for _, p := range passes(t, logPath) {
		out = append(out, p.outcomes)
	}
	return out
}

// pass is one recovery pass that resolved something, as a provider logged
// it: later is true for the passes a boot ran after its first complete one
// (the Recoverer's takeover passes).
type pass struct {
	outcomes map[string]int
	later    bool
}

// passes parses a provider's log, across its restarts (testbed marks each
// start), into the recovery passes that resolved something.
func passes(t *testing.T, logPath string) []pass {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("cannot read provider log: %v", err)
	}
	var out []pass
	complete := false
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "==== testbed: start") {
			complete = false
			continue
		}
		var rec struct {
			Msg      string         `json:"msg"`
			Outcomes map[string]int `json:"outcomes"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		switch {
		case rec.Msg == "recovery complete":
			complete = true
		case rec.Msg == "recovery pass finished" && len(rec.Outcomes) > 0:
			out = append(out, pass{outcomes: rec.Outcomes, later: complete})
		}
	}
	return out
}

// readFile returns the contents of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s: %v", path, err)
	}
	return string(b)
}

// mentions returns, for each of mgs, the replicas' log lines that name it
// (at most mentionLines per replica): what each replica did with a stuck
// resource, which the tail of its log rarely shows.
func (e *env) mentions(mgs []*unstructured.Unstructured) string {
	const mentionLines = 40
	var b strings.Builder
	for _, mg := range mgs {
		needle := fmt.Sprintf("%q", mg.GetName())
		// A line naming a namespace must name mg's: the same name lives
		// in the twin namespace too.
		ns := fmt.Sprintf(`"namespace":%q`, mg.GetNamespace())
		for _, p := range e.providers {
			data, err := os.ReadFile(p.LogPath())
			if err != nil {
				fmt.Fprintf(&b, "cannot read %s: %v\n", p.LogPath(), err)
				continue
			}
			var lines []string
			for l := range strings.Lines(string(data)) {
				named := strings.Contains(l, needle) && (!strings.Contains(l, `"namespace":`) || strings.Contains(l, ns))
				if named || strings.HasPrefix(l, "==== testbed:") {
					lines = append(lines, l)
				}
			}
			if len(lines) > mentionLines {
				lines = lines[len(lines)-mentionLines:]
			}
			fmt.Fprintf(&b, "%s in %s:\n%s", key(mg), p.LogPath(), strings.Join(lines, ""))
		}
	}
	return b.String()
}
