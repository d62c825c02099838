package generatedbed

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestTagsAfterCreateCrash kills the wrapped generated provider (SIGKILL)
// while the async creates of LateTagNetworks, whose Terraform resource
// makes the network and tags it tfprovider.LateTagDelay later in a second
// call (as aws_route53_zone does), have made their networks and not yet
// tagged them (issue #32, item 4). The restarted provider's recovery lists
// by tags and finds nothing; the kind is declared TagsAfterCreate, so
// that finding proves nothing, and each create is reported
// (AbsenceProvesNothing) with its managed resource paused, instead of
// cleared and run again, which would make a second network each. The
// cloud must hold exactly one network per managed resource, then and
// after two poll intervals more. An operator then adopts each network as
// the report's action says (external name, unpause): every managed
// resource becomes Ready, bound to its network, with no create run again.
func TestTagsAfterCreateCrash(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	b := start(t, options{wrapped: true, latency: 200 * time.Millisecond})
	var mrs []*unstructured.Unstructured
	for s, line := range []testbed.Line{cluster, namespaced} {
		for i := range 2 {
			name := fmt.Sprintf("lt-%d-%d", s, i)
			mrs = append(mrs, line.Managed(kindLateTagNetwork, name, map[string]any{"name": name, "cidrBlock": fmt.Sprintf("%s%d.0/24", lateTagCIDRPrefix, 10*s+i)}))
		}
	}
	for _, mr := range mrs {
		b.create(t, mr)
	}

	// Kill inside the gap: every network made, none tagged yet.
	var atKill []fakecloud.Network
	testbed.Eventually(t, time.Minute, 20*time.Millisecond, "every LateTagNetwork's network made", func() (bool, error) {
		atKill = lateTagNetworks(b.fc.Stats(t))
		return len(atKill) == len(mrs), nil
	})
	b.provider.Kill()
	atKill = lateTagNetworks(b.fc.Stats(t))
	for _, n := range atKill {
		if len(n.Tags) > 0 {
			t.Fatalf("network %s (%s) was tagged before the kill: the kill missed the gap this test is about (tags %v)", n.ID, n.Name, n.Tags)
		}
	}
	rep := b.restartForReport(t)
	// Two poll intervals (--poll=15s): a create run again would have
	// made its network by then.
	time.Sleep(35 * time.Second)
	after := lateTagNetworks(b.fc.Stats(t))
	if len(after) != len(mrs) {
		t.Fatalf("the cloud holds %d LateTagNetwork networks for %d managed resources after the restart: %d duplicate(s)\n%v", len(after), len(mrs), len(after)-len(mrs), after)
	}
	byName := map[string]fakecloud.Network{}
	for _, n := range after {
		byName[n.Name] = n
	}
	got := reportEntries(rep, kindLateTagNetwork)
	for _, mr := range mrs {
		if want := fmt.Sprintf("%s/%s/", report.OutcomeConflict, recovery.ReasonAbsenceUnproven); got[mr.GetName()] != want {
			t.Errorf("%s: report entry %q, want %q", mr.GetName(), got[mr.GetName()], want)
		}
		cur := get(t, b, mr)
		if cur.GetAnnotations()[recovery.AnnotationPaused] != "true" {
			t.Errorf("%s is not paused after its create was reported", mr.GetName())
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// The operator's part: the network is there, so adopt it and unpause.
	for _, mr := range mrs {
		n := byName[mr.GetName()]
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:null}}}`, recovery.AnnotationExternalName, n.ID, recovery.AnnotationPaused)
		obj := mr.DeepCopy()
		if err := b.cl.Client.Patch(context.Background(), obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatalf("cannot adopt %s for %s: %v", n.ID, mr.GetName(), err)
		}
	}
	testbed.Eventually(t, 2*time.Minute, time.Second, "every adopted LateTagNetwork Ready", func() (bool, error) {
		for _, mr := range mrs {
			if !ready(*get(t, b, mr)) {
				return false, nil
			}
		}
		return true, nil
	})
	final := lateTagNetworks(b.fc.Stats(t))
	var problems []string
	if len(final) != len(mrs) {
		problems = append(problems, fmt.Sprintf("the cloud holds %d LateTagNetwork networks for %d managed resources", len(final), len(mrs)))
	}
	for _, mr := range mrs {
		if en, want := externalName(*get(t, b, mr)), byName[mr.GetName()].ID; en != want {
			problems = append(problems, fmt.Sprintf("%s is bound to %q, want its network %s", mr.GetName(), en, want))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems after adoption:\n%s", len(problems), summary(problems))
	}
	t.Logf("killed with %d networks made and untagged (tags %s after the create); recovery reported %d creates (%s), 0 duplicates after %s; adopted by hand, %d Ready",
		len(atKill), tfprovider.LateTagDelay, len(got), recovery.ReasonAbsenceUnproven, 35*time.Second, len(mrs))
}

// lateTagNetworks returns the cloud's networks that LateTagNetworks made,
// sorted by name.
func lateTagNetworks(s fakecloud.Stats) []fakecloud.Network {
	var out []fakecloud.Network
	for _, n := range s.Objects.Networks {
		if networkKind(n) == kindLateTagNetwork {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b fakecloud.Network) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// get reads mr afresh from the API server.
func get(t *testing.T, b *bed, mr *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(mr.GroupVersionKind())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.cl.Client.Get(ctx, client.ObjectKeyFromObject(mr), cur); err != nil {
		t.Fatalf("cannot get %s: %v", mr.GetName(), err)
	}
	return cur
}
