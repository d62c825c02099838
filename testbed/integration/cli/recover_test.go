package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli/clitest"
	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
)

// crashed is a real control plane, a real fake-cloud process and a journal
// file as a provider that crashed in the middle of four creates left them.
type crashed struct {
	cluster *fakecloudtest.Cluster
	cloud   *fakecloudtest.Process
	journal string
	objs    map[string]client.Object // by name
	cloudID map[string]string        // cloud ID by MR name
	norm    *normalizer
}

// testKinds are the --kind values of the tests.
var testKinds = []string{
	"RecordSet.v1alpha1.fakecloud.intentjournal.io",
	"Network.v1alpha1.fakecloud.intentjournal.io",
}

// newCrashed sets up:
//
//	rs-adopt     the create reached the cloud, tagged, but its response was lost: adopted
//	rs-clear     the create never reached the cloud: cleared
//	rs-conflict  a record set of the same zone and name exists, created outside Crossplane: conflict
//	net-adopt    a network found by its crossplane tags: adopted
func newCrashed(t *testing.T) *crashed {
	t.Helper()
	ctx := context.Background()
	c := &crashed{
		cluster: fakecloudtest.StartCluster(t),
		cloud:   fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{}),
		journal: filepath.Join(t.TempDir(), "journal.db"),
		objs:    map[string]client.Object{},
		cloudID: map[string]string{},
		norm:    &normalizer{},
	}
	const zone = "example-com"
	c.objs["rs-adopt"] = fakecloudtest.RecordSet("rs-adopt", zone)
	c.objs["rs-clear"] = fakecloudtest.RecordSet("rs-clear", zone)
	c.objs["rs-conflict"] = fakecloudtest.RecordSet("rs-conflict", zone)
	c.objs["net-adopt"] = fakecloudtest.Network("net-adopt", "10.0.0.0/16")
	for _, name := range []string{"net-adopt", "rs-adopt", "rs-clear", "rs-conflict"} {
		// What the create sent: the tagger writes the crossplane tags
		// into spec.forProvider before the create.
		kind := "RecordSet"
		if strings.HasPrefix(name, "net-") {
			kind = "Network"
		}
		tags := map[string]any{}
		for k, v := range fakecloudtest.CrossplaneTags(kind, name) {
			tags[k] = v
		}
		if err := unstructured.SetNestedMap(c.objs[name].(*unstructured.Unstructured).Object, tags, "spec", "forProvider", "tags"); err != nil {
			t.Fatal(err)
		}
		c.cluster.Create(t, c.objs[name])
	}

	rs, err := c.cloud.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: zone, Name: "rs-adopt", Type: "A", TTL: 300,
		RRDatas: []string{"192.0.2.10"}, Tags: fakecloudtest.CrossplaneTags("RecordSet", "rs-adopt")})
	if err != nil {
		t.Fatal(err)
	}
	c.cloudID["rs-adopt"] = rs.ID
	rs, err = c.cloud.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: zone, Name: "rs-conflict", Type: "A", TTL: 300,
		RRDatas: []string{"198.51.100.7"}, Tags: map[string]string{"owner": "someone-else"}})
	if err != nil {
		t.Fatal(err)
	}
	c.cloudID["rs-conflict"] = rs.ID
	n, err := c.cloud.Client.CreateNetwork(ctx, fakecloud.Network{Name: "net-adopt", CIDRBlock: "10.0.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", "net-adopt")})
	if err != nil {
		t.Fatal(err)
	}
	c.cloudID["net-adopt"] = n.ID

	j, err := journal.Open(c.journal, journal.WithClock(clitest.StepClock()), journal.WithLogger(zapr.NewLogger(zaptest.NewLogger(t))))
	if err != nil {
		t.Fatal(err)
	}
	var b byte = 0xa0
	for name, obj := range c.objs {
		kind := "RecordSet"
		keys := fakecloudtest.CrossplaneTags(kind, name)
		if strings.HasPrefix(name, "net-") {
			kind = "Network"
			keys = fakecloudtest.CrossplaneTags(kind, name)
		} else {
			keys["zone"], keys["name"] = zone, name
		}
		b++
		in, err := j.Begin(ctx, journal.Intent{
			ID:         clitest.ID(b),
			Resource:   journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: kind, Name: name, UID: string(obj.GetUID())},
			LookupKeys: keys,
			Owner:      journal.Owner{Replica: "provider-fakecloud-0", Epoch: "0000017f00000000-0a0b0c0d"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := j.MarkDispatched(ctx, in.Resource.UID, in.ID); err != nil {
			t.Fatal(err)
		}
		// The provider crashed after crossplane-runtime marked the create
		// pending.
		obj.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: t0.Format(time.RFC3339)})
		if err := c.cluster.Client.Update(ctx, obj); err != nil {
			t.Fatal(err)
		}
		c.norm.literal(string(obj.GetUID()), "UID-"+strings.ToUpper(name))
		c.norm.literal(in.ID.String(), "INTENT-"+strings.ToUpper(name))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	for name, id := range c.cloudID {
		c.norm.literal(id, "CLOUD-"+strings.ToUpper(name))
	}
	cid, err := recovery.ClusterID(ctx, c.cluster.Client)
	if err != nil {
		t.Fatal(err)
	}
	c.norm.literal(cid, "CLUSTER-UID")
	c.norm.literal(c.journal, "JOURNAL")
	c.norm.pattern(`https?://127\.0\.0\.1:[0-9]+`, "https://127.0.0.1:PORT")
	c.norm.pattern(`"createdAt": "[^"]+"`, `"createdAt": "CREATED-AT"`)
	c.norm.pattern(`createdAt: "?[0-9][^"\n]*"?`, `createdAt: CREATED-AT`)
	// The pass's timings (summary.timings) vary from run to run.
	c.norm.pattern(`"(\w+Ms)": [0-9]+`, `"$1": MS`)
	c.norm.pattern(`(?m)^(\s+\w+Ms): [0-9]+$`, `$1: MS`)
	// The pass's clock and owner are the CLI's own: the time of the run,
	// and this host's CLI under an epoch of that time. checkSource checks
	// them.
	c.norm.pattern(`("?generatedAt"?: "?)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`, `${1}GENERATED-AT`)
	c.norm.literal("intentjournal-cli:"+hostname(t), "intentjournal-cli:HOST")
	c.norm.pattern(`("?epoch"?: "?)[0-9a-f]{16}-[0-9a-f]{8}`, `${1}EPOCH`)
	return c
}

