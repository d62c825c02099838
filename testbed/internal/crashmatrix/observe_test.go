package crashmatrix

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

func TestLookAlikeFates(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	foreign := record("rs-8", t0, "600", "203.0.113.66")
	laNet := withAttrs(lookAlike(KindNetwork, "net-9", "n0", t0), map[string]string{"name": "n0", "cidrBlock": "10.0.200.0/24"})
	conflict := reportJSON(t, report.Entry{
		IntentID: "0123456789abcdef0123456789abcdef", Resource: journal.ResourceRef{APIVersion: "fakecloud.m.intentjournal.io/v1alpha1", Kind: KindRecord, Namespace: "crash", Name: "r0", UID: "u-r0"},
		Sources: []string{report.SourceJournal}, Outcome: report.OutcomeConflict, Reason: recovery.ReasonArgsDiffer,
		Found: []report.Found{{ID: foreign.ExternalName, Weak: true, Arguments: "differ", ArgumentsDiffer: []string{"rrdatas", "ttl"}}},
	})
	cases := map[string]struct {
		reason string
		o      Observation
		want   []string
	}{
		"FoundAndRefused": {
			reason: "A foreign record a report found, by its key, refused for its arguments; a Network look-alike no report found.",
			o: Observation{
				MRs:        []MR{{Kind: KindRecord, Name: "r0", Paused: true, IntentState: string(journal.StateReported)}, {Kind: KindNetwork, Name: "n0", Ready: true, ExternalName: "net-1"}},
				LookAlikes: []CloudObject{foreign, laNet},
				Reports:    [][]byte{conflict},
			},
			want: []string{
				`look-alike Record rs-8 (zones/crash.example/records/r0/A) of r0: r0 paused (intent "reported"); report: conflict ArgumentsDiffer, arguments differ (rrdatas, ttl)`,
				`look-alike Network net-9 of n0: n0 Ready, bound to "net-1"; no report found it`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, lookAlikeFates(tc.o)); diff != "" {
				t.Errorf("lookAlikeFates(): %s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
