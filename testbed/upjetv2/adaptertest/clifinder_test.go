package upjetv2_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

// cliLookupTimeout bounds one test's lookups: a plan or two, each starting
// the provider plugin.
const cliLookupTimeout = 2 * time.Minute

// cliConcurrentLookups is how many lookups TestCLIFinder/Batched runs at
// once, half of them of buckets that exist.
const cliConcurrentLookups = 50

// cliMaxPlans bounds the plans those lookups may cost. One batch plans
// twice: the plan fails for the buckets never made, which are "not found",
// and the rest are planned again. A batch waits WithLinger (50 ms) for more
// lookups, so on a loaded machine (-race) stragglers make a second batch.
const cliMaxPlans = 4

// TestCLIKindReportOnlyWithoutCLI: without WithTerraformCLI a kind on
// upjet's CLI connector has nothing to be read with, so it is report-only
// and has no finder: what WithTerraformCLI changes.
func TestCLIKindReportOnlyWithoutCLI(t *testing.T) {
	pc := cliBucketProvider(t, &externalNameCalls{})
	scheme := runtime.NewScheme()
	if err := testbed.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	d, err := upjetv2.NewFinders(fake.NewFakeClient(), scheme, cliSetup(), []*ujconfig.Provider{pc},
		upjetv2.WithTemplates(strategy.Templates{}), upjetv2.WithFindersRegisterer(prometheus.NewRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	gk := upjetv2.GroupVersionKindOf(pc, pc.Resources[config.BucketResource]).GroupKind()
	if s := d.Strategies[gk]; s.Strategy != strategy.ReportOnly || d.Finders[gk] != nil || !strings.Contains(s.Reason, "WithTerraformCLI") {
		t.Errorf("%s without a CLI: %+v, finder %t; want report-only, naming WithTerraformCLI, with no finder", gk, s, d.Finders[gk] != nil)
	}
}

// TestCLIFinder looks up the Bucket kind on upjet's CLI connector through
// the finders WithTerraformCLI derives, with real OpenTofu against the
// fake cloud.
func TestCLIFinder(t *testing.T) {
	b := newCLIFinderBed(t)
	s := b.finders.Strategies[b.gk]
	f := b.finders.Finders[b.gk]
	if s.Strategy != strategy.ObserveByName || f == nil || !strings.Contains(s.Reason, "Terraform CLI") {
		t.Fatalf("%s: %+v, finder %t; want observe-by-name through the Terraform CLI, with a finder", b.gk, s, f != nil)
	}

	// (a) What a create through the Terraform CLI made is found by the
	// name the intent recorded, with what proves it the create's; an
	// absent bucket is nothing, not an error.
	t.Run("ObserveByName", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cliLookupTimeout)
		defer cancel()
		const bucket = "ij-made-by-create"
		createBucketWithCLI(ctx, t, b, bucket, bucketTags("made"))

		c := bucketCandidate(t, "made", bucket, "default")
		found, err := f.Find(ctx, c)
		if err != nil {
			t.Fatalf("Find(%s): %v", bucket, err)
		}
		want := []recovery.ExternalResource{{ID: bucket, Tags: bucketTags("made")}}
		if diff := cmp.Diff(want, found); diff != "" {
			t.Fatalf("Find(%s): -want +got:\n%s", bucket, diff)
		}
		if p := recovery.Judge(c, found[0], 0).Proof; p != recovery.ProofUID {
			t.Errorf("Judge = %q, want %q: the UID tag the create sent, read back by the plan", p, recovery.ProofUID)
		}
		calls := b.names.of(bucket)
		if len(calls) == 0 || calls[0]["creation_date"] == nil {
			t.Errorf("GetExternalNameFn was handed %v for %s; want the attributes the plan read (creation_date among them)", calls, bucket)
		}

		absent, err := f.Find(ctx, bucketCandidate(t, "absent", "ij-never-made", "default"))
		if err != nil || absent != nil {
			t.Errorf("Find(ij-never-made) = %v, %v; want nothing and no error", absent, err)
		}
		checkWorkspaces(t, b.dir, 1, b.cloud.Endpoint())
	})

	// (b) Concurrent lookups share a plan: the recovery pass over many
	// CLI intents costs a few CLI runs, not one per intent.
	t.Run("Batched", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cliLookupTimeout)
		defer cancel()
		cands := make([]*recovery.Candidate, cliConcurrentLookups)
		exists := map[string]bool{}
		for i := range cands {
			name := fmt.Sprintf("many-%02d", i)
			bucket := "ij-" + name
			if i%2 == 0 {
				if _, err := b.cloud.CreateBucket(ctx, fakecloud.Bucket{Name: bucket, Tags: bucketTags(name)}); err != nil {
					t.Fatal(err)
				}
				exists[bucket] = true
			}
			cands[i] = bucketCandidate(t, name, bucket, "default")
		}
		before := b.runs.counts(t)
		began := time.Now()
		found, errs := findAll(ctx, f, cands)
		took := time.Since(began)
		after := b.runs.counts(t)

		for i, c := range cands {
			bucket := c.Intent.ExternalName
			switch {
			case errs[i] != nil:
				t.Errorf("Find(%s): %v", bucket, errs[i])
			case exists[bucket] && (len(found[i]) != 1 || found[i][0].ID != bucket || found[i][0].Tags[recovery.TagUID] != c.Intent.Resource.UID):
				t.Errorf("Find(%s) = %+v, want the bucket with its UID tag", bucket, found[i])
			case !exists[bucket] && found[i] != nil:
				t.Errorf("Find(%s) = %+v, want nothing: it was never made", bucket, found[i])
			}
		}
		plans := after["plan"] - before["plan"]
		procs := total(after) - total(before)
		t.Logf("%d concurrent lookups (%d exist): %d plan runs, %d CLI processes in all (%v), in %v",
			len(cands), len(exists), plans, procs, delta(before, after), took.Round(time.Millisecond))
		if plans < 1 || plans > cliMaxPlans {
			t.Errorf("%d concurrent lookups ran %d plans, want 1 to %d: they are batched", len(cands), plans, cliMaxPlans)
		}
	})

	// (c) A lookup that cannot reach the cloud fails: "nothing found"
	// would let recovery clear the intent and the create run again.
	t.Run("CloudFailing", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cliLookupTimeout)
		defer cancel()
		if err := b.server.SetFaults(fakecloud.Faults{ErrorRate: fakecloud.Rates{Read: 1}}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := b.server.SetFaults(fakecloud.Faults{}); err != nil {
				t.Error(err)
			}
		}()
		checkLookupsFail(ctx, t, f,
			bucketCandidate(t, "made", "ij-made-by-create", "default"),
			bucketCandidate(t, "absent", "ij-never-made", "default"))
	})
	t.Run("CloudDown", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cliLookupTimeout)
		defer cancel()
		checkLookupsFail(ctx, t, f,
			bucketCandidate(t, "made", "ij-made-by-create", downProviderConfig),
			bucketCandidate(t, "absent", "ij-never-made", downProviderConfig))
		// Another provider config is another provider block: a
		// workspace of its own.
		checkWorkspaces(t, b.dir, 2, "")
	})
}

