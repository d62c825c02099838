package testbed

import (
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	corev1 "k8s.io/api/core/v1"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
)

// Set-up of TestWeakProofForeignRecord's race. The fake cloud computes a
// read's answer when the read arrives and sends it probeLatency later, so
// the key probe's read answers "free" for a record made in that time.
// The foreign record is made probeLead after the create's pending mark,
// which crossplane-runtime writes just before it calls Create, whose first
// cloud request is that read: the read has arrived by then, and its answer
// is still held.
const (
	probeLatency = 6 * time.Second
	probeLead    = 2500 * time.Millisecond
)

// TestWeakProofForeignRecord is issue #29's scenario on the tagless
// Record kind (observe-by-template, proven ours only by KeyVacant):
// someone else makes a record at the victim's key after the key probe
// read it free and before the create reaches the cloud, with arguments of
// their own (TTL 600, 203.0.113.66; the MR asks for 300 and 192.0.2.10).
// The create meets "already exists" in the cloud, and the provider is
// SIGKILLed before that answer reaches it (the create latency holds it):
// its intent stays open with the key recorded as vacant. Other Records
// race nobody and are in flight at the same kill.
//
// After the restart, with --delete-orphans, it requires the foreign
// record unchanged and not deleted while the provider runs on, the victim
// paused and bound to nothing, the report's entry a conflict
// (ArgumentsDiffer) naming the record with arguments "differ", a Warning
// Event IntentConflict, and the other Records adopted (KeyVacant flagged
// weak with arguments "match", or a strong proof) and Ready. Without the
// argument check the victim is adopted on KeyVacant and the reconciler
// rewrites the foreign record to the MR's spec.
//
// The kill must land where meant: the test fails unless the key probe
// read the key free (the victim is labelled) and the victim's create then
// met the foreign record (a 409 committed in the cloud), and unless the
// dead provider's journal still holds the victim's intent open with its
// vacant key.
func TestWeakProofForeignRecord(t *testing.T) {
	const (
		ns     = "weak"
		zone   = "weak-zone"
		victim = "victim"
	)
	others := []string{"rec-00", "rec-01", "rec-02"}
	b := newWeakBed(t, []string{ns})
	cl, fc, prov := b.Cluster, b.FakeCloud, b.Provider
	kinds := []func() resource.ManagedList{NamespacedRecords}

	fc.SetFaults(t, fakecloud.Faults{Latency: fakecloud.Latencies{Create: weakCreateLatency, Read: probeLatency}})
	for _, n := range append([]string{victim}, others...) {
		Create(t, cl, NewNamespacedRecord(ns, n, zone))
	}
	key := tfprovider.RecordID(zone, victim, "A")
	label := adapter.KeyLabelValue((&namespacedv1alpha1.Record{}).GetTerraformResourceType(), key)
	get := func() *namespacedv1alpha1.Record {
		for _, mg := range listAll(t, cl, kinds) {
			if mg.GetName() == victim {
				return mg.(*namespacedv1alpha1.Record)
			}
		}
		t.Fatalf("the victim Record is gone")
		return nil
	}

	Eventually(t, 2*time.Minute, 20*time.Millisecond, "the victim's create to be marked pending", func() (bool, error) {
		return !meta.GetExternalCreatePending(get()).IsZero(), nil
	})
	time.Sleep(probeLead)
	if v := get().GetLabels()[adapter.KeyLabel]; v != "" {
		t.Fatalf("the victim's key probe had answered before the foreign record was made (label %s=%s): the race was not set up", adapter.KeyLabel, v)
	}
	foreign := createInCloud(t, fc, fakecloud.RecordSet{Zone: zone, Name: victim, Type: "A", TTL: foreignTTL, RRDatas: []string{foreignRRData}})
	if !isForeign(foreign) {
		t.Fatalf("the record at %s is %+v, not the foreign one: the victim's create reached the cloud first", key, foreign)
	}
	Eventually(t, time.Minute, 20*time.Millisecond, "the victim's create to meet the foreign record (a 409 in the cloud)", func() (bool, error) {
		return fc.Stats(t).Kinds[fakecloud.KindRecordSets].Conflicts > 0, nil
	})
	// The probe labels the Record before its create is dispatched: a 409
	// with no label means the probe read the foreign record.
	if v := get().GetLabels()[adapter.KeyLabel]; v != label {
		t.Fatalf("the victim met the foreign record, but its key probe did not read the key free (label %s=%q, want %q): the race was not set up", adapter.KeyLabel, v, label)
	}
	Eventually(t, time.Minute, 20*time.Millisecond, "the other Records' creates to reach the cloud", func() (bool, error) {
		return fc.Stats(t).Kinds[fakecloud.KindRecordSets].Creates == int64(1+len(others)), nil
	})
	prov.Kill()
	killedAt := time.Now()
	victimUID := get().GetUID()
	open := b.killed(t, victimUID)
	in := open[string(victimUID)]
	if in.VacantKey != key {
		t.Fatalf("the victim's intent records vacant key %q, want %q: the probe did not read the key free", in.VacantKey, key)
	}
	t.Logf("at SIGKILL: the victim's intent %s is %s with vacant key %s; the foreign record %s was made %s before the intent began; %d intents open",
		in.ID, in.State, in.VacantKey, foreign.ID, in.CreatedAt.Sub(foreign.CreatedAt).Round(time.Millisecond), len(open))

	fc.SetFaults(t, fakecloud.Faults{})
	conflictsAtRestart := fc.Stats(t).Kinds[fakecloud.KindRecordSets].Conflicts
	prov.Restart()
	// The pass writes its report once it has patched every MR it decided
	// for: the victim is as recovery left it.
	rep := b.readReport(t)
	decided := time.Since(killedAt).Round(100 * time.Millisecond)
	entries := entriesByUID(rep)
	checkVictim(t, cl, get(), entries[string(victimUID)], key)

	// The others raced nobody: adopted, bound to their own record, Ready.
	waitReadyExcept(t, cl, kinds, victimUID)
	weak := 0
	for _, mg := range listAll(t, cl, kinds) {
		if mg.GetUID() == victimUID {
			continue
		}
		want := tfprovider.RecordID(zone, mg.GetName(), "A")
		if ExternalName(mg) != want || meta.IsPaused(mg) || !IsReady(mg) {
			t.Errorf("%s: bound to %q, paused %t, Ready %t; want Ready and bound to %q", Key(mg), ExternalName(mg), meta.IsPaused(mg), IsReady(mg), want)
		}
		if _, inFlight := open[string(mg.GetUID())]; !inFlight {
			continue
		}
		e, ok := entries[string(mg.GetUID())]
		if !ok {
			t.Errorf("%s: in flight at the kill, but not in the recovery report", Key(mg))
			continue
		}
		if checkAdopted(t, Key(mg), e, want) {
			weak++
		}
	}
	if weak == 0 {
		t.Errorf("no Record was adopted on a weak proof with matching arguments: the check that refused the victim may refuse everything")
	}

	// Someone else's record stays as they made it while the provider runs.
	checkUnchanged(t, fc, foreign)
	s := fc.Stats(t).Kinds[fakecloud.KindRecordSets]
	if s.Creates != int64(1+len(others)) || s.Deletes != 0 || s.Conflicts != conflictsAtRestart {
		t.Errorf("record sets: %d creates, %d deletes, %d 409s after the restart; want %d, 0 and 0", s.Creates, s.Deletes, s.Conflicts-conflictsAtRestart, 1+len(others))
	}
	t.Logf("weak proof, foreign record at a probed key: report %+v, written %s after SIGKILL; %d other Records adopted on a weak proof with matching arguments; the foreign record unchanged %s later",
		summaryCounts(rep), decided, weak, unchangedFor)
}

