package recovery_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// TestRecovererUnderManager runs the Recoverer in a real controller-runtime
// manager with leader election: the gate is shut until the pass is done,
// and progress is logged at info level.
func TestRecovererUnderManager(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var uids []types.UID
	for i := range 5 {
		rs := newRecordSet(fmt.Sprintf("mgr-%d", i), "zone-mgr")
		e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-mgr", "name": rs.GetName()})
		uids = append(uids, rs.GetUID())
	}
	core, logs := observer.New(zap.InfoLevel)
	o := e.options(uids...)
	o.Logger = zapr.NewLogger(zap.New(core))
	o.Policy.ProgressEvery = 2
	rec := recovery.NewRecoverer(o)
	rec.ReportPath = filepath.Join(t.TempDir(), "report.json")
	if err := rec.Gate().Allow(uids[0]); err == nil {
		t.Fatal("the gate is open before recovery ran")
	}
	mgr, err := manager.New(e.config, manager.Options{
		Scheme:                  e.scheme,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		LeaderElection:          true,
		LeaderElectionID:        "intentjournal-recovery-test",
		LeaderElectionNamespace: "default",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(rec); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	select {
	case <-rec.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the Recoverer did not finish")
	}
	if rep := rec.Report(); rep == nil || rep.Summary.Cleared != 5 {
		t.Fatalf("report %+v, want 5 cleared", rep)
	}
	for _, u := range uids {
		if err := rec.Gate().Allow(u); err != nil {
			t.Errorf("gate after recovery: %v", err)
		}
	}
	b, err := os.ReadFile(rec.ReportPath)
	if err != nil {
		t.Fatalf("report file: %v", err)
	}
	if err := report.ValidateJSON(b); err != nil {
		t.Errorf("report file does not validate: %v", err)
	}
	var progress int
	for _, l := range logs.All() {
		if strings.HasPrefix(l.Message, "recovery progress") {
			progress++
		}
	}
	if progress < 2 {
		t.Errorf("%d info-level progress lines for 5 intents with ProgressEvery=2, want at least 2", progress)
	}
}