// createBucketWithCLI makes bucket with tags as a Terraform CLI create
// does: an apply of terraform-provider-fakecloud in a workspace of its own.
func createBucketWithCLI(ctx context.Context, t *testing.T, b *cliFinderBed, bucket string, tags map[string]string) {
	t.Helper()
	ws := tftest.NewWorkspace(t, b.tfPath, b.mirror, nil)
	var tagLines []string
	for k, v := range tags {
		tagLines = append(tagLines, fmt.Sprintf("    %q = %q", k, v))
	}
	sort.Strings(tagLines)
	ws.WriteConfig(t, tftest.ProviderBlock(b.cloud.Endpoint())+fmt.Sprintf(`
resource "fakecloud_bucket" "b" {
  bucket = %q
  tags = {
%s
  }
}
`, bucket, strings.Join(tagLines, "\n")))
	if err := ws.TF.Init(ctx); err != nil {
		t.Fatalf("init: %v", err)
	}
	if err := ws.TF.Apply(ctx); err != nil {
		t.Fatalf("apply: %v", err)
	}
}

// checkLookupsFail looks the candidates up at once and wants each to fail.
func checkLookupsFail(ctx context.Context, t *testing.T, f recovery.Finder, cands ...*recovery.Candidate) {
	t.Helper()
	found, errs := findAll(ctx, f, cands)
	for i, c := range cands {
		if errs[i] == nil {
			t.Errorf("Find(%s) = %v, no error; want the lookup's failure, never nothing found", c.Intent.ExternalName, found[i])
			continue
		}
		if ctx.Err() != nil {
			t.Errorf("Find(%s): the test's deadline passed: %v", c.Intent.ExternalName, errs[i])
			continue
		}
		t.Logf("Find(%s) failed as it should: %v", c.Intent.ExternalName, errs[i])
	}
}

// findAll looks every candidate up at once, as a recovery pass's workers
// do, and returns each lookup's result and error by the candidate's index.
func findAll(ctx context.Context, f recovery.Finder, cands []*recovery.Candidate) ([][]recovery.ExternalResource, []error) {
	found := make([][]recovery.ExternalResource, len(cands))
	errs := make([]error, len(cands))
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Go(func() { found[i], errs[i] = f.Find(ctx, c) })
	}
	wg.Wait()
	return found, errs
}

// checkWorkspaces checks that dir holds n finder workspaces, each with its
// provider setup readable by this user alone; with endpoint, one of them
// configures the provider with it.
func checkWorkspaces(t *testing.T, dir string, n int, endpoint string) {
	t.Helper()
	setups, err := filepath.Glob(filepath.Join(dir, config.BucketResource+"-*", "intentjournal_setup.tf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(setups) != n {
		t.Fatalf("%d finder workspaces with a setup in %s, want %d: %v", len(setups), dir, n, setups)
	}
	seen := endpoint == ""
	for _, p := range setups {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600: it may hold credentials", p, fi.Mode().Perm())
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seen = seen || strings.Contains(string(raw), endpoint)
	}
	if !seen {
		t.Errorf("no finder workspace configures the provider with endpoint %s", endpoint)
	}
}

// delta returns the commands run between two counts.
func delta(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}
