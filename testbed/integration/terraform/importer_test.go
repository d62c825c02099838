package terraform_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/recovery/terraform"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// TestImportBatchHalfExisting resolves 200 intents, half of which exist in
// the fake cloud, in one batch: each is classified, the existing ones are
// imported, and a second pass imports nothing and leaves the state alone.
func TestImportBatchHalfExisting(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	im := r.importer(t)

	const n = 200
	cands := make([]*recovery.Candidate, n)
	want := map[string]terraform.Status{}
	wantState := map[string]string{}
	for i := range n {
		cands[i] = candidate(i, "")
		if i%2 == 0 {
			id := createNetwork(t, r.fc.Client, cands[i].Intent.Resource.Name, ourTags(cands[i]))
			cands[i].Intent.ExternalName = id
			want[im.Address(cands[i])] = terraform.StatusImported
			wantState[im.Address(cands[i])] = id
		} else {
			cands[i].Intent.ExternalName = missingID(i)
			want[im.Address(cands[i])] = terraform.StatusNotFound
		}
	}
	before, err := r.fc.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	res, err := im.ImportBatch(ctx, cands)
	if err != nil {
		t.Fatalf("ImportBatch: %v", err)
	}
	got := map[string]terraform.Status{}
	for i, rr := range res {
		got[rr.Address] = rr.Status
		if rr.Candidate != cands[i] {
			t.Fatalf("result %d belongs to another candidate", i)
		}
		if rr.Status == terraform.StatusImported && (rr.Proof != recovery.ProofUID || rr.AlreadyInState || rr.Resource.ID != cands[i].Intent.ExternalName) {
			t.Errorf("%s: imported with proof %q, already-in-state %v, ID %s; want UIDTag, false, %s", rr.Address, rr.Proof, rr.AlreadyInState, rr.Resource.ID, cands[i].Intent.ExternalName)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("First pass: existing intents must be imported and missing ones not found; -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(wantState, r.stateIDs(t, im)); diff != "" {
		t.Fatalf("The state must hold exactly the existing resources; -want, +got:\n%s", diff)
	}
	stateBefore, err := os.ReadFile(im.StateFile())
	if err != nil {
		t.Fatal(err)
	}

	res, err = im.ImportBatch(ctx, cands)
	if err != nil {
		t.Fatalf("second ImportBatch: %v", err)
	}
	got = map[string]terraform.Status{}
	for _, rr := range res {
		got[rr.Address] = rr.Status
		if rr.Status == terraform.StatusImported && !rr.AlreadyInState {
			t.Errorf("%s was imported again by the second pass", rr.Address)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Second pass must classify the same way; -want, +got:\n%s", diff)
	}
	stateAfter, err := os.ReadFile(im.StateFile())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(stateBefore), string(stateAfter)); diff != "" {
		t.Errorf("The second pass must not write the state; -before, +after:\n%s", diff)
	}
	after, err := r.fc.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before.Kinds, after.Kinds); diff != "" {
		t.Errorf("Adoption must not create, change or delete cloud resources; -before, +after:\n%s", diff)
	}
	if diff := cmp.Diff(before.Objects, after.Objects); diff != "" {
		t.Errorf("Adoption must leave every cloud object as it was; -before, +after:\n%s", diff)
	}
}

// TestForeignResourceIsConflict: an object with the intended ID but foreign
// tags is reported as a conflict and never imported, through ImportBatch
// and through the batching Finder and recovery.Decide. The resource of a
// deleted managed resource is found (an orphan) but not imported either.
func TestForeignResourceIsConflict(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	im := r.importer(t)

	ours, foreign, gone, orphan := candidate(1, ""), candidate(2, ""), candidate(3, missingID(3)), candidate(4, "")
	ours.Intent.ExternalName = createNetwork(t, r.fc.Client, ours.Intent.Resource.Name, ourTags(ours))
	orphan.Intent.ExternalName = createNetwork(t, r.fc.Client, orphan.Intent.Resource.Name, ourTags(orphan))
	// The intent recorded the tags and the required arguments as lookup keys.
	orphan.Intent.LookupKeys = ourTags(orphan)
	orphan.Intent.LookupKeys["name"] = orphan.Intent.Resource.Name
	orphan.Object = nil // the managed resource was deleted while its create ran
	foreignTags := map[string]string{"owner": "ops", recovery.TagCrossplaneName: "someone-else"}
	foreign.Intent.ExternalName = createNetwork(t, r.fc.Client, foreign.Intent.Resource.Name, foreignTags)

	type outcome struct {
		Status terraform.Status
		ID     string
		Tags   map[string]string
	}
	var mu sync.Mutex
	got := map[string]outcome{}
	decisions := map[string]report.Outcome{}
	var wg sync.WaitGroup
	for _, c := range []*recovery.Candidate{ours, foreign, gone, orphan} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found, err := im.Finder().Find(ctx, c)
			d := recovery.Decide(c, found, err, recovery.Rules{Mode: recovery.ModeAdopt})
			mu.Lock()
			defer mu.Unlock()
			decisions[c.Intent.Resource.Name] = d.Outcome
		}()
	}
	wg.Wait()
	wantDecisions := map[string]report.Outcome{
		ours.Intent.Resource.Name:    report.OutcomeAdopted,
		foreign.Intent.Resource.Name: report.OutcomeConflict,
		gone.Intent.Resource.Name:    report.OutcomeCleared,
		orphan.Intent.Resource.Name:  report.OutcomeOrphan,
	}
	if diff := cmp.Diff(wantDecisions, decisions); diff != "" {
		t.Errorf("The Finder's answers must decide adopted, conflict, cleared and orphan; -want, +got:\n%s", diff)
	}

	res, err := im.ImportBatch(ctx, []*recovery.Candidate{ours, foreign, gone, orphan})
	if err != nil {
		t.Fatalf("ImportBatch: %v", err)
	}
	for _, rr := range res {
		o := outcome{Status: rr.Status}
		if rr.Resource != nil {
			o.ID, o.Tags = rr.Resource.ID, rr.Resource.Tags
		}
		got[rr.Candidate.Intent.Resource.Name] = o
	}
	want := map[string]outcome{
		ours.Intent.Resource.Name:    {Status: terraform.StatusImported, ID: ours.Intent.ExternalName, Tags: ourTags(ours)},
		foreign.Intent.Resource.Name: {Status: terraform.StatusConflict, ID: foreign.Intent.ExternalName, Tags: foreignTags},
		gone.Intent.Resource.Name:    {Status: terraform.StatusNotFound},
		orphan.Intent.Resource.Name:  {Status: terraform.StatusFound, ID: orphan.Intent.ExternalName, Tags: ourTags(orphan)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	wantState := map[string]string{im.Address(ours): ours.Intent.ExternalName}
	if diff := cmp.Diff(wantState, r.stateIDs(t, im)); diff != "" {
		t.Errorf("Only the resource proven ours may enter the state; -want, +got:\n%s", diff)
	}
}

// TestReportOnlyLeavesStateAlone: under the report-only policy nothing is
// imported.
func TestReportOnlyLeavesStateAlone(t *testing.T) {
	r := newRig(t)
	im := r.importer(t, terraform.WithReportOnly(true))
	c := candidate(1, "")
	c.Intent.ExternalName = createNetwork(t, r.fc.Client, c.Intent.Resource.Name, ourTags(c))
	res, err := im.ImportBatch(context.Background(), []*recovery.Candidate{c})
	if err != nil {
		t.Fatalf("ImportBatch: %v", err)
	}
	if res[0].Status != terraform.StatusFound || res[0].Proof != recovery.ProofUID {
		t.Errorf("report-only: got %s (%s), want Found (UIDTag)", res[0].Status, res[0].Proof)
	}
	if ids := r.stateIDs(t, im); len(ids) != 0 {
		t.Errorf("report-only must not import; state holds %v", ids)
	}
}

// TestBadIDIsIsolated: IDs that make the CLI fail in odd ways fail alone;
// the rest of the batch is imported. An ID over 1 MiB makes the provider's Read
// fail (431 from the fake cloud) with an error that names no resource, so
// the batch is split until that ID stands alone.
func TestBadIDIsIsolated(t *testing.T) {
	r := newRig(t)
	im := r.importer(t)
	var cands []*recovery.Candidate
	for i := range 8 {
		c := candidate(i, "")
		c.Intent.ExternalName = createNetwork(t, r.fc.Client, c.Intent.Resource.Name, ourTags(c))
		cands = append(cands, c)
	}
	cands[1].Intent.ExternalName = "${path.module}\"\n%{ if true }"
	cands[3].Intent.ExternalName = "net-\xff\x00bad"
	cands[4].Intent.ExternalName = ""
	cands[6].Intent.ExternalName = "net-" + strings.Repeat("a", 1100000)
	res, err := im.ImportBatch(context.Background(), cands)
	if err != nil {
		t.Fatalf("ImportBatch: %v", err)
	}
	got := map[int]terraform.Status{}
	for i, rr := range res {
		got[i] = rr.Status
	}
	want := map[int]terraform.Status{0: terraform.StatusImported, 1: terraform.StatusNotFound, 2: terraform.StatusImported, 3: terraform.StatusNotFound, 4: terraform.StatusError, 5: terraform.StatusImported, 6: terraform.StatusError, 7: terraform.StatusImported}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Bad IDs must fail alone; -want, +got:\n%s", diff)
	}
	if err := res[6].Err; err == nil || !strings.Contains(err.Error(), "431") {
		t.Errorf("The isolated error must be the provider's: %v", err)
	}
}