// TestWeakProofLookAlikeWithinSkew is issue #29's scenario for a tagged
// kind proven ours only by crossplane tags: the provider runs with
// --uid-tag=false (upjet's own tagger, no intentjournal-uid tag), so
// recovery can only take a resource for the create's own by its
// crossplane tags and a creation time no earlier than the create began
// less the clock-skew allowance (recovery.DefaultClockSkew). The
// look-alike, as another cluster with the same manifests would make it,
// carries exactly the MR's crossplane tags, is made in the cloud just
// before the MR (well within the allowance), and has arguments of its own.
//
// The kind is the cluster-scoped RecordSet: name-keyed (zone and name are
// unique), so the victim's create meets "already exists", and the
// look-alike is the only resource it can be taken for. (For an ID-keyed
// Network the victim's own create lands too, and recovery picks between
// the two.) The provider is SIGKILLed with that 409 held in the cloud. A
// control RecordSet, with no look-alike, is in flight at the same kill.
//
// After the restart it requires the look-alike unchanged and not deleted
// while the provider runs on, the victim paused and bound to nothing, the
// report's entry a conflict (ArgumentsDiffer) naming the look-alike with
// arguments "differ", a Warning Event IntentConflict, and the control
// adopted on CrossplaneTags, flagged weak with arguments "match".
func TestWeakProofLookAlikeWithinSkew(t *testing.T) {
	const (
		zone    = "skew-zone"
		victim  = "victim"
		control = "control"
	)
	b := newWeakBed(t, nil, "--uid-tag=false")
	cl, fc, prov := b.Cluster, b.FakeCloud, b.Provider
	kinds := []func() resource.ManagedList{RecordSets}
	tags := map[string]string{
		resource.ExternalResourceTagKeyKind:     "recordset." + clusterv1alpha1.CRDGroup,
		resource.ExternalResourceTagKeyName:     victim,
		resource.ExternalResourceTagKeyProvider: ProviderConfigName,
	}

	fc.SetFaults(t, fakecloud.Faults{Latency: fakecloud.Latencies{Create: weakCreateLatency}})
	lookAlike := createInCloud(t, fc, fakecloud.RecordSet{Zone: zone, Name: victim, Type: "A", TTL: foreignTTL, RRDatas: []string{foreignRRData}, Tags: tags})
	if !isForeign(lookAlike) || !maps.Equal(lookAlike.Tags, tags) {
		t.Fatalf("the record set at %s/%s is %+v, not the look-alike", zone, victim, lookAlike)
	}
	Create(t, cl, NewRecordSet(victim, zone), NewRecordSet(control, zone))
	Eventually(t, 2*time.Minute, 20*time.Millisecond, "the victim's create to meet the look-alike (a 409 in the cloud) and the control's to reach the cloud", func() (bool, error) {
		k := fc.Stats(t).Kinds[fakecloud.KindRecordSets]
		return k.Conflicts > 0 && k.Creates == 2, nil
	})
	prov.Kill()
	killedAt := time.Now()
	var v, ctl resource.Managed
	for _, mg := range listAll(t, cl, kinds) {
		switch mg.GetName() {
		case victim:
			v = mg
		case control:
			ctl = mg
		}
	}
	open := b.killed(t, v.GetUID())
	in := open[string(v.GetUID())]
	if in.UIDTag {
		t.Fatalf("the victim's create sent the UID tag: with --uid-tag=false only crossplane tags can prove it, and the test shows nothing")
	}
	if _, ok := open[string(ctl.GetUID())]; !ok {
		t.Fatalf("the control's create was settled before the kill: the test shows no adoption")
	}
	// Exactly the MR's crossplane tags, as upjet's tagger wrote them
	// before the create; and made within the allowance of the create.
	got := map[string]string{}
	for k, p := range v.(*clusterv1alpha1.RecordSet).Spec.ForProvider.Tags {
		if p != nil {
			got[k] = *p
		}
	}
	if !maps.Equal(got, tags) {
		t.Fatalf("the victim's create sent tags %v; the look-alike carries %v: want the same", got, tags)
	}
	if gap := in.CreatedAt.Sub(lookAlike.CreatedAt); gap < 0 || gap >= recovery.DefaultClockSkew {
		t.Fatalf("the look-alike was made %s before the victim's intent began; want within [0, %s)", gap, recovery.DefaultClockSkew)
	}
	t.Logf("at SIGKILL: the victim's intent %s is %s, begun %s after the look-alike %s was made; %d intents open",
		in.ID, in.State, in.CreatedAt.Sub(lookAlike.CreatedAt).Round(time.Millisecond), lookAlike.ID, len(open))

	fc.SetFaults(t, fakecloud.Faults{})
	conflictsAtRestart := fc.Stats(t).Kinds[fakecloud.KindRecordSets].Conflicts
	prov.Restart()
	rep := b.readReport(t)
	decided := time.Since(killedAt).Round(100 * time.Millisecond)
	entries := entriesByUID(rep)
	for _, mg := range listAll(t, cl, kinds) {
		if mg.GetUID() == v.GetUID() {
			checkVictim(t, cl, mg, entries[string(v.GetUID())], lookAlike.ID)
		}
	}

	waitReadyExcept(t, cl, kinds, v.GetUID())
	for _, mg := range listAll(t, cl, kinds) {
		if mg.GetUID() != ctl.GetUID() {
			continue
		}
		rs, _ := cloudRecordAt(t, fc, zone, control)
		if ExternalName(mg) != rs.ID || meta.IsPaused(mg) || !IsReady(mg) {
			t.Errorf("the control: bound to %q, paused %t, Ready %t; want Ready and bound to its record %q", ExternalName(mg), meta.IsPaused(mg), IsReady(mg), rs.ID)
		}
		e, ok := entries[string(ctl.GetUID())]
		if !ok {
			t.Errorf("the control: in flight at the kill, but not in the recovery report")
			continue
		}
		checkAdopted(t, "the control", e, rs.ID)
		if f, _ := foundByID(e, rs.ID); f.Adopted && f.Proof != string(recovery.ProofTags) {
			t.Errorf("the control: adopted on %s, want %s: its create sent no UID tag and never answered", f.Proof, recovery.ProofTags)
		}
	}

	checkUnchanged(t, fc, lookAlike)
	s := fc.Stats(t).Kinds[fakecloud.KindRecordSets]
	if s.Creates != 2 || s.Deletes != 0 || s.Conflicts != conflictsAtRestart {
		t.Errorf("record sets: %d creates, %d deletes, %d 409s after the restart; want 2, 0 and 0", s.Creates, s.Deletes, s.Conflicts-conflictsAtRestart)
	}
	t.Logf("weak proof, look-alike within the skew allowance: report %+v, written %s after SIGKILL; the look-alike unchanged %s later",
		summaryCounts(rep), decided, unchangedFor)
}

// checkVictim checks what recovery did with the victim mg, whose create
// met someone else's resource id: mg paused and bound to nothing, its
// report entry e a conflict refusing id on its arguments, and a Warning
// Event IntentConflict on mg.
func checkVictim(t *testing.T, c *Cluster, mg resource.Managed, e *report.Entry, id string) {
	t.Helper()
	if !meta.IsPaused(mg) || ExternalName(mg) != "" {
		t.Errorf("the victim: paused %t, external name %q; want paused and bound to nothing (someone else's resource is %q)", meta.IsPaused(mg), ExternalName(mg), id)
	}
	checkRefused(t, "the victim's report entry", e, id)
	if e != nil {
		j, _ := json.MarshalIndent(e, "", "  ")
		t.Logf("the victim's report entry:\n%s", j)
	}
	if ev, ok := waitEvent(t, c, mg.GetUID(), corev1.EventTypeWarning, recovery.EventConflict); ok {
		t.Logf("Event %s %s: %s", ev.Type, ev.Reason, ev.Message)
	}
}

// summaryCounts is the report's summary without its timings, for logs.
func summaryCounts(rep *report.Report) report.Summary {
	s := rep.Summary
	s.Timings = nil
	return s
}
