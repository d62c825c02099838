package generatedbed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestWeakProofSupersetCrash kills the wrapped generated provider
// (SIGKILL), tagging with crossplane's tags alone (--uid-tag=false, so
// only a weak proof can find anything), once the cloud has committed the
// async creates of three Networks (plugin SDK connector) and three
// CLINetworks (Terraform CLI connector). While it is down, each network
// is replaced by someone else's made inside the window, after the intent
// began, with the managed resource's crossplane tags: one with a tag of
// its own besides, one with a CIDR block where the spec sets none, and
// one identical to what the create sent. Applying the create's arguments
// would remove the first's tag and empty the second's CIDR block, so the
// restarted provider's recovery must not adopt them: each managed
// resource is paused with a Warning Event and a report entry naming the
// argument that would change, and each network stays byte-identical.
// The identical one is adopted, as docs/recovery.md says a weak proof
// does: nothing tells it apart, and applying our arguments changes
// nothing. No create runs again.
func TestWeakProofSupersetCrash(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	b := start(t, options{wrapped: true, latency: 3 * time.Second, args: []string{"--uid-tag=false"}})
	ctx := context.Background()
	type mr struct {
		line    testbed.Line
		kind    string
		variant string // extraTag, unsetArg, identical
		obj     *unstructured.Unstructured
	}
	var mrs []*mr
	for _, kl := range []struct {
		line   testbed.Line
		kind   string
		prefix string
	}{{cluster, testbed.KindNetwork, "10.0."}, {withCLIKinds(cluster), kindCLINetwork, cliCIDRPrefix}} {
		for i, variant := range []string{"extraTag", "unsetArg", "identical"} {
			name := fmt.Sprintf("ss-%s-%s", strings.ToLower(kl.kind), strings.ToLower(variant))
			fp := map[string]any{"name": name, "cidrBlock": fmt.Sprintf("%s%d.0/24", kl.prefix, 50+i)}
			if variant == "unsetArg" {
				// The spec sets no CIDR block. A CLINetwork is told
				// apart by its CIDR prefix (networkKind), so it gets one
				// in its name only; the Network none at all.
				delete(fp, "cidrBlock")
			}
			m := &mr{line: kl.line, kind: kl.kind, variant: variant, obj: kl.line.Managed(kl.kind, name, fp)}
			mrs = append(mrs, m)
			b.create(t, m.obj)
		}
	}

	// Kill once the cloud has committed every create (the latency holds
	// their answers): nothing has settled.
	byName := func() map[string]fakecloud.Network {
		out := map[string]fakecloud.Network{}
		for _, n := range b.fc.Stats(t).Objects.Networks {
			if strings.HasPrefix(n.Name, "ss-") {
				out[n.Name] = n
			}
		}
		return out
	}
	testbed.Eventually(t, 2*time.Minute, 20*time.Millisecond, "every create committed", func() (bool, error) {
		return len(byName()) == len(mrs), nil
	})
	b.provider.Kill()
	committed := byName()
	if len(committed) != len(mrs) {
		t.Fatalf("the cloud holds %d networks for %d managed resources at the kill", len(committed), len(mrs))
	}

	// Someone else's, made inside the window: our create's network goes
	// (as if it had never reached the cloud), and theirs takes its place,
	// with the crossplane tags our create sent.
	theirs := map[string]fakecloud.Network{}
	for _, m := range mrs {
		ours := committed[m.obj.GetName()]
		if _, uid := ours.Tags[recovery.TagUID]; uid || len(ours.Tags) == 0 {
			t.Fatalf("%s's network carries tags %v: the test needs crossplane's tags alone (--uid-tag=false)", m.obj.GetName(), ours.Tags)
		}
		if err := b.fc.Client.DeleteNetwork(ctx, ours.ID); err != nil {
			t.Fatal(err)
		}
		spec := fakecloud.Network{Name: ours.Name, CIDRBlock: ours.CIDRBlock, Tags: ours.Tags}
		switch m.variant {
		case "extraTag":
			spec.Tags = map[string]string{"team": "theirs"}
			for k, v := range ours.Tags {
				spec.Tags[k] = v
			}
		case "unsetArg":
			spec.CIDRBlock = "10.9.9.0/24"
		}
		n, err := b.fc.Client.CreateNetwork(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		theirs[m.obj.GetName()] = n
	}

	rep := b.restartForReport(t)
	// Two poll intervals (--poll=15s): a create run again, or an apply
	// that rewrote an adopted network, would have happened by then.
	time.Sleep(35 * time.Second)

	wantDiffer := map[string]string{"extraTag": "tags", "unsetArg": "cidrBlock"}
	var problems []string
	for _, m := range mrs {
		name := m.obj.GetName()
		e := entryOf(rep, m.kind, name)
		if e == nil {
			problems = append(problems, fmt.Sprintf("%s %s: no report entry", m.kind, name))
			continue
		}
		cur := get(t, b, m.obj)
		paused := cur.GetAnnotations()[recovery.AnnotationPaused] == "true"
		switch m.variant {
		case "identical":
			if e.Outcome != report.OutcomeAdopted || e.ExternalName != theirs[name].ID {
				problems = append(problems, fmt.Sprintf("%s %s (identical): %s/%s bound to %q, want adopted %s", m.kind, name, e.Outcome, e.Reason, e.ExternalName, theirs[name].ID))
			}
		default:
			differ := ""
			for _, f := range e.Found {
				if f.ID == theirs[name].ID {
					differ = strings.Join(f.ArgumentsDiffer, ",")
				}
			}
			if e.Outcome != report.OutcomeConflict || e.Reason != recovery.ReasonArgsDiffer || differ != wantDiffer[m.variant] {
				problems = append(problems, fmt.Sprintf("%s %s (%s): %s/%s naming %q, want %s/%s naming %q: %s",
					m.kind, name, m.variant, e.Outcome, e.Reason, differ, report.OutcomeConflict, recovery.ReasonArgsDiffer, wantDiffer[m.variant], e.Message))
			}
			if !paused {
				problems = append(problems, fmt.Sprintf("%s %s (%s) is not paused", m.kind, name, m.variant))
			}
			if !hasWarning(t, b, cur, recovery.EventConflict, wantDiffer[m.variant]) {
				problems = append(problems, fmt.Sprintf("%s %s (%s): no Warning Event %s naming %s", m.kind, name, m.variant, recovery.EventConflict, wantDiffer[m.variant]))
			}
			if en := externalName(*cur); en == theirs[name].ID {
				problems = append(problems, fmt.Sprintf("%s %s (%s) is bound to someone else's network %s", m.kind, name, m.variant, en))
			}
		}
	}
	// Every network is theirs, as they made it: none changed, none added.
	after := byName()
	if len(after) != len(mrs) {
		problems = append(problems, fmt.Sprintf("the cloud holds %d networks for %d managed resources: a create ran again", len(after), len(mrs)))
	}
	for name, want := range theirs {
		got, err := b.fc.Client.GetNetwork(ctx, want.ID)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s's foreign network %s: %v", name, want.ID, err))
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			problems = append(problems, fmt.Sprintf("%s's foreign network changed: %+v, was %+v", name, got, want))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), summary(problems))
	}
	t.Logf("killed with %d creates committed; %d foreign networks made in the window: 4 not ours (extra tag, unset argument), paused and named; 2 identical, adopted; all byte-identical after %s",
		len(mrs), len(theirs), 35*time.Second)
}

// entryOf returns rep's entry for the managed resource of kind called name.
func entryOf(rep *report.Report, kind, name string) *report.Entry {
	for _, e := range rep.Entries {
		if e.Resource.Kind == kind && e.Resource.Name == name {
			return e
		}
	}
	return nil
}

// hasWarning reports whether obj has a Warning Event of reason whose
// message names word.
func hasWarning(t *testing.T, b *bed, obj *unstructured.Unstructured, reason, word string) bool {
	t.Helper()
	var evs corev1.EventList
	if err := b.cl.Client.List(context.Background(), &evs); err != nil {
		t.Fatalf("cannot list Events: %v", err)
	}
	return slices.ContainsFunc(evs.Items, func(e corev1.Event) bool {
		return e.InvolvedObject.UID == obj.GetUID() && e.Type == corev1.EventTypeWarning && e.Reason == reason && strings.Contains(e.Message, word)
	})
}
