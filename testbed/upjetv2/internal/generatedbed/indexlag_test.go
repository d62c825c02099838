package generatedbed

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestLaggingIndexLateCreateCrash kills the wrapped generated provider
// (SIGKILL) just after the async creates of Networks (list-by-tags, found
// through intentjournal's AWS lister) reached the cloud late: each create
// is held commitDelay before the cloud carries it out, as a create that
// retried for a while does, so its network is made more than the lister's
// lag after the intent began. The Tagging API trails the cloud by
// indexLag. The restarted provider's first pass lists nothing: measured
// from the intent's Begin the lag has passed, and clearing would let the
// create run again and make a second network. Measured from the latest
// moment the create can have reached the cloud (when recovery first took
// the intent up) it has not: the intent waits (AbsenceNotYetProven), its
// create held, and a later pass finds the network once the index shows it
// and adopts it. No duplicate, no pause, no operator.
func TestLaggingIndexLateCreateCrash(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	const (
		commitDelay = 40 * time.Second
		listerLag   = 30 * time.Second
		indexLag    = 20 * time.Second
	)
	b := start(t, options{wrapped: true, latency: time.Minute, awsLister: true,
		args: []string{fmt.Sprintf("--aws-tagging-lag=%s", listerLag), "--recovery-retry-interval=5s"}})
	b.fc.SetFaults(t, fakecloud.Faults{Latency: fakecloud.Latencies{Create: time.Minute}, CommitDelay: fakecloud.Latencies{Create: commitDelay}, IndexLag: indexLag})
	var mrs []*unstructured.Unstructured
	for i := range 2 {
		mrs = append(mrs, cluster.Network(fmt.Sprintf("lagnet-%d", i), fmt.Sprintf("10.0.%d.0/24", 60+i)))
	}
	began := time.Now()
	for _, mr := range mrs {
		b.create(t, mr)
	}
	// Kill as soon as the cloud has made every network: past the lister's
	// lag after the intents began, and inside the index's lag.
	testbed.Eventually(t, 2*time.Minute, 20*time.Millisecond, "every Network's network made", func() (bool, error) {
		return len(networksNamed(b.fc.Stats(t), "lagnet-")) == len(mrs), nil
	})
	b.provider.Kill()
	made := networksNamed(b.fc.Stats(t), "lagnet-")
	if late := time.Since(began); late < listerLag {
		t.Fatalf("the networks were made %s after the creates began, inside the lister's lag %s: the window under test is gone", late, listerLag)
	}
	// A create run again reaches the cloud at once from here on.
	b.fc.SetFaults(t, fakecloud.Faults{IndexLag: indexLag})

	rep := b.restartForReport(t)
	first := reportEntries(rep, "Network")
	for _, mr := range mrs {
		if want := fmt.Sprintf("%s/%s/", report.OutcomeUnresolved, recovery.ReasonAbsenceNotYetProven); first[mr.GetName()] != want {
			t.Errorf("%s: the first pass decided %q, want %q: the index cannot show a network made %s ago", mr.GetName(), first[mr.GetName()], want, indexLag)
		}
	}
	testbed.Eventually(t, 3*time.Minute, time.Second, "every Network Ready", func() (bool, error) {
		for _, mr := range mrs {
			if !ready(*get(t, b, mr)) {
				return false, nil
			}
		}
		return true, nil
	})
	var problems []string
	if after := networksNamed(b.fc.Stats(t), "lagnet-"); len(after) != len(mrs) {
		problems = append(problems, fmt.Sprintf("the cloud holds %d networks for %d managed resources: %d duplicate(s)", len(after), len(mrs), len(after)-len(mrs)))
	}
	for _, mr := range mrs {
		cur := get(t, b, mr)
		if cur.GetAnnotations()[recovery.AnnotationPaused] == "true" {
			problems = append(problems, fmt.Sprintf("%s was paused: the wait needs no operator", mr.GetName()))
		}
		if en := externalName(*cur); !slices.Contains(made, en) {
			problems = append(problems, fmt.Sprintf("%s is bound to %q, not to a network its killed create made (%v)", mr.GetName(), en, made))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), summary(problems))
	}
	t.Logf("networks made %s after the creates began (lister lag %s, index lag %s); the first pass waited (%s); every Network Ready on its own network %s after the kill, 0 duplicates",
		commitDelay, listerLag, indexLag, recovery.ReasonAbsenceNotYetProven, time.Since(began)-commitDelay)
}

// networksNamed returns the IDs of the cloud's networks whose name starts
// with prefix.
func networksNamed(s fakecloud.Stats, prefix string) []string {
	var out []string
	for _, n := range s.Objects.Networks {
		if strings.HasPrefix(n.Name, prefix) {
			out = append(out, n.ID)
		}
	}
	return out
}