// TestWorkspaceFailures: a corrupt state, a missing provider and a state
// lock each stop the batch with an error naming the fix; nothing is
// imported and the state file is not touched.
func TestWorkspaceFailures(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()

	t.Run("CorruptState", func(t *testing.T) {
		im := r.importer(t)
		first := candidate(1, "")
		first.Intent.ExternalName = createNetwork(t, r.fc.Client, first.Intent.Resource.Name, ourTags(first))
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{first}); err != nil {
			t.Fatal(err)
		}
		path := im.StateFile()
		good, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bad := good[:len(good)/2]
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		second := candidate(2, "")
		second.Intent.ExternalName = createNetwork(t, r.fc.Client, second.Intent.Resource.Name, ourTags(second))
		res, err := im.ImportBatch(ctx, []*recovery.Candidate{second})
		checkWorkspaceErr(t, res, err, terraform.ErrStateCorrupt, "restore "+path+" from "+path+".backup")
		if after, _ := os.ReadFile(path); string(after) != string(bad) {
			t.Error("The corrupt state file must be left as it was")
		}
	})

	t.Run("MissingProvider", func(t *testing.T) {
		empty := t.TempDir()
		im, err := terraform.New(t.TempDir(), r.cli, networkType, terraform.WithFilesystemMirror(empty), terraform.WithProviderConfig(testProviderBlock(r)))
		if err != nil {
			t.Fatal(err)
		}
		c := candidate(1, "")
		c.Intent.ExternalName = createNetwork(t, r.fc.Client, c.Intent.Resource.Name, ourTags(c))
		res, err := im.ImportBatch(ctx, []*recovery.Candidate{c})
		checkWorkspaceErr(t, res, err, terraform.ErrProviderMissing, "install the provider into the filesystem mirror "+empty)
		if _, err := os.Stat(im.StateFile()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("No state may be written: %v", err)
		}
	})

	t.Run("StaleLock", func(t *testing.T) {
		im := r.importer(t)
		first := candidate(1, "")
		first.Intent.ExternalName = createNetwork(t, r.fc.Client, first.Intent.Resource.Name, ourTags(first))
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{first}); err != nil {
			t.Fatal(err)
		}
		second := candidate(2, "")
		second.Intent.ExternalName = createNetwork(t, r.fc.Client, second.Intent.Resource.Name, ourTags(second))
		setLatency(t, r.fc.Client, 30*time.Second)
		cmd := r.startCLI(t, im, "apply", "-refresh-only", "-auto-approve", "-no-color", "-input=false")
		info := waitForLock(t, im)
		// While the CLI runs, the lock is live.
		_, err := im.ImportBatch(ctx, []*recovery.Candidate{second})
		var le *terraform.LockError
		if !errors.As(err, &le) || !errors.Is(err, terraform.ErrStateLocked) || le.HolderPID != cmd.Process.Pid {
			t.Fatalf("with a live holder: got %v, want a *LockError (ErrStateLocked) naming PID %d", err, cmd.Process.Pid)
		}
		// Killed, it leaves a stale lock.
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		setLatency(t, r.fc.Client, 0)
		res, err := im.ImportBatch(ctx, []*recovery.Candidate{second})
		checkWorkspaceErr(t, res, err, terraform.ErrStaleLock, "rm "+filepath.Join(im.Dir(), lockInfoFile))
		if !strings.Contains(err.Error(), info.ID) {
			t.Errorf("The error must name lock ID %s: %v", info.ID, err)
		}
		if _, err := os.Stat(filepath.Join(im.Dir(), lockInfoFile)); err != nil {
			t.Errorf("The stale lock must never be cleared silently: %v", err)
		}
		if ids := r.stateIDs(t, im); len(ids) != 1 {
			t.Errorf("Nothing may be imported while the lock is stale; state: %v", ids)
		}
	})
}