// hostname is the host name the CLI names itself by.
func hostname(t *testing.T) string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return host
}

// passFlags are the flags of a pass that some tests change.
type passFlags struct {
	journal     string // default: the setup's journal
	lockTimeout string // default: 1s
}

// passArgs returns the recover or report (cmd) command line for this setup,
// printing the report in format, and extra.
func (c *crashed) passArgs(cmd, format string, f passFlags, extra ...string) []string {
	if f.journal == "" {
		f.journal = c.journal
	}
	if f.lockTimeout == "" {
		f.lockTimeout = "1s"
	}
	args := []string{cmd, "--kubeconfig", c.cluster.Kubeconfig, "--journal", f.journal, "--lock-timeout", f.lockTimeout}
	for _, k := range testKinds {
		args = append(args, "--kind", k)
	}
	args = append(args, "--finder", "*=fakecloud:"+c.cloud.URL, "--policy", "adopt", "--concurrency", "4", "--lookup-timeout", "5s", "-o", format)
	return append(args, extra...)
}

// checkSource checks what the golden files hold as placeholders: the
// report (JSON) of a pass that ran between before and after was generated
// then, by this host's CLI, under an epoch of that time.
func checkSource(t *testing.T, reportBytes []byte, before, after time.Time) {
	t.Helper()
	rep, err := report.Decode(reportBytes)
	if err != nil {
		t.Fatalf("decode the report: %v\n%s", err, reportBytes)
	}
	if rep.GeneratedAt.Before(before.Truncate(time.Second)) || rep.GeneratedAt.After(after) {
		t.Errorf("generatedAt %s, want the time of the pass, between %s and %s", rep.GeneratedAt, before, after)
	}
	owner := rep.Source.Owner
	if want := "intentjournal-cli:" + hostname(t); owner.Replica != want {
		t.Errorf("owner replica %q, want %q", owner.Replica, want)
	}
	nanos, _, _ := strings.Cut(owner.Epoch, "-")
	n, err := strconv.ParseUint(nanos, 16, 64)
	if started := time.Unix(0, int64(n)); err != nil || started.Before(before) || started.After(after) {
		t.Errorf("owner epoch %q (%v), want one of a process started between %s and %s", owner.Epoch, err, before, after)
	}
}

// snapshot is everything a pass could change.
type snapshot struct {
	Annotations map[string]map[string]string
	Versions    map[string]string
	Journal     []byte
	Cloud       fakecloud.Stats
}

