package crashmatrix

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// reportJSON returns a valid report JSON holding entries.
func reportJSON(t *testing.T, entries ...report.Entry) []byte {
	t.Helper()
	rep := report.New(report.Source{Owner: journal.Owner{Replica: "provider-0"}}, time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	for _, e := range entries {
		rep.Add(e)
	}
	rep.Sort()
	var b bytes.Buffer
	if err := rep.Encode(&b); err != nil {
		t.Fatalf("cannot encode a report: %v", err)
	}
	return b.Bytes()
}

// obj returns a live cloud object tagged for the managed resource mr.
func obj(kind, id, mr string) CloudObject { return CloudObject{Kind: kind, ID: id, MR: mr} }

// lookAlike returns an object made at at with the crossplane tags of the
// managed resource mr and no UID tag, as another cluster would make it.
func lookAlike(kind, id, mr string, at time.Time) CloudObject {
	return CloudObject{Kind: kind, ID: id, MR: mr, Tags: fakecloudtest.CrossplaneTags(kind, mr), CreatedAt: at}
}

// withAttrs returns c holding the arguments attrs.
func withAttrs(c CloudObject, attrs map[string]string) CloudObject {
	c.Attrs = attrs
	return c
}

// rrAttrs are a record set's arguments in the trials' zone.
func rrAttrs(name string, ttl, data string) map[string]string {
	return map[string]string{"zone": zone, "name": name, "type": "A", "ttl": ttl, "rrdatas": data}
}

// record returns the untagged record set with ID id at the key of the
// Record r0, made at at with the given TTL and rrdatas.
func record(id string, at time.Time, ttl, data string) CloudObject {
	return CloudObject{Kind: KindRecord, ID: id, ExternalName: recordID(zone, "r0", "A"), MR: "r0", Attrs: rrAttrs("r0", ttl, data), CreatedAt: at}
}

// ours returns an object made at at by the create of the managed resource
// mr, whose UID is uid.
func ours(kind, id, mr, uid string, at time.Time) CloudObject {
	c := lookAlike(kind, id, mr, at)
	c.Tags[recovery.TagUID] = uid
	return c
}

func TestCheck(t *testing.T) {
	empty := reportJSON(t)
	orphan := reportJSON(t, report.Entry{
		IntentID: "0123456789abcdef0123456789abcdef", Resource: journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: KindNetwork, Name: "n0", UID: "u-n0"},
		Sources: []string{report.SourceJournal}, ExternalName: "net-1", Outcome: report.OutcomeOrphan, Reason: "Duplicate",
		Found: []report.Found{{ID: "net-2", Owned: true}},
	})
	paused := reportJSON(t, report.Entry{
		IntentID: "0123456789abcdef0123456789abcde1", Resource: journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: KindRecordSet, Name: "r0", UID: "u-r0"},
		Sources: []string{report.SourceJournal}, Outcome: report.OutcomeConflict, Reason: "NotOurs",
		Found: []report.Found{{ID: "rs-9"}},
	})
	ready := func(kind, name, ext string) MR { return MR{Kind: kind, Name: name, ExternalName: ext, Ready: true} }
	// t0 is when the look-alikes were made; the MRs came a second later
	// (creationTimestamp keeps whole seconds).
	t0 := time.Date(2026, 11, 22, 8, 0, 0, 300_000_000, time.UTC)
	t1 := t0.Add(time.Second).Truncate(time.Second)
	mr := func(m MR) MR { m.CreatedAt = t1; return m }
	laRS, laNet := lookAlike(KindRecordSet, "rs-9", "r0", t0), lookAlike(KindNetwork, "net-9", "n0", t0)
	retagged := lookAlike(KindNetwork, "net-9", "n0", t0)
	retagged.Tags[recovery.TagUID] = "u-n0"
	// Issue #29: look-alikes made within the skew allowance with arguments
	// of their own, as the cloud answered them, and as recovery might
	// have left them had it adopted them.
	t2 := t1.Add(300 * time.Millisecond) // after the MRs
	theirRS := withAttrs(lookAlike(KindRecordSet, "rs-9", "r0", t0), rrAttrs("r0", "600", "203.0.113.66"))
	rewrittenRS := withAttrs(lookAlike(KindRecordSet, "rs-9", "r0", t0), rrAttrs("r0", "300", "192.0.2.10"))
	theirNet := withAttrs(lookAlike(KindNetwork, "net-9", "n0", t0), map[string]string{"name": "n0", "cidrBlock": "10.0.200.0/24"})
	rewrittenNet := withAttrs(lookAlike(KindNetwork, "net-9", "n0", t0), map[string]string{"name": "n0", "cidrBlock": "10.0.0.0/24"})
	foreign := record("rs-8", t2, "600", "203.0.113.66")
	rewrittenForeign := record("rs-8", t2, "300", "192.0.2.10")
	ownRecord := record("rs-7", t2, "300", "192.0.2.10")
	recordKey := recordID(zone, "r0", "A")
	reportedRecord := func(m MR) MR {
		m.Kind, m.Name, m.Paused, m.IntentState = KindRecord, "r0", true, string(journal.StateReported)
		return mr(m)
	}
	cases := map[string]struct {
		reason string
		o      Observation
		want   []Violation
	}{
		"AllBound": {
			reason: "Every object bound once, every MR Ready: nothing to report.",
			o: Observation{
				MRs:     []MR{ready(KindRecordSet, "r0", "rs-1"), ready(KindNetwork, "n0", "net-1")},
				Cloud:   []CloudObject{obj(KindRecordSet, "rs-1", "r0"), obj(KindNetwork, "net-1", "n0")},
				Reports: [][]byte{empty}, Journal: &journal.VerifyReport{ByState: map[journal.State]int{}},
			},
		},
		"DuplicateReported": {
			reason: "A duplicate Network listed as an orphan in a report is allowed.",
			o: Observation{
				MRs:     []MR{ready(KindNetwork, "n0", "net-1")},
				Cloud:   []CloudObject{obj(KindNetwork, "net-1", "n0"), obj(KindNetwork, "net-2", "n0")},
				Reports: [][]byte{empty, orphan},
			},
		},
		"DuplicateUnreported": {
			reason: "A duplicate no report lists is a violation of its kind.",
			o: Observation{
				MRs:     []MR{ready(KindNetwork, "n0", "net-1")},
				Cloud:   []CloudObject{obj(KindNetwork, "net-1", "n0"), obj(KindNetwork, "net-2", "n0")},
				Reports: [][]byte{empty},
			},
			want: []Violation{{KindNetwork, InvBoundOrReported, `Network net-2 (for "n0") is bound to no managed resource and in no report`}},
		},
		"BoundTwice": {
			reason: "Two MRs may not share one cloud object.",
			o: Observation{
				MRs:     []MR{ready(KindRecordSet, "r0", "rs-1"), ready(KindRecordSet, "r1", "rs-1")},
				Cloud:   []CloudObject{obj(KindRecordSet, "rs-1", "r0")},
				Reports: [][]byte{empty},
			},
			want: []Violation{{KindRecordSet, InvBoundOrReported, "RecordSet rs-1 is bound to 2 managed resources: r0, r1"}},
		},
		"LookAlikesUntouched": {
			reason: "A look-alike bound to nothing and in no report is fine: it is not the trial's. The RecordSet whose key it holds is paused and reported; the Network is bound to its own, newer object.",
			o: Observation{
				MRs: []MR{
					mr(MR{Kind: KindRecordSet, Name: "r0", Paused: true, IntentState: string(journal.StateReported)}),
					mr(ready(KindNetwork, "n0", "net-1")),
				},
				Cloud:      []CloudObject{laRS, laNet, ours(KindNetwork, "net-1", "n0", "u-n0", t1.Add(200*time.Millisecond))},
				LookAlikes: []CloudObject{laRS, laNet},
				Reports:    [][]byte{empty},
			},
		},
		"LookAlikeGone": {
			reason: "A look-alike recovery deleted is a violation, although nothing is left to bind.",
			o: Observation{
				MRs:        []MR{mr(ready(KindNetwork, "n0", "net-1"))},
				Cloud:      []CloudObject{ours(KindNetwork, "net-1", "n0", "u-n0", t1)},
				LookAlikes: []CloudObject{laNet},
				Reports:    [][]byte{empty},
			},
			want: []Violation{{KindNetwork, InvLookAlikeUntouched, "the look-alike Network net-9 of n0 is gone"}},
		},
		"LookAlikeRetagged": {
			reason: "A look-alike that recovery tagged as ours is a violation, bound or not.",
			o: Observation{
				MRs:        []MR{mr(ready(KindNetwork, "n0", "net-1"))},
				Cloud:      []CloudObject{retagged, ours(KindNetwork, "net-1", "n0", "u-n0", t1)},
				LookAlikes: []CloudObject{laNet},
				Reports:    [][]byte{empty},
			},
			want: []Violation{{KindNetwork, InvLookAlikeUnchanged,
				"the look-alike Network net-9 of n0 was retagged: map[crossplane-kind:network.fakecloud.intentjournal.io crossplane-name:n0 crossplane-providerconfig:default intentjournal-uid:u-n0], was map[crossplane-kind:network.fakecloud.intentjournal.io crossplane-name:n0 crossplane-providerconfig:default]"}},
		},
		"LookAlikeBound": {
			reason: "A look-alike bound to a managed resource is a violation, whatever the times (none here).",
			o: Observation{
				MRs:        []MR{{Kind: KindRecordSet, Name: "r0", ExternalName: "rs-9", Ready: true}},
				Cloud:      []CloudObject{lookAlike(KindRecordSet, "rs-9", "r0", time.Time{})},
				LookAlikes: []CloudObject{lookAlike(KindRecordSet, "rs-9", "r0", time.Time{})},
				Reports:    [][]byte{empty},
			},
			want: []Violation{{KindRecordSet, InvLookAlikeUntouched, "the look-alike RecordSet rs-9 of r0 is bound to r0"}},
		},
		"WithinSkewLookAlikesUntouched": {
			reason: "Look-alikes within the skew allowance whose arguments differ, left as they were made: the RecordSet whose key one holds is paused and reported, the Network bound to its own object.",
			o: Observation{
				MRs: []MR{
					mr(MR{Kind: KindRecordSet, Name: "r0", Paused: true, IntentState: string(journal.StateReported)}),
					mr(ready(KindNetwork, "n0", "net-1")),
				},
				Cloud:      []CloudObject{theirRS, theirNet, ours(KindNetwork, "net-1", "n0", "u-n0", t2)},
				LookAlikes: []CloudObject{theirRS, theirNet},
				Reports:    [][]byte{empty},
			},
		},
		"LookAlikeChanged": {
			reason: "A look-alike whose TTL and rrdatas recovery's adoption let the provider rewrite is a violation, though its tags are the same and nothing is bound to it any more.",
			o: Observation{
				MRs:        []MR{mr(MR{Kind: KindRecordSet, Name: "r0", Paused: true, IntentState: string(journal.StateReported)})},
				Cloud:      []CloudObject{rewrittenRS},
				LookAlikes: []CloudObject{theirRS},
				Reports:    [][]byte{empty},
			},
			want: []Violation{{KindRecordSet, InvLookAlikeUnchanged, "the look-alike RecordSet rs-9 of r0 was changed: rrdatas 203.0.113.66 -> 192.0.2.10, ttl 600 -> 300"}},
		},
		"LookAlikeCIDRChanged": {
			reason: "A Network look-alike given the managed resource's CIDR block is changed, whatever else holds.",
			o: Observation{
				MRs:        []MR{mr(ready(KindNetwork, "n0", "net-1"))},
				Cloud:      []CloudObject{rewrittenNet, ours(KindNetwork, "net-1", "n0", "u-n0", t2)},
				LookAlikes: []CloudObject{theirNet},
				Reports:    [][]byte{empty},
			},
			want: []Violation{{KindNetwork, InvLookAlikeUnchanged, "the look-alike Network net-9 of n0 was changed: cidrBlock 10.0.200.0/24 -> 10.0.0.0/24"}},
		},
		"LookAlikeAttributeDropped": {
			reason: "An argument the look-alike had and lost is a change too.",
			o: Observation{
				MRs:        []MR{mr(ready(KindNetwork, "n0", "net-1"))},
				Cloud:      []CloudObject{withAttrs(theirNet, map[string]string{"name": "n0"}), ours(KindNetwork, "net-1", "n0", "u-n0", t2)},
				LookAlikes: []CloudObject{theirNet},
				Reports:    [][]byte{empty},
			},
			want: []Violation{{KindNetwork, InvLookAlikeUnchanged, "the look-alike Network net-9 of n0 was changed: cidrBlock 10.0.200.0/24 -> (none)"}},
		},
		"ForeignRecordUntouched": {
			reason: "A foreign record made at a Record's key between the probe and the create, left as it was: the Record is paused and reported, and the record, bound to nothing, is in no report.",
			o: Observation{
				MRs:        []MR{reportedRecord(MR{})},
				Cloud:      []CloudObject{foreign},
				LookAlikes: []CloudObject{foreign},
				Reports:    [][]byte{empty},
			},
		},
		"ForeignRecordAdoptedAndRewritten": {
			reason: "Issue #29's finding: recovery adopted the foreign record on the key-vacant proof and the provider enforced the Record's spec on it. Bound and changed, each its own violation; made after the Record, so not older.",
			o: Observation{
				MRs:        []MR{mr(MR{Kind: KindRecord, Name: "r0", ExternalName: recordKey, Ready: true})},
				Cloud:      []CloudObject{rewrittenForeign},
				LookAlikes: []CloudObject{foreign},
				Reports:    [][]byte{empty},
			},
			want: []Violation{
				{KindRecord, InvLookAlikeUntouched, "the look-alike Record rs-8 (zones/crash.example/records/r0/A) of r0 is bound to r0"},
				{KindRecord, InvLookAlikeUnchanged, "the look-alike Record rs-8 (zones/crash.example/records/r0/A) of r0 was changed: rrdatas 203.0.113.66 -> 192.0.2.10, ttl 600 -> 300"},
			},
		},
		"ForeignRecordReplaced": {
			reason: "A foreign record deleted and replaced by the Record's own at the same key is gone, though the key is held and bound: a Record binds by its key, the look-alike is known by its cloud ID.",
			o: Observation{
				MRs:        []MR{mr(MR{Kind: KindRecord, Name: "r0", ExternalName: recordKey, Ready: true})},
				Cloud:      []CloudObject{ownRecord},
				LookAlikes: []CloudObject{foreign},
				Reports:    [][]byte{empty},
			},
			want: []Violation{{KindRecord, InvLookAlikeUntouched, "the look-alike Record rs-8 (zones/crash.example/records/r0/A) of r0 is gone"}},
		},
		"OwnRecordBound": {
			reason: "A Record bound by its key to its own record, the foreign race lost: nothing to report.",
			o: Observation{
				MRs:     []MR{mr(MR{Kind: KindRecord, Name: "r0", ExternalName: recordKey, Ready: true})},
				Cloud:   []CloudObject{ownRecord},
				Reports: [][]byte{empty},
			},
		},
		"OwnRecordUnbound": {
			reason: "A Record's own record bound to nothing and in no report is a violation, named by its cloud ID and its key.",
			o: Observation{
				MRs:     []MR{reportedRecord(MR{})},
				Cloud:   []CloudObject{ownRecord},
				Reports: [][]byte{empty},
			},
			want: []Violation{{KindRecord, InvBoundOrReported, `Record rs-7 (zones/crash.example/records/r0/A) (for "r0") is bound to no managed resource and in no report`}},
		},
		"RecordConflictsCountWithRecordSets": {
			reason: "The cloud counts a Record's 409 with the record sets': one RecordSet and one Record may meet two.",
			o: Observation{
				MRs:            []MR{reportedRecord(MR{}), {Kind: KindRecordSet, Name: "r1", Paused: true, IntentState: string(journal.StateReported)}},
				Reports:        [][]byte{empty},
				CloudConflicts: map[string]int64{KindRecordSet: 2},
			},
		},
		"RecordConflictsTooMany": {
			reason: "Three 409s for one RecordSet and one Record is one too many.",
			o: Observation{
				MRs:            []MR{reportedRecord(MR{}), {Kind: KindRecordSet, Name: "r1", Paused: true, IntentState: string(journal.StateReported)}},
				Reports:        [][]byte{empty},
				CloudConflicts: map[string]int64{KindRecordSet: 3},
			},
			want: []Violation{{KindRecordSet, InvOneConflict, "the cloud answered 3 409s for 2 RecordSets and Records"}},
		},
		"BoundToOlder": {
			reason: "A managed resource bound to an object made before it is a violation, look-alike or not.",
			o: Observation{
				MRs:     []MR{mr(ready(KindNetwork, "n0", "net-9"))},
				Cloud:   []CloudObject{ours(KindNetwork, "net-9", "n0", "u-n0", t1.Add(-time.Millisecond))},
				Reports: [][]byte{empty},
			},
			want: []Violation{{KindNetwork, InvNotBoundToOlder, "n0 is bound to Network net-9, made at 2026-11-22T08:00:00.999Z, before the managed resource at 2026-11-22T08:00:01Z"}},
		},
		"BoundInTheSameSecond": {
			reason: "An object made in the second the managed resource's creationTimestamp names, or at its very start, is not older.",
			o: Observation{
				MRs:     []MR{mr(ready(KindNetwork, "n0", "net-1")), mr(ready(KindNetwork, "n1", "net-2"))},
				Cloud:   []CloudObject{ours(KindNetwork, "net-1", "n0", "u-n0", t1), ours(KindNetwork, "net-2", "n1", "u-n1", t1.Add(999*time.Millisecond))},
				Reports: [][]byte{empty},
			},
		},
		"LookAlikeAdopted": {
			reason: "Adopting an older look-alike breaks both rules, each with its own violation.",
			o: Observation{
				MRs:        []MR{mr(ready(KindNetwork, "n0", "net-9"))},
				Cloud:      []CloudObject{laNet},
				LookAlikes: []CloudObject{laNet},
				Reports:    [][]byte{empty},
			},
			want: []Violation{
				{KindNetwork, InvLookAlikeUntouched, "the look-alike Network net-9 of n0 is bound to n0"},
				{KindNetwork, InvNotBoundToOlder, "n0 is bound to Network net-9, made at 2026-11-22T08:00:00.3Z, before the managed resource at 2026-11-22T08:00:01Z"},
			},
		},
		"PausedAndReported": {
			reason: "A paused MR that a report names is not stuck.",
			o: Observation{
				MRs:     []MR{{Kind: KindRecordSet, Name: "r0", Paused: true}},
				Cloud:   []CloudObject{obj(KindRecordSet, "rs-9", "")},
				Reports: [][]byte{paused},
			},
		},
		"PausedWithReportedAnnotation": {
			reason: "A paused MR whose intent annotation says reported (a 409 the create path resolved) is not stuck.",
			o: Observation{
				MRs:     []MR{{Kind: KindRecordSet, Name: "r0", Paused: true, IntentState: string(journal.StateReported)}},
				Reports: [][]byte{empty},
			},
		},
		"PausedUnreported": {
			reason: "A paused MR nothing reports is stuck.",
			o: Observation{
				MRs:     []MR{{Kind: KindRecordSet, Name: "r0", Paused: true, Status: "s"}},
				Reports: [][]byte{empty},
			},
			want: []Violation{{KindRecordSet, InvNotStuck, "r0 is paused but no report names it (s)"}},
		},
		"Stuck": {
			reason: "An MR neither Ready nor paused is stuck.",
			o: Observation{
				MRs:     []MR{{Kind: KindNetwork, Name: "n0", Status: "s"}},
				Reports: [][]byte{empty},
			},
			want: []Violation{{KindNetwork, InvNotStuck, "n0 is neither Ready nor paused (s)"}},
		},
		"TwoConflicts": {
			reason: "One MR may meet at most one 409, and the cloud may answer at most one per MR.",
			o: Observation{
				MRs:            []MR{ready(KindRecordSet, "r0", "rs-1")},
				Cloud:          []CloudObject{obj(KindRecordSet, "rs-1", "r0")},
				Reports:        [][]byte{empty},
				Conflicts:      map[string]int{"r0": 2},
				CloudConflicts: map[string]int64{KindRecordSet: 2},
			},
			want: []Violation{
				{KindRecordSet, InvOneConflict, "r0 met 2 conflicts"},
				{KindRecordSet, InvOneConflict, "the cloud answered 2 409s for 1 RecordSets"},
			},
		},
		"JournalCorrupt": {
			reason: "A journal that does not verify breaks the whole trial.",
			o: Observation{
				Reports: [][]byte{empty},
				Journal: &journal.VerifyReport{Consistency: []string{"page 3: bad"}},
			},
			want: []Violation{{"", InvJournal, "{Records:0 ByState:map[] Unsettled:0 Corrupt:[] Quarantined:[] Unsupported:[] Consistency:[page 3: bad]}"}},
		},
		"JournalUnreadable": {
			reason: "A journal that cannot be opened breaks the whole trial.",
			o:      Observation{Reports: [][]byte{empty}, JournalErr: errors.New("cannot open the journal")},
			want:   []Violation{{"", InvJournal, "cannot open the journal"}},
		},
		"NoReport": {
			reason: "Every start runs a recovery pass that writes a report.",
			o:      Observation{},
			want:   []Violation{{"", InvReport, "the provider wrote no recovery report"}},
		},
		"ReportInvalid": {
			reason: "A report that fails its schema breaks the whole trial.",
			o:      Observation{Reports: [][]byte{empty, []byte(`{"apiVersion":"intentjournal.io/v1alpha1"}`)}},
			want:   []Violation{{"", InvReport, "report 1: "}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Check(tc.o)
			// Schema errors are long: compare their prefix.
			for i := range got {
				if got[i].Invariant == InvReport && len(got[i].Detail) > len("report 1: ") && got[i].Detail[:len("report ")] == "report " {
					got[i].Detail = got[i].Detail[:len("report 1: ")]
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check(): %s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
