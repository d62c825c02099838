package scaleout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/testbed"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/recovery"
)

const (
	// leaseNS holds every Lease of the tests.
	leaseNS = "crossplane-system"
	// leaderElectionID is cmd/provider-fakecloud's leader-election Lease
	// prefix.
	leaderElectionID = "crossplane-leader-election-provider-fakecloud"
	// zone holds the tests' record sets.
	zone = "example-com"
	// tagName is the crossplane-name tag upjet puts on cloud objects.
	tagName = "crossplane-name"
	// apiTimeout bounds one API call of a test.
	apiTimeout = 30 * time.Second
)

// env is a cluster, the fake cloud and the built binaries.
type env struct {
	bins testbed.Binaries
	cl   *testbed.Cluster
	fc   *testbed.FakeCloud
	dir  string
	// kube knows the built-in kinds (Leases).
	kube client.Client
}

// start starts envtest, the fake cloud with the given create latency and
// the ProviderConfig, and creates the Lease namespace.
func start(t *testing.T, createLatency time.Duration) *env {
	t.Helper()
	e := &env{bins: testbed.BuildBinaries(t), dir: t.TempDir()}
	e.cl = testbed.StartCluster(t)
	e.fc = testbed.StartFakeCloud(t, e.bins.FakeCloud, fmt.Sprintf(`--faults={"latency":{"create":%q}}`, createLatency))
	testbed.CreateProviderConfig(t, e.cl, e.fc.URL)
	kube, err := client.New(e.cl.Config, client.Options{})
	if err != nil {
		t.Fatalf("cannot create a client for Leases: %v", err)
	}
	e.kube = kube
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := e.kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS}}); err != nil {
		t.Fatalf("cannot create namespace %s: %v", leaseNS, err)
	}
	return e
}

// provider starts provider-fakecloud with common flags plus args.
func (e *env) provider(t *testing.T, args ...string) *testbed.Provider {
	t.Helper()
	all := append([]string{"--max-reconcile-rate=100", "--poll=5s", "--leader-election-namespace=" + leaseNS,
		"--bucket-lease-namespace=" + leaseNS}, args...)
	return testbed.StartProvider(t, e.bins.Provider, e.cl, all...)
}

// path returns a file name in the test's directory.
func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

// labelled sets the shard label on obj and returns it.
func labelled[T client.Object](obj T, shard string) T {
	obj.SetLabels(map[string]string{ownership.DefaultShardLabel: shard})
	return obj
}

// managed lists every managed resource of both kinds.
func managed(t *testing.T, cl *testbed.Cluster) []resource.Managed {
	t.Helper()
	out := testbed.List(t, cl, &v1alpha1.RecordSetList{})
	return append(out, testbed.List(t, cl, &v1alpha1.NetworkList{})...)
}

// lease returns the Lease name in leaseNS, or nil when there is none.
func lease(t *testing.T, e *env, name string) *coordinationv1.Lease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	l := &coordinationv1.Lease{}
	if err := e.kube.Get(ctx, types.NamespacedName{Namespace: leaseNS, Name: name}, l); err != nil {
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
	// Stuck are MRs neither Ready nor paused with a report entry.
	Stuck []string
}

// ok reports whether f meets the invariants.
func (f figures) ok() bool {
	return f.Duplicates == 0 && len(f.Unreported) == 0 && len(f.DoubleBound) == 0 && len(f.Stuck) == 0
}

// measure computes the figures from the MRs, the fake cloud and the
// recovery reports.
func measure(t *testing.T, cl *testbed.Cluster, fc *testbed.FakeCloud, reports ...*recovery.Report) figures {
	t.Helper()
	mrs := managed(t, cl)
	st := fc.Stats(t)
	f := figures{MRs: int64(len(mrs)), Creates: st.Total().Creates, Conflicts: st.Total().Conflicts}
	reported := map[string]bool{}
	paused := map[string]bool{}
	for _, rep := range reports {
		if rep == nil {
			continue
		}
		for _, e := range rep.Entries {
			for _, fo := range e.Found {
				if !fo.Adopted {
					reported[fo.ID] = true
				}
			}
			if e.Outcome == recovery.OutcomeConflict {
				paused[e.Resource.Name] = true
			}
		}
	}
	bound := map[string]int{}
	for _, mg := range mrs {
		if en := meta.GetExternalName(mg); en != "" {
			bound[en]++
		}
		if !testbed.IsReady(mg) && !(meta.IsPaused(mg) && paused[mg.GetName()]) {
			f.Stuck = append(f.Stuck, mg.GetName())
		}
	}
	per := map[[2]string]int{}
	for _, o := range st.Objects.All() {
		f.CloudObjects++
		per[[2]string{o.Kind, o.Tags[tagName]}]++
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
	return f
}

// converge waits until the figures meet the invariants, and returns them.
func converge(t *testing.T, e *env, timeout time.Duration, reports func() []*recovery.Report) figures {
	t.Helper()
	var f figures
	deadline := time.Now().Add(timeout)
	for {
		f = measure(t, e.cl, e.fc, reports()...)
		if f.ok() {
			return f
		}
		if time.Now().After(deadline) {
			var stuck []resource.Managed
			for _, mg := range managed(t, e.cl) {
				if slices.Contains(f.Stuck, mg.GetName()) {
					stuck = append(stuck, mg)
				}
			}
			t.Fatalf("after %s the invariants do not hold: %+v\nstuck:\n%s", timeout, f, testbed.Describe(stuck))
		}
		time.Sleep(time.Second)
	}
}

// readReport reads and validates a recovery report file; a missing file
// is nil.
func readReport(t *testing.T, path string) *recovery.Report {
	t.Helper()
	rep, err := recovery.ReadReportFile(path)
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
func validateReport(t *testing.T, path string) *recovery.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read recovery report: %v", err)
	}
	if err := recovery.ValidateReportJSON(b); err != nil {
		t.Fatalf("recovery report %s does not validate: %v", path, err)
	}
	rep, err := recovery.DecodeReport(b)
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
