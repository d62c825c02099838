package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fccli"
)

// ScanResult is what `intentjournal scan --apply` found and did when it ran
// after the unwrapped run with a kill (Options.Scan): the operator's tool
// for a stock provider, which has no journal, run against the cluster and
// cloud the crash and the restarted provider left, the provider still
// running (docs/after-a-crash-without-a-rebuild.md).
type ScanResult struct {
	// Args are the scan's command line, after `intentjournal`.
	Args []string
	// ExitCode is the command's (3: the report needs an operator).
	ExitCode int
	// Took is the command's wall time, from start to report.
	Took time.Duration
	// Requests counts the command's API requests by HTTP method, as its
	// "scan API requests" log line gives them.
	Requests map[string]int
	// Lookups is how many cloud lookups the scan made.
	Lookups int
	// MRs is how many managed resources the run created.
	MRs int
	// Present and Named count, by cloud kind (RecordSet, Network), the
	// cloud objects bound to no MR when the scan began and still bound to
	// none when it ended (the leaks), and those of them the report names
	// (an entry's found resource).
	Present, Named map[string]int
	// BoundMeanwhile counts, by cloud kind, the cloud objects bound to no
	// MR when the scan began that an MR was bound to when it ended: the
	// provider, still running, made them and bound them while the scan
	// read the cluster, so they are no leak and not in Present. Scans
	// of a provider still creating have them.
	BoundMeanwhile map[string]int
	// NamedBound counts the cloud objects the report names as orphans
	// (outcome orphan) that an MR's external name names: wrongly named.
	NamedBound int
	// LoopsPresent counts the MRs looping on "already exists" when the
	// scan began (Synced False with that message, not paused); LoopsFound
	// those of them the report gives reason AlreadyExistsLoop, and
	// LoopsPaused those paused when the scan ended.
	LoopsPresent, LoopsFound, LoopsPaused int
	// Adopted counts the MRs the scan bound to a cloud object.
	Adopted int
	// Report is the scan's report.
	Report *report.Report
}

// RequestsTotal is the sum of Requests.
func (s ScanResult) RequestsTotal() int {
	n := 0
	for _, v := range s.Requests {
		n += v
	}
	return n
}

// scanCopiesMargin widens --copies-within past the run's age: every create
// of the run is inside the window.
const scanCopiesMargin = time.Hour

// scanAfter runs `intentjournal scan --apply` against the run's cluster and
// fake cloud, as an operator would after the crash, in this process with
// the development build's finder type (fakecloud), and measures it against
// the ground truth: the fake cloud's objects and the MRs.
func (r *run) scanAfter(ctx context.Context, res *Result, runStart time.Time) error {
	mrs, err := r.listMRs(ctx)
	if err != nil {
		return err
	}
	stats, err := r.stats(ctx)
	if err != nil {
		return err
	}
	orphans := unbound(mrs, stats)
	loops := map[string]bool{}
	for _, m := range mrs {
		if looping(m) {
			loops[m.Ref.String()] = true
		}
	}
	sr := &ScanResult{MRs: len(mrs), Present: map[string]int{}, Named: map[string]int{}, BoundMeanwhile: map[string]int{}, LoopsPresent: len(loops)}

	reportPath := filepath.Join(r.dir, "scan-report.json")
	sr.Args = []string{"scan", "--kubeconfig", r.cluster.kubeconfig, "--group", r.o.Line.Group, "--cloud-assigned", "*",
		"--copies-within", (time.Since(runStart) + scanCopiesMargin).Round(time.Minute).String(), "--apply",
		"--report", reportPath, "-o", "json"}
	for _, gvk := range r.o.Line.Kinds() {
		sr.Args = append(sr.Args, "--finder", gvk.GroupKind().String()+"=fakecloud:"+r.cloudURL)
	}
	r.log.Info("Running intentjournal scan --apply against the unwrapped provider's crash", zap.Strings("args", sr.Args[1:]),
		zap.Int("orphans-present", len(orphans)), zap.Int("loops-present", len(loops)))
	var stdout, stderr bytes.Buffer
	start := time.Now()
	sr.ExitCode = cli.Main(ctx, sr.Args, &stdout, &stderr, fccli.Option())
	sr.Took = time.Since(start)
	if sr.ExitCode != cli.ExitOK && sr.ExitCode != cli.ExitAttention {
		return fmt.Errorf("intentjournal scan exited %d:\n%s", sr.ExitCode, tail(stderr.String(), 20))
	}
	if sr.Requests, err = scanRequests(stderr.Bytes()); err != nil {
		return err
	}
	rep, err := report.ReadFile(reportPath)
	if err != nil {
		return fmt.Errorf("cannot read the scan's report: %w", err)
	}
	sr.Report = rep
	if t := rep.Summary.Timings; t != nil {
		sr.Lookups = t.LookupCount
	}

	after, err := r.listMRs(ctx)
	if err != nil {
		return err
	}
	boundAfter := boundIDs(after)
	present := map[string]string{} // ID -> kind
	for _, o := range orphans {
		if boundAfter[o.ID] {
			sr.BoundMeanwhile[o.Kind]++
			continue
		}
		present[o.ID] = o.Kind
		sr.Present[o.Kind]++
	}
	bound := boundIDs(mrs)
	named := map[string]bool{}
	for _, e := range rep.Entries {
		for _, f := range e.Found {
			if f.Adopted {
				sr.Adopted++
				continue
			}
			if kind, ok := present[f.ID]; ok && !named[f.ID] {
				named[f.ID] = true
				sr.Named[kind]++
			}
			if e.Outcome == report.OutcomeOrphan && bound[f.ID] {
				sr.NamedBound++
			}
		}
		if e.Scan != nil && slices.Contains(e.Scan.Reasons, "AlreadyExistsLoop") && loops[e.Resource.String()] {
			sr.LoopsFound++
		}
	}
	for _, m := range after {
		if m.Paused && loops[m.Ref.String()] {
			sr.LoopsPaused++
		}
	}
	res.Scan = sr
	r.log.Info("intentjournal scan finished", zap.Int("exit-code", sr.ExitCode), zap.Duration("took", sr.Took.Round(time.Millisecond)),
		zap.Any("orphans-named", sr.Named), zap.Any("orphans-present", sr.Present), zap.Any("bound-meanwhile", sr.BoundMeanwhile), zap.Int("loops-found", sr.LoopsFound),
		zap.Int("loops-paused", sr.LoopsPaused), zap.Int("api-requests", sr.RequestsTotal()), zap.Int("lookups", sr.Lookups))
	return nil
}

// msgExists is in the message of the fake cloud's 409, as upjet reports
// it in Synced: `recordset "rs-0001" already exists in zone "..."`.
const msgExists = "already exists"

// looping reports whether m loops on "already exists": its last reconcile
// failed on it, and nothing pauses it.
func looping(m managed) bool {
	return !m.Paused && !m.Synced && strings.Contains(m.SyncedMessage, msgExists)
}

// scanRequests reads the API requests of `intentjournal scan` from its log:
// the fields of its "scan API requests" line, by HTTP method.
func scanRequests(log []byte) (map[string]int, error) {
	const msg = "scan API requests"
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, msg)
		if i < 0 {
			continue
		}
		j := strings.IndexByte(line[i:], '{')
		if j < 0 {
			break
		}
		var fields map[string]int
		if err := json.Unmarshal([]byte(line[i+j:]), &fields); err != nil {
			return nil, fmt.Errorf("cannot read the scan's API requests from %q: %w", line, err)
		}
		delete(fields, "total")
		return fields, nil
	}
	return nil, fmt.Errorf("the scan logged no %q line", msg)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
