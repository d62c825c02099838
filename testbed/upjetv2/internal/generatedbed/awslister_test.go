package generatedbed

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestAWSListerCrash kills the wrapped generated provider (SIGKILL) while
// the async creates of Networks, whose ID the cloud assigns
// (list-by-tags), are in flight, the cloud having made every network
// (issue #33). The provider recovers through intentjournal's AWS lister
// (inventory/aws) with the real Resource Groups Tagging API client,
// against the fake cloud's Tagging API: each network is listed by its
// tags as an ARN, and adopted only once observing a candidate ID shows
// that ARN (the network's arn attribute). Every managed resource must be
// adopted on its UID tag and become Ready, bound to its own network, with
// no duplicate, no 409, none paused; the lister's calls are counted at
// the fake cloud.
func TestAWSListerCrash(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	b, mrs := killAWSListed(t)
	b.fc.SetFaults(t, fakecloud.Faults{})
	before := b.fc.Stats(t)
	rep := b.restartForReport(t)
	got := reportEntries(rep, testbed.KindNetwork)
	for _, mr := range mrs {
		if want := fmt.Sprintf("%s/%s/%s", report.OutcomeAdopted, recovery.ReasonAdopted, recovery.ProofUID); got[mr.GetName()] != want {
			t.Errorf("%s: report entry %q, want %q", mr.GetName(), got[mr.GetName()], want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	testbed.Eventually(t, 2*time.Minute, time.Second, "every Network Ready", func() (bool, error) {
		for _, mr := range mrs {
			if !ready(*get(t, b, mr)) {
				return false, nil
			}
		}
		return true, nil
	})
	// Two poll intervals (--poll=15s): a create run again would have
	// made a second network by then.
	time.Sleep(35 * time.Second)
	s := b.fc.Stats(t)
	var cur []unstructured.Unstructured
	var problems []string
	for _, mr := range mrs {
		u := get(t, b, mr)
		cur = append(cur, *u)
		if u.GetAnnotations()[recovery.AnnotationPaused] != "" {
			problems = append(problems, mr.GetName()+" is paused")
		}
	}
	problems = append(problems, bound(cur, cloudIDs(s, testbed.KindNetwork))...)
	if n := len(cloudIDs(s, testbed.KindNetwork)); n != len(mrs) {
		problems = append(problems, fmt.Sprintf("the cloud holds %d networks for %d managed resources: %d duplicate(s)", n, len(mrs), n-len(mrs)))
	}
	if c := s.Kinds["networks"].Conflicts - before.Kinds["networks"].Conflicts; c != 0 {
		problems = append(problems, fmt.Sprintf("%d creates met a conflict after the restart", c))
	}
	if s.TaggingCalls == 0 {
		problems = append(problems, "the fake cloud served no Tagging API call: recovery did not list through the AWS lister")
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems after recovery:\n%s", len(problems), summary(problems))
	}
	t.Logf("killed with %d Networks' networks made and their creates in flight; recovery listed them through the AWS lister (%d Tagging API calls), adopted %d (%s), 0 paused, 0 duplicates, 0 conflicts after %s",
		len(mrs), s.TaggingCalls, len(got), recovery.ProofUID, 35*time.Second)
}

// killAWSListed starts the wrapped generated provider recovering through
// the AWS lister, creates 4 Networks (2 per scope), and SIGKILLs it once
// the cloud has made every network while their applies are still in
// flight (the create latency holds the answers).
func killAWSListed(t *testing.T, args ...string) (*bed, []*unstructured.Unstructured) {
	t.Helper()
	b := start(t, options{wrapped: true, latency: 30 * time.Second, awsLister: true, args: args})
	var mrs []*unstructured.Unstructured
	for s, line := range []testbed.Line{cluster, namespaced} {
		for i := range 2 {
			mrs = append(mrs, line.Network(fmt.Sprintf("awsnet-%d-%d", s, i), fmt.Sprintf("10.0.%d.0/24", 10*s+i)))
		}
	}
	for _, mr := range mrs {
		b.create(t, mr)
	}
	testbed.Eventually(t, 2*time.Minute, 100*time.Millisecond, "every Network's network made", func() (bool, error) {
		return len(cloudIDs(b.fc.Stats(t), testbed.KindNetwork)) == len(mrs), nil
	})
	for _, mr := range mrs {
		if en := externalName(*get(t, b, mr)); en != "" {
			t.Fatalf("%s has external name %q before its apply ended: the window under test is gone", mr.GetName(), en)
		}
	}
	b.provider.Kill()
	return b, mrs
}

// TestAWSListerCrashUnverified is TestAWSListerCrash with the Tagging API
// listing every network under an ARN of another account
// (Faults.IndexForeignARNs), which no observation of a candidate ID
// reports: nothing listed can be verified. Every intent must end
// LookupFailed, reported and kept: nothing adopted on a mapping nobody
// checked, nothing cleared (no create runs again, no duplicate). Once the
// listing is right again, a later pass adopts every network.
func TestAWSListerCrashUnverified(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	b, mrs := killAWSListed(t, "--recovery-retry-interval=5s")
	b.fc.SetFaults(t, fakecloud.Faults{IndexForeignARNs: true})
	rep := b.restartForReport(t)
	got := reportEntries(rep, testbed.KindNetwork)
	for _, mr := range mrs {
		if want := fmt.Sprintf("%s/%s/", report.OutcomeUnresolved, recovery.ReasonLookupFailed); got[mr.GetName()] != want {
			t.Errorf("%s: report entry %q, want %q", mr.GetName(), got[mr.GetName()], want)
		}
	}
	// Two poll intervals (--poll=15s): a cleared intent's create would
	// have made a second network by then.
	time.Sleep(35 * time.Second)
	var problems []string
	if n := len(cloudIDs(b.fc.Stats(t), testbed.KindNetwork)); n != len(mrs) {
		problems = append(problems, fmt.Sprintf("the cloud holds %d networks for %d managed resources while the listing could not be verified", n, len(mrs)))
	}
	for _, mr := range mrs {
		if en := externalName(*get(t, b, mr)); en != "" {
			problems = append(problems, fmt.Sprintf("%s was bound to %q on an unverified listing", mr.GetName(), en))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems while the listing was unverifiable:\n%s", len(problems), summary(problems))
	}
	b.fc.SetFaults(t, fakecloud.Faults{})
	testbed.Eventually(t, 2*time.Minute, time.Second, "every Network Ready once the listing verifies", func() (bool, error) {
		for _, mr := range mrs {
			if !ready(*get(t, b, mr)) {
				return false, nil
			}
		}
		return true, nil
	})
	s := b.fc.Stats(t)
	var cur []unstructured.Unstructured
	for _, mr := range mrs {
		cur = append(cur, *get(t, b, mr))
	}
	if problems := bound(cur, cloudIDs(s, testbed.KindNetwork)); len(problems) > 0 || len(cloudIDs(s, testbed.KindNetwork)) != len(mrs) {
		t.Fatalf("after the listing was fixed: %d networks for %d managed resources; %s", len(cloudIDs(s, testbed.KindNetwork)), len(mrs), summary(problems))
	}
	t.Logf("an unverifiable listing: %d of %d intents LookupFailed, 0 adopted, 0 cleared, 0 duplicates after %s; fixed, all %d adopted and Ready",
		len(mrs), len(mrs), 35*time.Second, len(mrs))
}
