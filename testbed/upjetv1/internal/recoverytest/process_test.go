package recoverytest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

const childEnv = "RECOVERY_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "pass" {
		if err := childPass(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childPass runs one whole recovery pass, as a provider would at start.
func childPass() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		return err
	}
	cl, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	j, err := journal.Open(os.Getenv("JOURNAL_PATH"))
	if err != nil {
		return err
	}
	defer j.Close()
	fc := fakecloud.NewClient(os.Getenv("FAKECLOUD_URL"))
	log, _ := zap.NewDevelopment()
	conc := 2
	if s := os.Getenv("RECOVERY_CHILD_CONCURRENCY"); s != "" {
		fmt.Sscan(s, &conc)
	}
	if os.Getenv("RECOVERY_CHILD_QUIET") != "" {
		// Benchmarks: progress lines only, and no client-side throttling.
		log, _ = zap.NewProduction()
		cfg.QPS, cfg.Burst = -1, 0
		if cl, err = client.New(cfg, client.Options{}); err != nil {
			return err
		}
	}
	rep, err := recovery.Run(context.Background(), recovery.Options{
		Journal: j, Client: cl, Kinds: fcrecovery.Kinds(),
		Finders: fcrecovery.Finders(fc), Deleters: fcrecovery.Deleters(fc),
		Logger: zapr.NewLogger(log), Policy: recovery.Policy{Concurrency: conc},
	})
	if err == nil {
		fmt.Printf("summary %+v\n", rep.Summary)
	}
	if p := os.Getenv("RECOVERY_CHILD_HEAPPROFILE"); p != "" {
		f, perr := os.Create(p)
		if perr == nil {
			runtime.GC()
			_ = pprof.WriteHeapProfile(f)
			_ = f.Close()
		}
		runtime.KeepAlive(rep)
	}
	return err
}

// TestSIGKILLMidPassIsIdempotent kills a recovery pass in a child process
// part way through, runs the pass again, and checks the end state is what
// one uninterrupted pass leaves.
func TestSIGKILLMidPassIsIdempotent(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	fc := e.cloud.Client
	path := e.journal.Path()

	type want struct {
		obj     client.Object
		state   journal.State
		extName string
		paused  bool
	}
	var wants []want
	for i := range 8 {
		nw := testbed.NewNetwork(fmt.Sprintf("idem-adopt-%d", i), "10.0.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		made, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: nw.Name, CIDRBlock: "10.0.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", nw.Name)})
		if err != nil {
			t.Fatal(err)
		}
		wants = append(wants, want{obj: nw, state: journal.StateAdopted, extName: made.ID})
	}
	for i := range 8 {
		rs := testbed.NewRecordSet(fmt.Sprintf("idem-clear-%d", i), "zone-idem")
		e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-idem", "name": rs.Name})
		wants = append(wants, want{obj: rs, state: journal.StateCleared})
	}
	for i := range 4 {
		rs := testbed.NewRecordSet(fmt.Sprintf("idem-conflict-%d", i), "zone-idem")
		if _, err := fc.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "zone-idem", Name: rs.Name, Type: "A", RRDatas: []string{"192.0.2.1"}}); err != nil {
			t.Fatal(err)
		}
		e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-idem", "name": rs.Name})
		wants = append(wants, want{obj: rs, state: journal.StateReported, paused: true})
	}
	before, err := fc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.journal.Close(); err != nil {
		t.Fatal(err)
	}
	// Slow lookups, so the kill lands mid-pass.
	if err := fc.SetFaults(ctx, fakecloud.Faults{Latency: fakecloud.Latencies{Read: 150 * time.Millisecond}}); err != nil {
		t.Fatal(err)
	}

	resolved := func() int {
		n := 0
		for _, w := range wants {
			if _, ok := e.annotations(ctx, w.obj)[recovery.AnnotationExternalCreatePending]; !ok {
				n++
			}
		}
		return n
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=pass", "KUBECONFIG="+e.cluster.Kubeconfig,
		"JOURNAL_PATH="+path, "FAKECLOUD_URL="+e.cloud.URL)
	logf, _ := os.Create(filepath.Join(t.TempDir(), "child.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for resolved() < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	atKill := resolved()
	t.Logf("SIGKILL with %d of %d candidates resolved", atKill, len(wants))
	if atKill == len(wants) {
		t.Fatal("the child finished before the kill: the test proved nothing")
	}
	if err := fc.SetFaults(ctx, fakecloud.Faults{}); err != nil {
		t.Fatal(err)
	}

	j, err := journal.Open(path)
	if err != nil {
		t.Fatalf("reopen the journal after SIGKILL: %v", err)
	}
	defer j.Close()
	e.journal = j
	uids := make([]types.UID, 0, len(wants))
	for _, w := range wants {
		uids = append(uids, w.obj.GetUID())
	}
	rep, err := recovery.Run(ctx, e.options(uids...))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, rep)
	t.Logf("second pass: %+v", rep.Summary)
	for _, w := range wants {
		a := e.annotations(ctx, w.obj)
		if got := e.state(ctx, w.obj.GetUID()); got != w.state {
			t.Errorf("%s: journal %s, want %s", w.obj.GetName(), got, w.state)
		}
		if a[recovery.AnnotationExternalName] != w.extName {
			t.Errorf("%s: external-name %q, want %q", w.obj.GetName(), a[recovery.AnnotationExternalName], w.extName)
		}
		if (a[recovery.AnnotationPaused] == "true") != w.paused {
			t.Errorf("%s: paused %q, want %v", w.obj.GetName(), a[recovery.AnnotationPaused], w.paused)
		}
		if _, ok := a[recovery.AnnotationExternalCreatePending]; ok {
			t.Errorf("%s: still pending", w.obj.GetName())
		}
	}
	after, err := fc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"recordsets", "networks"} {
		if after.Kinds[k].Live != before.Kinds[k].Live || after.Kinds[k].Creates != before.Kinds[k].Creates {
			t.Errorf("%s: recovery changed the cloud: %+v -> %+v", k, before.Kinds[k], after.Kinds[k])
		}
	}
	rep, err = recovery.Run(ctx, e.options(uids...))
	if err != nil || rep.Summary.Total != 0 {
		t.Errorf("third pass: %+v, %v; want nothing left", rep.Summary, err)
	}
}