func (c *crashed) snapshot(t *testing.T) snapshot {
	t.Helper()
	ctx := context.Background()
	s := snapshot{Annotations: map[string]map[string]string{}, Versions: map[string]string{}}
	for name, obj := range c.objs {
		if err := c.cluster.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		s.Annotations[name] = obj.GetAnnotations()
		s.Versions[name] = obj.GetResourceVersion()
	}
	var err error
	if s.Journal, err = os.ReadFile(c.journal); err != nil {
		t.Fatal(err)
	}
	if s.Cloud, err = c.cloud.Client.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func (c *crashed) journalStates(t *testing.T) map[string]journal.State {
	t.Helper()
	j, err := journal.Open(c.journal, journal.WithReadOnly(), journal.WithLockTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	out := map[string]journal.State{}
	for in, err := range j.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out[in.Resource.Name] = in.State
	}
	return out
}

// TestReportAndRecover runs report, then recover, then recover again against
// the same crash.
func TestReportAndRecover(t *testing.T) {
	c := newCrashed(t)
	before := c.snapshot(t)

	t.Run("ReportChangesNothing", func(t *testing.T) {
		for _, format := range []string{"table", "json", "yaml"} {
			start := time.Now()
			code, out, stderr := run(t, c.passArgs("report", format, passFlags{})...)
			if code != cli.ExitAttention {
				t.Fatalf("report -o %s: exit %d, want exit %d for the conflict\nstderr:\n%s", format, code, cli.ExitAttention, stderr)
			}
			if format == "json" {
				if err := report.ValidateJSON(out); err != nil {
					t.Errorf("report -o json does not validate: %v", err)
				}
				checkSource(t, out, start, time.Now())
			}
			got := c.norm.apply(out)
			if format == "table" {
				got = realign(got)
			}
			golden.Assert(t, "report."+map[string]string{"table": "txt", "json": "json", "yaml": "yaml"}[format], got)
		}
		if diff := cmp.Diff(before, c.snapshot(t)); diff != "" {
			t.Errorf("report changed the cluster, the journal or the cloud (-before +after):\n%s", diff)
		}
	})

	t.Run("RecoverDryRunChangesNothing", func(t *testing.T) {
		if code, _, stderr := run(t, c.passArgs("recover", "json", passFlags{}, "--dry-run", "--delete-orphans")...); code != cli.ExitAttention {
			t.Fatalf("recover --dry-run: exit %d, want exit %d for the conflict\nstderr:\n%s", code, cli.ExitAttention, stderr)
		}
		if diff := cmp.Diff(before, c.snapshot(t)); diff != "" {
			t.Errorf("recover --dry-run changed the cluster, the journal or the cloud (-before +after):\n%s", diff)
		}
	})

	t.Run("Recover", func(t *testing.T) {
		reportFile := filepath.Join(t.TempDir(), "report.json")
		args := []string{"recover", "--kubeconfig", c.cluster.Kubeconfig, "--journal", c.journal,
			"--kind", testKinds[0], "--kind", testKinds[1],
			"--finder", "RecordSet=fakecloud:" + c.cloud.URL, "--finder", "Network.fakecloud.intentjournal.io=fakecloud:" + c.cloud.URL,
			"--report", reportFile, "-o", "json", "--log-level", "warn"}
		code, stdout, stderr := run(t, args...)
		if code != cli.ExitAttention {
			t.Fatalf("recover: exit %d, want %d for the conflict\nstderr:\n%s", code, cli.ExitAttention, stderr)
		}
		if !strings.Contains(stderr, "need an operator") {
			t.Errorf("recover's stderr does not say why it exited 3:\n%s", stderr)
		}
		file, err := os.ReadFile(reportFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := report.ValidateJSON(file); err != nil {
			t.Errorf("the --report file does not validate: %v", err)
		}
		if !bytes.Equal(file, stdout) {
			t.Errorf("the --report file differs from the -o json output")
		}
		if fi, err := os.Stat(reportFile); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("the --report file: %v, mode %v, want mode 0600", err, fi.Mode())
		}
		rep, err := report.Decode(file)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]report.Outcome{}
		for _, e := range rep.Entries {
			got[e.Resource.Name] = e.Outcome
		}
		want := map[string]report.Outcome{
			"net-adopt": report.OutcomeAdopted, "rs-adopt": report.OutcomeAdopted,
			"rs-clear": report.OutcomeCleared, "rs-conflict": report.OutcomeConflict,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("recover outcomes (-want +got):\n%s", diff)
		}
		after := c.snapshot(t)
		for _, name := range []string{"rs-adopt", "net-adopt"} {
			if en := after.Annotations[name][recovery.AnnotationExternalName]; en != c.cloudID[name] {
				t.Errorf("%s: external name %q, want the adopted %q", name, en, c.cloudID[name])
			}
		}
		if _, ok := after.Annotations["rs-clear"][recovery.AnnotationExternalCreatePending]; ok {
			t.Errorf("rs-clear: external-create-pending is still set after it was cleared")
		}
		if after.Annotations["rs-conflict"][recovery.AnnotationPaused] != "true" {
			t.Errorf("rs-conflict: not paused after a conflict: %v", after.Annotations["rs-conflict"])
		}
		wantStates := map[string]journal.State{
			"net-adopt": journal.StateAdopted, "rs-adopt": journal.StateAdopted,
			"rs-clear": journal.StateCleared, "rs-conflict": journal.StateReported,
		}
		if diff := cmp.Diff(wantStates, c.journalStates(t)); diff != "" {
			t.Errorf("journal states after recover (-want +got):\n%s", diff)
		}
		if d := after.Cloud.Kinds["recordsets"].Deletes; d != 0 {
			t.Errorf("recover deleted %d record sets without --delete-orphans", d)
		}
	})

	t.Run("RecoverAgainIsClean", func(t *testing.T) {
		code, out, stderr := run(t, c.passArgs("recover", "table", passFlags{})...)
		if code != cli.ExitOK {
			t.Fatalf("a second recover: exit %d, want a clean exit 0: everything was resolved\nstderr:\n%s", code, stderr)
		}
		golden.Assert(t, "recover-again.txt", c.norm.apply(out))
	})

	t.Run("LockedJournalFallsBack", func(t *testing.T) {
		clitest.HoldInChild(t, c.journal)
		code, out, stderr := run(t, c.passArgs("report", "json", passFlags{lockTimeout: "200ms"})...)
		if code != cli.ExitOK {
			t.Fatalf("report with a locked journal: exit %d, want exit 0 from annotations alone\nstderr:\n%s", code, stderr)
		}
		rep, err := report.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Source.Notes) != 1 || !strings.Contains(rep.Source.Notes[0], clitest.Holder) {
			t.Errorf("report notes %q, want one naming the journal's holder %q", rep.Source.Notes, clitest.Holder)
		}
	})

	t.Run("CorruptJournalFallsBack", func(t *testing.T) {
		corrupt := clitest.WriteFile(t, "not a journal")
		code, out, stderr := run(t, c.passArgs("report", "json", passFlags{journal: corrupt})...)
		if code != cli.ExitOK {
			t.Fatalf("report with a corrupt journal: exit %d, want exit 0 from annotations alone\nstderr:\n%s", code, stderr)
		}
		rep, err := report.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Source.Notes) != 1 || !strings.Contains(rep.Source.Notes[0], "corrupt") {
			t.Errorf("report notes %q, want one saying the journal is corrupt", rep.Source.Notes)
		}
		if b, err := os.ReadFile(corrupt); err != nil || string(b) != "not a journal" {
			t.Errorf("the corrupt journal was modified: %q, %v", b, err)
		}
	})

	t.Run("MissingJournalIsAnError", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "typo.db")
		code, _, stderr := run(t, c.passArgs("recover", "json", passFlags{journal: missing})...)
		if code != cli.ExitError || !strings.Contains(stderr, "omit --journal") {
			t.Errorf("recover with a missing journal: exit %d, want exit 1 naming the fix\nstderr:\n%s", code, stderr)
		}
		if _, err := os.Stat(missing); err == nil {
			t.Errorf("recover created the missing journal %s", missing)
		}
	})
}

// TestRecoverRefusesAnotherClustersJournal: a journal bound to another
// cluster is an error naming both clusters, never a fall-back to
// annotations, and the journal keeps its binding.
func TestRecoverRefusesAnotherClustersJournal(t *testing.T) {
	c := newCrashed(t)
	j, err := journal.Open(c.journal, journal.WithCluster("another-cluster"))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	before := c.snapshot(t)
	code, _, stderr := run(t, c.passArgs("recover", "json", passFlags{})...)
	if code != cli.ExitError || !strings.Contains(stderr, "another-cluster") || !strings.Contains(stderr, "nothing was changed") {
		t.Fatalf("recover with another cluster's journal: exit %d, want exit 1 naming it\nstderr:\n%s", code, stderr)
	}
	if diff := cmp.Diff(before, c.snapshot(t)); diff != "" {
		t.Errorf("the refused pass changed something (-before +after):\n%s", diff)
	}
}
