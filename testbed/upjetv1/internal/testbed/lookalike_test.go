package testbed

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"

	corev1 "k8s.io/api/core/v1"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// lookAlikeScenario is issue #15 end to end: another cluster with the same
// manifests made cloud resources with exactly the crossplane tags our MRs
// will get, before our MRs existed; then our provider, wrapped and with
// recovery allowed to delete orphans, is SIGKILLed with the MRs' own
// creates in flight, and restarted. Each Network MR must end bound to its
// own object, never the older look-alike; no look-alike may be touched; a
// RecordSet whose name and zone a look-alike holds is paused after one
// conflict. It returns how many Network creates were in flight at the kill.
func lookAlikeScenario(t *testing.T, cl *Cluster, fc *FakeCloud, p *Provider, reportPath, prefix string, n int, killAfter time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type lookAlike struct {
		id   string
		tags map[string]string
	}
	theirs := map[string]lookAlike{} // by MR name
	var nets, rss []string
	for i := range n {
		net, rs := fmt.Sprintf("%s-net-%d", prefix, i), fmt.Sprintf("%s-rs-%d", prefix, i)
		nets, rss = append(nets, net), append(rss, rs)
		made, err := fc.Client.CreateNetwork(ctx, fakecloud.Network{Name: net, CIDRBlock: "10.99.0.0/24", Tags: fakecloudtest.CrossplaneTags("Network", net)})
		if err != nil {
			t.Fatalf("CreateNetwork(): %v", err)
		}
		theirs[net] = lookAlike{made.ID, made.Tags}
		rec, err := fc.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: zone, Name: rs, Type: "A", TTL: 300, RRDatas: []string{"203.0.113.9"}, Tags: fakecloudtest.CrossplaneTags("RecordSet", rs)})
		if err != nil {
			t.Fatalf("CreateRecordSet(): %v", err)
		}
		theirs[rs] = lookAlike{rec.ID, rec.Tags}
	}
	// The look-alikes are strictly older than the MRs (one clock here).
	time.Sleep(100 * time.Millisecond)
	before := fc.Stats(t)
	for i := range n {
		Create(t, cl, NewNetwork(nets[i], fmt.Sprintf("10.98.%d.0/24", i)), NewRecordSet(rss[i], zone))
	}
	time.Sleep(killAfter)
	p.Kill()
	inFlight := 0
	for _, mg := range listNames(t, cl, nets) {
		if ExternalName(mg) == "" {
			inFlight++
		}
	}
	p.Restart()

	Eventually(t, 3*time.Minute, 500*time.Millisecond, "every Network Ready and every RecordSet paused", func() (bool, error) {
		for _, mg := range listNames(t, cl, nets) {
			if !IsReady(mg) {
				return false, nil
			}
		}
		for _, mg := range listNames(t, cl, rss) {
			if mg.GetAnnotations()[recovery.AnnotationPaused] != "true" {
				return false, nil
			}
		}
		return true, nil
	})
	c0 := fc.Stats(t).Kinds["recordsets"].Conflicts
	time.Sleep(2 * wrappedLatency) // a looping retry would show here
	after := fc.Stats(t)

	byID := map[string]fakecloud.Network{}
	for _, o := range after.Objects.Networks {
		byID[o.ID] = o
	}
	rsByID := map[string]fakecloud.RecordSet{}
	for _, o := range after.Objects.RecordSets {
		rsByID[o.ID] = o
	}
	for _, mg := range listNames(t, cl, nets) {
		en := ExternalName(mg)
		obj, ok := byID[en]
		switch {
		case en == theirs[mg.GetName()].id:
			t.Errorf("%s is bound to the look-alike %s", mg.GetName(), en)
		case !ok:
			t.Errorf("%s is bound to %q, which the cloud does not have", mg.GetName(), en)
		case obj.Tags[recovery.TagUID] != string(mg.GetUID()):
			t.Errorf("%s is bound to %s, whose UID tag %q is not the MR's %s", mg.GetName(), en, obj.Tags[recovery.TagUID], mg.GetUID())
		case obj.CreatedAt.Before(mg.GetCreationTimestamp().Time.Add(-time.Second)):
			t.Errorf("%s is bound to %s, created at %s, before the MR at %s", mg.GetName(), en, obj.CreatedAt, mg.GetCreationTimestamp())
		}
		copies := 0
		for _, o := range after.Objects.Networks {
			if o.Tags[recovery.TagUID] == string(mg.GetUID()) {
				copies++
			}
		}
		if copies != 1 {
			t.Errorf("%s: %d cloud networks carry its UID, want exactly 1 (no duplicate)", mg.GetName(), copies)
		}
	}
	for name, la := range theirs {
		tags, ok := map[string]string(nil), false
		if o, found := byID[la.id]; found {
			tags, ok = o.Tags, true
		} else if o, found := rsByID[la.id]; found {
			tags, ok = o.Tags, true
		}
		if !ok {
			t.Errorf("the look-alike %s of %s was deleted (delete-orphans is on)", la.id, name)
		} else if !maps.Equal(tags, la.tags) {
			t.Errorf("the look-alike %s of %s was retagged: %v, was %v", la.id, name, tags, la.tags)
		}
	}
	for _, mg := range listNames(t, cl, rss) {
		if en := ExternalName(mg); en != "" {
			t.Errorf("%s, whose name only a look-alike holds, was bound to %s", mg.GetName(), en)
		}
		if !hasEvent(t, cl, mg.GetName(), corev1.EventTypeWarning, recovery.EventConflict) {
			t.Errorf("%s has no Warning Event %s naming its conflict", mg.GetName(), recovery.EventConflict)
		}
	}
	conflicts := after.Kinds["recordsets"].Conflicts - before.Kinds["recordsets"].Conflicts
	if conflicts > int64(n) || after.Kinds["recordsets"].Conflicts != c0 {
		t.Errorf("RecordSet 409s: %d for %d MRs (want at most one each), and %d -> %d after they were paused (want none)",
			conflicts, n, c0, after.Kinds["recordsets"].Conflicts)
	}
	if inFlight > 0 {
		// The restarted provider's recovery pass met the look-alike of
		// every Network whose create was in flight, and said so.
		rep, err := report.ReadFile(reportPath)
		if err != nil {
			t.Fatalf("ReadReportFile(): %v", err)
		}
		named := 0
		for _, e := range rep.Entries {
			if e.Resource.Kind != "Network" || !strings.HasPrefix(e.Resource.Name, prefix) {
				continue
			}
			for _, f := range e.Found {
				if f.ID == theirs[e.Resource.Name].id && f.LookAlike && !f.Owned && !f.Adopted {
					named++
				}
			}
		}
		if named == 0 {
			t.Errorf("the recovery report names no look-alike of the %d Networks in flight: %+v", inFlight, rep.Entries)
		}
		if rep.Source.ClusterUID == "" {
			t.Error("the recovery report does not name the cluster")
		}
		t.Logf("look-alikes: %d Network creates in flight at the kill; the report named %d look-alikes", inFlight, named)
	}
	return inFlight
}

// TestLookAlikes runs the look-alike scenario against the real provider
// binary (upjet's async connector, UID tags written by intentjournal's
// Tagger), the fake cloud process and envtest, for both a name-keyed kind
// (RecordSet) and an ID-keyed one (Network).
func TestLookAlikes(t *testing.T) {
	bins := BuildBinaries(t)
	cl := StartCluster(t)
	fc := StartFakeCloud(t, bins.FakeCloud, fmt.Sprintf(`--faults={"latency":{"create":%q}}`, wrappedLatency))
	CreateProviderConfig(t, cl, fc.URL)
	dir := t.TempDir()
	report := filepath.Join(dir, "recovery.json")
	p := StartProvider(t, bins.Provider, cl, "--max-reconcile-rate=100", "--journal", filepath.Join(dir, "intents.db"),
		"--replica", "provider-0", "--recovery-report", report, "--delete-orphans")
	defer p.Kill()
	// Kill half-way through the fake cloud's create latency: the creates
	// are dispatched and not yet answered.
	if inFlight := lookAlikeScenario(t, cl, fc, p, report, "la", perIter, wrappedLatency/2); inFlight == 0 {
		t.Errorf("no Network create was in flight at the kill: the test proved nothing about recovery")
	}
}
