package generatedbed

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestUntaggedObserveByNameCrash kills the wrapped generated provider
// (SIGKILL) while the async creates of two untagged observe-by-name kinds
// are in flight, the cloud having made every record (issue #32, items 2
// and 3). A SpecRecord is configured as provider-upjet-aws's
// FormattedIdentifierFromProvider configures a kind: no external name
// before the create, its Terraform ID built by its GetIDFn from zone,
// name and type. A NamedRecord is configured as most GCP and Azure kinds
// are (TemplatedStringAsIdentifier): its external name is its name, known
// before the create, bound into a templated ID. Like most GCP and Azure
// kinds, neither has tags: nothing a lookup finds can carry a tag proof.
//
// Before the kill, each managed resource must carry the claim on its key
// (adapter.KeyLabel, the hash of the Terraform ID), which its own
// reconcile's Observe found vacant and crossplane-runtime's
// pending-create Update persisted: the create made no write for it.
// After the restart, recovery must observe each record by the ID its
// spec determines, with no external name, find it at the key the intent
// recorded vacant (recovery.ProofKeyVacant), no other managed resource
// claiming it, and adopt it by the external name the state gives, with no
// operator: every managed resource Ready, bound to its own record, no
// create run again (no 409), none paused.
func TestUntaggedObserveByNameCrash(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	for _, k := range []struct {
		kind, zone, tfResource string
		// named: the external name is the MR's name, set before the
		// create; otherwise the cloud's, set after it.
		named bool
	}{
		{kind: kindSpecRecord, zone: specZone, tfResource: tfprovider.SpecRecordResource},
		{kind: kindNamedRecord, zone: namedZone, tfResource: tfprovider.NamedRecordResource, named: true},
	} {
		t.Run(k.kind, func(t *testing.T) { untaggedObserveCrash(t, k.kind, k.zone, k.tfResource, k.named) })
	}
}

// untaggedObserveCrash is TestUntaggedObserveByNameCrash for one kind,
// whose records are made in zone.
func untaggedObserveCrash(t *testing.T, kind, zone, tfResource string, named bool) {
	// A long create answer keeps every apply in flight after the cloud
	// committed its record.
	b := start(t, options{wrapped: true, latency: 30 * time.Second})
	var mrs []*unstructured.Unstructured
	for s, line := range []testbed.Line{cluster, namespaced} {
		for i := range 2 {
			name := fmt.Sprintf("%s-%d-%d", strings.ToLower(kind), s, i)
			args := map[string]any{"zone": zone, "name": name, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.21"}}
			if named {
				delete(args, "name") // the external name, the MR's name
			}
			mrs = append(mrs, line.Managed(kind, name, args))
		}
	}
	for _, mr := range mrs {
		b.create(t, mr)
	}
	testbed.Eventually(t, 2*time.Minute, 100*time.Millisecond, "every "+kind+"'s record made", func() (bool, error) {
		return len(cloudIDs(b.fc.Stats(t), kind)) == len(mrs), nil
	})
	for _, mr := range mrs {
		cur := get(t, b, mr)
		id := tfprovider.RecordID(zone, mr.GetName(), "A")
		if got, want := cur.GetLabels()[adapter.KeyLabel], adapter.KeyLabelValue(tfResource, id); got != want {
			t.Errorf("%s: label %s=%q while its create is in flight, want %q, the claim on %s", mr.GetName(), adapter.KeyLabel, got, want, id)
		}
		if en, want := externalName(*cur), map[bool]string{true: mr.GetName()}[named]; en != want {
			t.Fatalf("%s has external name %q before its apply ended, want %q: the window under test is gone", mr.GetName(), en, want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	b.provider.Kill()
	b.fc.SetFaults(t, fakecloud.Faults{})
	conflicts := b.fc.Stats(t).Kinds["recordsets"].Conflicts
	rep := b.restartForReport(t)
	got := reportEntries(rep, kind)
	for _, mr := range mrs {
		if want := fmt.Sprintf("%s/%s/%s", report.OutcomeAdopted, recovery.ReasonAdopted, recovery.ProofKeyVacant); got[mr.GetName()] != want {
			t.Errorf("%s: report entry %q, want %q", mr.GetName(), got[mr.GetName()], want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	testbed.Eventually(t, 2*time.Minute, time.Second, "every "+kind+" Ready", func() (bool, error) {
		for _, mr := range mrs {
			if !ready(*get(t, b, mr)) {
				return false, nil
			}
		}
		return true, nil
	})
	// Two poll intervals (--poll=15s): a create run again would have met
	// "already exists" by then.
	time.Sleep(35 * time.Second)
	s := b.fc.Stats(t)
	var cur []unstructured.Unstructured
	for _, mr := range mrs {
		u := get(t, b, mr)
		cur = append(cur, *u)
		if u.GetAnnotations()[recovery.AnnotationPaused] != "" {
			t.Errorf("%s is paused: its record was adopted, nothing was left for an operator", mr.GetName())
		}
	}
	problems := bound(cur, cloudIDs(s, kind))
	if n := len(cloudIDs(s, kind)); n != len(mrs) {
		problems = append(problems, fmt.Sprintf("the cloud holds %d %s records for %d managed resources", n, kind, len(mrs)))
	}
	if c := s.Kinds["recordsets"].Conflicts - conflicts; c != 0 {
		problems = append(problems, fmt.Sprintf("%d creates met \"already exists\" after the restart: a create ran again", c))
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems after recovery:\n%s", len(problems), summary(problems))
	}
	t.Logf("killed with %d untagged %ss' records made and their creates in flight; recovery adopted %d (%s), 0 paused, 0 conflicts, %d records after %s",
		len(mrs), kind, len(got), recovery.ProofKeyVacant, len(cloudIDs(s, kind)), 35*time.Second)
}
