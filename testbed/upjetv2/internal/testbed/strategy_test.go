package testbed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/intentjournal/intentjournal/recovery/report"
)

// createLatency is how long the fake cloud takes over every create in the
// per-strategy SIGKILL tests (TestWrappedProviderCrashName and
// TestWrappedProviderCrashTemplate): long enough that the creates are still
// in flight when the provider is killed once all are dispatched. At 3 s, a
// CI run with two test packages at once on 2 cores took longer than that
// to dispatch 22 creates (client-side throttling): the first twin's create
// ended first, and the second twin, its key held, was never dispatched.
const createLatency = 10 * time.Second

// strategyBed is what the per-strategy SIGKILL tests share: a Testbed over
// both namespaces whose fake cloud answers every create after
// createLatency, and a wrapped provider with a journal and a recovery
// report in the test's temporary directory.
type strategyBed struct {
	*Testbed
	// Journal and Report are the provider's journal and report files.
	Journal, Report string
}

// newStrategyBed starts a strategyBed.
func newStrategyBed(t *testing.T) strategyBed {
	t.Helper()
	dir := t.TempDir()
	b := strategyBed{Journal: filepath.Join(dir, "intents.db"), Report: filepath.Join(dir, "recovery-report.json")}
	b.Testbed = New(t, BuildBinaries(t), Options{
		FakeCloudArgs: []string{fmt.Sprintf(`--faults={"latency":{"create":%q}}`, createLatency)},
		ProviderArgs: []string{"--max-reconcile-rate=100", "--journal=" + b.Journal,
			"--recovery-report=" + b.Report},
		Namespaces: namespaces,
	})
	return b
}

// restart removes the killed boot's recovery report and restarts the
// provider: readReport then waits for the restarted boot's own, which its
// recovery pass writes only after it has patched every MR it decided for
// (a report read as soon as the MRs are Ready may still be the first
// boot's).
func (b strategyBed) restart(t *testing.T) {
	t.Helper()
	if err := os.Remove(b.Report); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cannot remove the killed boot's recovery report: %v", err)
	}
	b.Provider.Restart()
}

// readReport waits for the recovery report of the boot restart started,
// and reads it.
func (b strategyBed) readReport(t *testing.T) *report.Report {
	t.Helper()
	return waitReport(t, b.Report)
}

// waitReport waits for the recovery report at path to exist, and reads it.
func waitReport(t *testing.T, path string) *report.Report {
	t.Helper()
	var rep *report.Report
	Eventually(t, 2*time.Minute, 100*time.Millisecond, "the provider's recovery report at "+path, func() (bool, error) {
		var err error
		rep, err = report.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	})
	return rep
}

// killWhenDispatched waits until every managed resource of kinds has had
// its async create dispatched, SIGKILLs the provider and returns when it
// did.
func (b strategyBed) killWhenDispatched(t *testing.T, kinds ...func() resource.ManagedList) time.Time {
	t.Helper()
	Eventually(t, time.Minute, 50*time.Millisecond, "every async create to be dispatched", func() (bool, error) {
		for _, mg := range listAll(t, b.Cluster, kinds) {
			if meta.GetExternalCreateSucceeded(mg).IsZero() {
				return false, nil
			}
		}
		return true, nil
	})
	b.Provider.Kill()
	return time.Now()
}

// waitCommitted waits until the fake cloud has committed creates creates
// of kind (its stats' kind, e.g. "recordsets"), and returns the 409s it
// has answered by then: those after the restart are counted from it.
func (b strategyBed) waitCommitted(t *testing.T, kind string, creates int64) (conflicts int64) {
	t.Helper()
	Eventually(t, 2*createLatency, 100*time.Millisecond, "the fake cloud to commit every create", func() (bool, error) {
		return b.FakeCloud.Stats(t).Kinds[kind].Creates == creates, nil
	})
	return b.FakeCloud.Stats(t).Kinds[kind].Conflicts
}
