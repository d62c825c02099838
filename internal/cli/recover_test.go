package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
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

// recordSetKinds are the --kind values of the tests.
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

	j, err := journal.Open(c.journal, journal.WithClock(stepClock()), journal.WithLogger(zaptest.NewLogger(t)))
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
			ID:         id(b),
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
	return c
}

// passOpts returns recover/report options for this setup with a fixed
// clock and owner, so the report is reproducible.
func (c *crashed) passOpts(t *testing.T, format string) passOptions {
	return passOptions{
		Kubeconfig:    c.cluster.Kubeconfig,
		Journal:       c.journal,
		LockTimeout:   time.Second,
		Kind:          testKinds,
		Finder:        []string{"*=fakecloud:" + c.cloud.URL},
		Policy:        "adopt",
		Concurrency:   4,
		LookupTimeout: 5 * time.Second,
		outputFlag:    outputFlag{Output: format},
		log:           zaptest.NewLogger(t),
		now:           testNow,
		owner:         journal.Owner{Replica: "intentjournal-cli:test", Epoch: "00000180000000000-test"},
		finderTypes:   finderTypesWithFakecloud(),
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
	ctx := context.Background()
	before := c.snapshot(t)

	t.Run("ReportChangesNothing", func(t *testing.T) {
		for _, format := range []string{formatTable, formatJSON, formatYAML} {
			var out bytes.Buffer
			err := runReport(ctx, &out, reportOptions{passOptions: c.passOpts(t, format)})
			if ExitCode(err) != ExitAttention {
				t.Fatalf("report -o %s: %v (exit %d), want exit %d for the conflict", format, err, ExitCode(err), ExitAttention)
			}
			if format == formatJSON {
				if err := recovery.ValidateReportJSON(out.Bytes()); err != nil {
					t.Errorf("report -o json does not validate: %v", err)
				}
			}
			got := c.norm.apply(out.Bytes())
			if format == formatTable {
				got = realign(got)
			}
			golden.Assert(t, "report."+map[string]string{formatTable: "txt", formatJSON: "json", formatYAML: "yaml"}[format], got)
		}
		if diff := cmp.Diff(before, c.snapshot(t)); diff != "" {
			t.Errorf("report changed the cluster, the journal or the cloud (-before +after):\n%s", diff)
		}
	})

	t.Run("RecoverDryRunChangesNothing", func(t *testing.T) {
		var out bytes.Buffer
		o := recoverOptions{passOptions: c.passOpts(t, formatJSON), DryRun: true, DeleteOrphans: true}
		if err := runRecover(ctx, &out, o); ExitCode(err) != ExitAttention {
			t.Fatalf("recover --dry-run: %v (exit %d), want exit %d for the conflict", err, ExitCode(err), ExitAttention)
		}
		if diff := cmp.Diff(before, c.snapshot(t)); diff != "" {
			t.Errorf("recover --dry-run changed the cluster, the journal or the cloud (-before +after):\n%s", diff)
		}
	})

	t.Run("Recover", func(t *testing.T) {
		reportFile := filepath.Join(t.TempDir(), "report.json")
		var stdout, stderr bytes.Buffer
		args := []string{"recover", "--kubeconfig", c.cluster.Kubeconfig, "--journal", c.journal,
			"--kind", testKinds[0], "--kind", testKinds[1],
			"--finder", "RecordSet=fakecloud:" + c.cloud.URL, "--finder", "Network.fakecloud.intentjournal.io=fakecloud:" + c.cloud.URL,
			"--report", reportFile, "-o", "json", "--log-level", "warn"}
		code := Main(ctx, args, &stdout, &stderr, withFakecloud)
		if code != ExitAttention {
			t.Fatalf("recover: exit %d, want %d for the conflict\nstderr:\n%s", code, ExitAttention, stderr.String())
		}
		if !strings.Contains(stderr.String(), "need an operator") {
			t.Errorf("recover's stderr does not say why it exited 3:\n%s", stderr.String())
		}
		file, err := os.ReadFile(reportFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := recovery.ValidateReportJSON(file); err != nil {
			t.Errorf("the --report file does not validate: %v", err)
		}
		if !bytes.Equal(file, stdout.Bytes()) {
			t.Errorf("the --report file differs from the -o json output")
		}
		if fi, err := os.Stat(reportFile); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("the --report file: %v, mode %v, want mode 0600", err, fi.Mode())
		}
		rep, err := recovery.DecodeReport(file)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]recovery.Outcome{}
		for _, e := range rep.Entries {
			got[e.Resource.Name] = e.Outcome
		}
		want := map[string]recovery.Outcome{
			"net-adopt": recovery.OutcomeAdopted, "rs-adopt": recovery.OutcomeAdopted,
			"rs-clear": recovery.OutcomeCleared, "rs-conflict": recovery.OutcomeConflict,
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
		var out bytes.Buffer
		o := recoverOptions{passOptions: c.passOpts(t, formatTable)}
		if err := runRecover(ctx, &out, o); err != nil {
			t.Fatalf("a second recover: %v (exit %d), want a clean exit 0: everything was resolved", err, ExitCode(err))
		}
		golden.Assert(t, "recover-again.txt", c.norm.apply(out.Bytes()))
	})

	t.Run("LockedJournalFallsBack", func(t *testing.T) {
		holdInChild(t, c.journal)
		var out bytes.Buffer
		o := c.passOpts(t, formatJSON)
		o.LockTimeout = 200 * time.Millisecond
		err := runReport(ctx, &out, reportOptions{passOptions: o})
		if err != nil {
			t.Fatalf("report with a locked journal: %v, want exit 0 from annotations alone", err)
		}
		rep, err := recovery.DecodeReport(out.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Source.Notes) != 1 || !strings.Contains(rep.Source.Notes[0], testHolder) {
			t.Errorf("report notes %q, want one naming the journal's holder %q", rep.Source.Notes, testHolder)
		}
	})

	t.Run("CorruptJournalFallsBack", func(t *testing.T) {
		o := c.passOpts(t, formatJSON)
		o.Journal = writeFile(t, "not a journal")
		var out bytes.Buffer
		if err := runReport(ctx, &out, reportOptions{passOptions: o}); err != nil {
			t.Fatalf("report with a corrupt journal: %v, want exit 0 from annotations alone", err)
		}
		rep, err := recovery.DecodeReport(out.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Source.Notes) != 1 || !strings.Contains(rep.Source.Notes[0], "corrupt") {
			t.Errorf("report notes %q, want one saying the journal is corrupt", rep.Source.Notes)
		}
		if b, err := os.ReadFile(o.Journal); err != nil || string(b) != "not a journal" {
			t.Errorf("the corrupt journal was modified: %q, %v", b, err)
		}
	})

	t.Run("MissingJournalIsAnError", func(t *testing.T) {
		o := c.passOpts(t, formatJSON)
		o.Journal = filepath.Join(t.TempDir(), "typo.db")
		var out bytes.Buffer
		err := runRecover(ctx, &out, recoverOptions{passOptions: o})
		if ExitCode(err) != ExitError || !strings.Contains(err.Error(), "omit --journal") {
			t.Errorf("recover with a missing journal: %v (exit %d), want exit 1 naming the fix", err, ExitCode(err))
		}
		if _, err := os.Stat(o.Journal); err == nil {
			t.Errorf("recover created the missing journal %s", o.Journal)
		}
	})
}

// TestRecoverRefusesAnotherClustersJournal: a journal bound to another
// cluster is an error naming both clusters, never a fall-back to
// annotations, and the journal keeps its binding.
func TestRecoverRefusesAnotherClustersJournal(t *testing.T) {
	c := newCrashed(t)
	ctx := context.Background()
	j, err := journal.Open(c.journal, journal.WithCluster("another-cluster"))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	before := c.snapshot(t)
	var out bytes.Buffer
	err = runRecover(ctx, &out, recoverOptions{passOptions: c.passOpts(t, formatJSON)})
	if ExitCode(err) != ExitError || !strings.Contains(err.Error(), "another-cluster") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("recover with another cluster's journal: %v (exit %d), want exit 1 naming it", err, ExitCode(err))
	}
	if diff := cmp.Diff(before, c.snapshot(t)); diff != "" {
		t.Errorf("the refused pass changed something (-before +after):\n%s", diff)
	}
}

// TestPolicyFlags: adopt-on-tags is a policy, a negative skew is a usage
// error.
func TestPolicyFlags(t *testing.T) {
	if _, _, err := parsePolicy("adopt-on-tags", []string{"Network=adopt-on-tags"}, []schema.GroupVersionKind{{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"}}); err != nil {
		t.Errorf("parsePolicy(adopt-on-tags): %v", err)
	}
	o := passOptions{Concurrency: 1, LookupTimeout: time.Second, ClockSkew: -time.Second, Kind: testKinds, outputFlag: outputFlag{Output: formatJSON}}
	if err := runPass(context.Background(), &bytes.Buffer{}, o, passMode{}); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--clock-skew") {
		t.Errorf("--clock-skew -1s: %v (exit %d), want a usage error naming the flag", err, ExitCode(err))
	}
}
