package generatedbed

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// kindsOf are the kinds the generated provider serves, each with an MR
// of it called name, in line.
var kindsOf = []struct {
	kind string
	mr   func(line testbed.Line, name string, i int) *unstructured.Unstructured
}{
	{testbed.KindRecordSet, func(l testbed.Line, name string, _ int) *unstructured.Unstructured {
		return l.RecordSet(name, zone)
	}},
	{testbed.KindNetwork, func(l testbed.Line, name string, i int) *unstructured.Unstructured {
		return l.Network(name, fmt.Sprintf("10.0.%d.0/24", i))
	}},
	{kindCLIRecordSet, func(l testbed.Line, name string, _ int) *unstructured.Unstructured {
		return withCLIKinds(l).RecordSet(name, cliZone)
	}},
	{kindCLINetwork, func(l testbed.Line, name string, i int) *unstructured.Unstructured {
		return withCLIKinds(l).Network(name, fmt.Sprintf("%s%d.0/24", cliCIDRPrefix, i))
	}},
	{kindLateTagNetwork, func(l testbed.Line, name string, i int) *unstructured.Unstructured {
		return l.Managed(kindLateTagNetwork, name, map[string]any{"name": name, "cidrBlock": fmt.Sprintf("%s%d.0/24", lateTagCIDRPrefix, i)})
	}},
	{kindRecord, func(l testbed.Line, name string, _ int) *unstructured.Unstructured {
		return l.Managed(kindRecord, name, map[string]any{"zone": recordZone, "name": name, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.20"}})
	}},
	{kindSpecRecord, func(l testbed.Line, name string, _ int) *unstructured.Unstructured {
		return l.Managed(kindSpecRecord, name, map[string]any{"zone": specZone, "name": name, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.21"}})
	}},
	{kindNamedRecord, func(l testbed.Line, name string, _ int) *unstructured.Unstructured {
		return l.Managed(kindNamedRecord, name, map[string]any{"zone": namedZone, "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.22"}})
	}},
	{kindBucket, func(l testbed.Line, name string, _ int) *unstructured.Unstructured {
		return l.Managed(kindBucket, name, map[string]any{})
	}},
	{kindAddress, func(l testbed.Line, name string, _ int) *unstructured.Unstructured {
		return l.Managed(kindAddress, name, map[string]any{"name": name})
	}},
}

// TestGeneratedProviderCreatesEveryKind runs the generated provider,
// wrapped, with no crash: every kind of both scopes (the plugin SDK's
// RecordSet, Network, LateTagNetwork, Record, SpecRecord, NamedRecord and Bucket, the plugin
// framework's Address,
// the Terraform CLI's CLIRecordSet and CLINetwork) becomes Ready, bound to exactly one cloud object
// of its own, and every intent its creates began is settled. No managed
// resource's external name changes once set: the create callback's patch
// writes the name upjet's own Observe derives (a templated kind's is a
// part of its ID), so no reconcile sees another.
func TestGeneratedProviderCreatesEveryKind(t *testing.T) {
	b := start(t, options{wrapped: true, latency: 200 * time.Millisecond})
	history := b.watchNames(t)
	names, _ := b.createEveryKind(t, "", 2)
	want := len(names)
	b.waitReady(t, 4*time.Minute, want)
	stats := b.fc.Stats(t)
	problems := history.stop()
	if n := history.count(); n != want {
		problems = append(problems, fmt.Sprintf("the watch saw an external name on %d MRs of %d", n, want))
	}
	for _, line := range []testbed.Line{cluster, namespaced} {
		for _, k := range kindsOf {
			mrs := b.list(t, line, k.kind)
			problems = append(problems, bound(mrs, cloudIDs(stats, k.kind))...)
		}
	}
	if total := len(stats.Objects.All()); total != want {
		problems = append(problems, fmt.Sprintf("the fake cloud holds %d objects for %d MRs", total, want))
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), summary(problems))
	}
	if err := b.provider.Terminate(); err != nil {
		t.Fatalf("the provider did not stop cleanly: %v", err)
	}
	st := intentStates(t, b.journal)
	if st[journal.StateSettled] != want || len(st) != 1 {
		t.Errorf("journal: intents by state %v, want %d settled (bound) and nothing else", st, want)
	}
	t.Logf("generated provider, wrapped: %d MRs of %d kinds in 2 scopes over 3 connectors Ready, %d cloud objects, intents %v", want, len(kindsOf), len(stats.Objects.All()), st)
}

// createEveryKind creates perKind MRs of every generated kind in both
// scopes, called <prefix>c-<kind>-<i> (cluster-scoped) and <prefix>n-<kind>-<i>
// (namespaced), and returns their names and each name's kind.
func (b *bed) createEveryKind(t *testing.T, prefix string, perKind int) (names []string, kindOf map[string]string) {
	t.Helper()
	kindOf = map[string]string{}
	for s, line := range []testbed.Line{cluster, namespaced} {
		scope := "c"
		if line.Namespaced() {
			scope = "n"
		}
		for _, k := range kindsOf {
			for i := range perKind {
				name := fmt.Sprintf("%s%s-%s-%d", prefix, scope, lower(k.kind), i)
				b.create(t, k.mr(line, name, i+10*s))
				names = append(names, name)
				kindOf[name] = k.kind
			}
		}
	}
	return names, kindOf
}

// waitReady waits until want MRs of the generated kinds, both scopes,
// are Ready, and fails naming those that are not.
func (b *bed) waitReady(t *testing.T, timeout time.Duration, want int) {
	t.Helper()
	b.waitReadyOrStuck(t, timeout, want, nil)
}

// waitReadyOrStuck waits until each of want MRs of the generated kinds,
// both scopes, is Ready or stuck (stuck, when set, says so of one that is
// not Ready), and returns the names of the stuck ones. It fails naming
// the MRs neither Ready nor stuck after timeout.
func (b *bed) waitReadyOrStuck(t *testing.T, timeout time.Duration, want int, stuck func(unstructured.Unstructured) bool) []string {
	t.Helper()
	var notReady, stuckNames []string
	deadline := time.Now().Add(timeout)
	for {
		n := 0
		notReady, stuckNames = notReady[:0], stuckNames[:0]
		for _, line := range []testbed.Line{cluster, namespaced} {
			for _, k := range kindsOf {
				for _, mr := range b.list(t, line, k.kind) {
					switch {
					case ready(mr):
						n++
						continue
					case stuck != nil && stuck(mr):
						stuckNames = append(stuckNames, mr.GetName())
					}
					notReady = append(notReady, fmt.Sprintf("%s %s/%s: Synced=%s %s", mr.GetKind(), mr.GetNamespace(), mr.GetName(),
						condition(mr, "Synced"), conditionMessage(mr, "Synced")))
				}
			}
		}
		if n+len(stuckNames) == want {
			return stuckNames
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d MRs Ready after %s; not Ready:\n%s", n, want, timeout, summary(notReady))
		}
		time.Sleep(time.Second)
	}
}

// intentStates counts the journal's intents by state.
func intentStates(t *testing.T, path string) map[journal.State]int {
	t.Helper()
	j, err := journal.Open(path, journal.WithReadOnly())
	if err != nil {
		t.Fatalf("cannot open the journal: %v", err)
	}
	defer func() {
		if err := j.Close(); err != nil {
			t.Errorf("cannot close the journal: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := map[journal.State]int{}
	for in, err := range j.All(ctx) {
		if err != nil {
			t.Fatalf("cannot read the journal: %v", err)
		}
		out[in.State]++
	}
	return out
}

// lower is the kind's name in lower case, for MR names.
func lower(kind string) string {
	out := []byte(kind)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}

var _ client.Object = (*unstructured.Unstructured)(nil)