func checkWorkspaceErr(t *testing.T, res []terraform.Result, err, sentinel error, fix string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want %v", err, sentinel)
	}
	if !strings.Contains(err.Error(), fix) {
		t.Errorf("The error must name the fix %q; got:\n%v", fix, err)
	}
	if res != nil {
		t.Errorf("No results may be returned with a workspace error; got %v", res)
	}
}

func testProviderBlock(r *rig) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    fakecloud = {
      source  = "example.com/intentjournal/fakecloud"
      version = "0.1.0"
    }
  }
}

provider "fakecloud" {
  endpoint = %q
}
`, r.fc.URL)
}

func setLatency(t testing.TB, c *fakecloud.Client, d time.Duration) {
	t.Helper()
	if err := c.SetFaults(context.Background(), fakecloud.Faults{Latency: fakecloud.AllLatencies(d)}); err != nil {
		t.Fatalf("set faults: %v", err)
	}
}

// startCLI runs the CLI in the Importer's workspace in its own process
// group, as another operator would.
func (r *rig) startCLI(t *testing.T, im *terraform.Importer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(r.cli, args...)
	cmd.Dir = im.Dir()
	for k, v := range terraform.Env(im.CLIConfigFile(), nil) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// TestCancelKillsPlugins: cancelling the context stops the CLI and its
// provider plugin; no process of the workspace remains.
func TestCancelKillsPlugins(t *testing.T) {
	r := newRig(t)
	im := r.importer(t, terraform.WithWaitDelay(2*time.Second))
	c := candidate(1, "")
	c.Intent.ExternalName = createNetwork(t, r.fc.Client, c.Intent.Resource.Name, ourTags(c))
	// Initialise first, so that the plan is what gets cancelled.
	if _, err := im.ImportBatch(context.Background(), []*recovery.Candidate{candidate(2, missingID(2))}); err != nil {
		t.Fatal(err)
	}
	setLatency(t, r.fc.Client, time.Minute)
	defer setLatency(t, r.fc.Client, 0)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := im.ImportBatch(ctx, []*recovery.Candidate{c})
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !hasPlugin(pluginsIn(t, im.Dir())) {
		if time.Now().After(deadline) {
			t.Fatalf("no provider plugin started within 30s: %v", pluginsIn(t, im.Dir()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ImportBatch did not return within 30s of cancellation")
	}
	if left := pluginsIn(t, im.Dir()); len(left) != 0 {
		t.Errorf("processes remain after cancellation: %v", left)
	}
	if ids := r.stateIDs(t, im); len(ids) != 0 {
		t.Errorf("A cancelled batch must import nothing; state: %v", ids)
	}
}

// planBudget is the most plans one batch of n may take: 8 + 8*bits.Len(n),
// as recovery/terraform's doc.go states (planBudget in its plan.go).
func planBudget(n int) int { return 8 + 8*bits.Len(uint(n)) }

func hasPlugin(procs []string) bool {
	for _, p := range procs {
		if strings.Contains(p, "terraform-provider-fakecloud") {
			return true
		}
	}
	return false
}

// TestUnsafePlanIsRefused: a workspace whose plan would change a resource
// outside the batch is never applied; with WithTargets the batch is
// confined to its own addresses and adopted.
func TestUnsafePlanIsRefused(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for _, targets := range []bool{false, true} {
		t.Run(fmt.Sprintf("targets=%v", targets), func(t *testing.T) {
			im := r.importer(t, terraform.WithTargets(targets))
			// The workspace's own resource, not created yet: its plan is a create.
			own := "resource \"fakecloud_network\" \"own\" {\n  name = \"own\"\n}\n"
			if err := os.WriteFile(filepath.Join(im.Dir(), "own.tf"), []byte(own), 0o644); err != nil {
				t.Fatal(err)
			}
			c := candidate(1, "")
			c.Intent.ExternalName = createNetwork(t, r.fc.Client, c.Intent.Resource.Name, ourTags(c))
			before, err := r.fc.Client.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res, err := im.ImportBatch(ctx, []*recovery.Candidate{c})
			if !targets {
				checkWorkspaceErr(t, res, err, terraform.ErrUnsafePlan, "fakecloud_network.own")
			} else if err != nil || res[0].Status != terraform.StatusImported {
				t.Fatalf("with targets: got %v, %v; want Imported", res, err)
			}
			after, err := r.fc.Client.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before.Kinds, after.Kinds); diff != "" {
				t.Errorf("No cloud resource may be created; -before, +after:\n%s", diff)
			}
			gen, err := os.ReadFile(generatedFile(im, networkType))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(gen), "import {") {
				t.Errorf("The generated file must hold no import block after a batch:\n%s", gen)
			}
		})
	}
}

// TestFailingReadsAreBoundedAndRetried: when every Read fails with an error
// that names no resource (the cloud answers 500, "injected fault"), bisection fails each
// candidate alone within the plan budget, and a later call, once the cloud
// recovers, imports them all.
func TestFailingReadsAreBoundedAndRetried(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	im, rec := r.recordingImporter(t)
	var cands []*recovery.Candidate
	for i := range 8 {
		c := candidate(i, "")
		c.Intent.ExternalName = createNetwork(t, r.fc.Client, c.Intent.Resource.Name, ourTags(c))
		cands = append(cands, c)
	}
	if err := r.fc.Client.SetFaults(ctx, fakecloud.Faults{ErrorRate: fakecloud.Rates{Read: 1}}); err != nil {
		t.Fatal(err)
	}
	res, err := im.ImportBatch(ctx, cands)
	if err != nil {
		t.Fatalf("ImportBatch: %v", err)
	}
	for _, rr := range res {
		if rr.Status != terraform.StatusError || !strings.Contains(rr.Err.Error(), "injected fault") {
			t.Errorf("%s: got %s (%v), want Error naming the cloud's injected fault", rr.Address, rr.Status, rr.Err)
		}
	}
	if plans := len(rec.plans(t)); plans > planBudget(len(cands)) {
		t.Errorf("%d plans ran, more than the budget of %d", plans, planBudget(len(cands)))
	}
	if err := r.fc.Client.SetFaults(ctx, fakecloud.Faults{}); err != nil {
		t.Fatal(err)
	}
	res, err = im.ImportBatch(ctx, cands)
	if err != nil {
		t.Fatalf("ImportBatch after recovery: %v", err)
	}
	if diff := cmp.Diff(map[terraform.Status]int{terraform.StatusImported: len(cands)}, statuses(res)); diff != "" {
		t.Errorf("Once the cloud answers again, every candidate must be imported; -want, +got:\n%s", diff)
	}
}

// TestLookAlikesAndWeakProof: Terraform state has no creation time, so a
// resource proven by crossplane tags alone is weak, and is imported only
// WithAdoptOnTags; one naming another managed resource's UID is a conflict
// and never enters the state, whatever the policy.
func TestLookAlikesAndWeakProof(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for _, adoptOnTags := range []bool{false, true} {
		t.Run(fmt.Sprintf("AdoptOnTags=%v", adoptOnTags), func(t *testing.T) {
			im := r.importer(t, terraform.WithAdoptOnTags(adoptOnTags))
			base := 100
			if adoptOnTags {
				base = 200
			}
			lookAlike, weak := candidate(base+1, ""), candidate(base+2, "")
			withSent(t, weak, true)
			theirs := lookAlike.ExpectedTags()
			theirs[recovery.TagUID] = "uid-of-the-same-manifest-in-another-cluster"
			lookAlike.Intent.ExternalName = createNetwork(t, r.fc.Client, lookAlike.Intent.Resource.Name, theirs)
			weak.Intent.ExternalName = createNetwork(t, r.fc.Client, weak.Intent.Resource.Name, weak.ExpectedTags())
			res, err := im.ImportBatch(ctx, []*recovery.Candidate{lookAlike, weak})
			if err != nil {
				t.Fatalf("ImportBatch: %v", err)
			}
			wantWeak := terraform.StatusFound
			var wantState []string
			if adoptOnTags {
				wantWeak, wantState = terraform.StatusImported, []string{weak.Intent.ExternalName}
			}
			got := map[string]string{}
			for _, rr := range res {
				got[rr.Candidate.Intent.Resource.Name] = string(rr.Status) + "/" + string(rr.Proof)
			}
			want := map[string]string{
				lookAlike.Intent.Resource.Name: string(terraform.StatusConflict) + "/",
				weak.Intent.Resource.Name:      string(wantWeak) + "/" + string(recovery.ProofTagsUntimed),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status/proof (-want +got):\n%s", diff)
			}
			var inState []string
			for _, id := range r.stateIDs(t, im) {
				inState = append(inState, id)
			}
			if diff := cmp.Diff(wantState, inState); diff != "" {
				t.Errorf("IDs in state (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWeakProofMatchIsAPlan: a weak proof imports only a resource to which
// applying the create's arguments would change nothing, and the importer
// asks Terraform: a plan of those arguments against the imported state.
// The attacker's look-alikes hold everything the create sent and more: our
// tags plus one of their own, or a value for an argument our spec left
// unset. Neither is imported (each is a conflict: someone else's), each
// names what differs, and neither is changed.
func TestWeakProofMatchIsAPlan(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	im := r.importer(t, terraform.WithAdoptOnTags(true))
	same, extraTag, unsetArg := candidate(301, ""), candidate(302, ""), candidate(303, "")
	withSent(t, same, true)
	withSent(t, extraTag, true)
	withSent(t, unsetArg, false)
	theirTags := extraTag.ExpectedTags()
	theirTags["team"] = "theirs"
	same.Intent.ExternalName = createNetwork(t, r.fc.Client, same.Intent.Resource.Name, same.ExpectedTags())
	extraTag.Intent.ExternalName = createNetwork(t, r.fc.Client, extraTag.Intent.Resource.Name, theirTags)
	unsetArg.Intent.ExternalName = createNetwork(t, r.fc.Client, unsetArg.Intent.Resource.Name, unsetArg.ExpectedTags())
	before := map[string]fakecloud.Network{}
	for _, c := range []*recovery.Candidate{same, extraTag, unsetArg} {
		n, err := r.fc.Client.GetNetwork(ctx, c.Intent.ExternalName)
		if err != nil {
			t.Fatal(err)
		}
		before[n.ID] = n
	}
	res, err := im.ImportBatch(ctx, []*recovery.Candidate{same, extraTag, unsetArg})
	if err != nil {
		t.Fatalf("ImportBatch: %v", err)
	}
	type outcome struct {
		Status terraform.Status
		Args   recovery.ArgsMatch
		Differ []string
	}
	got := map[string]outcome{}
	for _, rr := range res {
		o := outcome{Status: rr.Status}
		if rr.Resource != nil {
			o.Args, o.Differ = rr.Resource.Args, rr.Resource.ArgsDiffer
		}
		got[rr.Candidate.Intent.Resource.Name] = o
	}
	want := map[string]outcome{
		same.Intent.Resource.Name:     {Status: terraform.StatusImported, Args: recovery.ArgsSame},
		extraTag.Intent.Resource.Name: {Status: terraform.StatusConflict, Args: recovery.ArgsDifferent, Differ: []string{"tags"}},
		unsetArg.Intent.Resource.Name: {Status: terraform.StatusConflict, Args: recovery.ArgsDifferent, Differ: []string{"cidrBlock"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status and comparison (-want +got):\n%s", diff)
	}
	var inState []string
	for _, id := range r.stateIDs(t, im) {
		inState = append(inState, id)
	}
	if diff := cmp.Diff([]string{same.Intent.ExternalName}, inState); diff != "" {
		t.Errorf("IDs in state (-want +got):\n%s", diff)
	}
	for id, b := range before {
		a, err := r.fc.Client.GetNetwork(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("network %s changed (-before +after):\n%s", id, diff)
		}
	}
	// The decision the report carries names what differs.
	for _, rr := range res {
		if rr.Status != terraform.StatusConflict {
			continue
		}
		d := recovery.Decide(rr.Candidate, []recovery.ExternalResource{*rr.Resource}, nil, recovery.Rules{Mode: recovery.ModeAdoptOnTags})
		if d.Outcome != report.OutcomeConflict || d.Reason != recovery.ReasonArgsDiffer || !strings.Contains(d.Message, rr.Resource.ArgsDiffer[0]) {
			t.Errorf("%s: Decide %s/%s %q, want conflict/%s naming %s", rr.Candidate.Intent.Resource.Name, d.Outcome, d.Reason, d.Message, recovery.ReasonArgsDiffer, rr.Resource.ArgsDiffer[0])
		}
	}
}

// withSent gives c's spec, and its intent's recorded arguments, what its
// create sent: the name, the tags the create path adds (crossplane's), and,
// with cidr, the CIDR block createNetwork gives every network.
func withSent(t testing.TB, c *recovery.Candidate, cidr bool) {
	t.Helper()
	fp := map[string]any{"name": c.Intent.Resource.Name, "tags": toAny(c.ExpectedTags())}
	if cidr {
		fp["cidrBlock"] = "10.0.0.0/16"
	}
	if err := unstructured.SetNestedMap(c.Object.Object, fp, "spec", "forProvider"); err != nil {
		t.Fatal(err)
	}
	args, err := recovery.RecordArgs(c.Object.Object, 1)
	if err != nil {
		t.Fatal(err)
	}
	c.Intent.Args = args
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
