package demo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
)

// Synced messages as provider-gcpdns's MRs carry them: a 409 from
// terraform-provider-google through upjet's async create, and
// crossplane-runtime v2's refusal to create after an incomplete one.
const (
	msg409 = "async create failed: failed to create the resource: [{0 Error creating DNS RecordSet: googleapi: Error 409: " +
		"The resource 'entity.change.additions[rec-00001.example.com.][A]' named 'rec-00001.example.com. (A)' already exists, alreadyExists  []}]"
	msgIncomplete = "cannot determine creation result - remove the crossplane.io/external-create-pending annotation if it is safe to proceed"
)

func cond(t, status, message string) map[string]any {
	c := map[string]any{"type": t, "status": status}
	if message != "" {
		c["message"] = message
	}
	return c
}

// dnsMR returns the RecordSet MR name in dnsNamespace, its external name
// ext (none when empty), with conds as its status conditions.
func dnsMR(name, ext string, conds ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("dns.gcp.m.intentjournal.io/v1beta1")
	u.SetKind(kindRecordSet)
	u.SetNamespace(dnsNamespace)
	u.SetName(name)
	u.SetUID(k8stypes.UID("uid-" + name))
	if ext != "" {
		u.SetAnnotations(map[string]string{recovery.AnnotationExternalName: ext})
	}
	if len(conds) > 0 {
		var cs []any
		for _, c := range conds {
			cs = append(cs, c)
		}
		u.Object["status"] = map[string]any{"conditions": cs}
	}
	return u
}

func ownID(mr string) string { return recordSetID(dnsName(mr), "A") }

// TestCountDNS counts RecordSet MRs by state from their unstructured
// conditions, as the tracker and the API server hand them over.
func TestCountDNS(t *testing.T) {
	ready, synced := cond("Ready", "True", ""), cond("Synced", "True", "")
	cases := map[string]struct {
		reason string
		mrs    []*unstructured.Unstructured
		want   DNSStates
	}{
		"ReadyOnItsOwnRecordSet": {
			reason: "Ready and Synced, its external name its own record set's ID: bound.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", ownID("rec-00001"), ready, synced)},
			want:   DNSStates{Ready: 1, Bound: 1},
		},
		"ReadyOnAnotherRecordSet": {
			reason: "Ready, but bound to another MR's record set: Ready, not bound.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", ownID("rec-00002"), ready, synced)},
			want:   DNSStates{Ready: 1},
		},
		"ReadyNotSynced": {
			reason: "Ready with a Synced condition that is not True for another reason: still converging.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", ownID("rec-00001"), ready, cond("Synced", "False", "cannot observe external resource"))},
			want:   DNSStates{Converging: 1},
		},
		"Looping": {
			reason: "Synced False on terraform-provider-google's 409 alreadyExists: looping.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", "", cond("Ready", "False", ""), cond("Synced", "False", msg409))},
			want:   DNSStates{Looping: 1},
		},
		"LoopingWhileReady": {
			reason: "A 409 on Synced counts as a loop whatever Ready says, as the e2e test counts it.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", ownID("rec-00001"), ready, cond("Synced", "False", msg409))},
			want:   DNSStates{Looping: 1},
		},
		"Incomplete": {
			reason: "crossplane-runtime stopped the MR: the kill came between its pending and succeeded marks.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", "", cond("Synced", "False", msgIncomplete))},
			want:   DNSStates{Incomplete: 1},
		},
		"Creating": {
			reason: "A create in flight: Synced, not Ready.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", "", cond("Ready", "False", ""), synced)},
			want:   DNSStates{Converging: 1},
		},
		"NoConditions": {
			reason: "An MR the provider has not reconciled yet.",
			mrs:    []*unstructured.Unstructured{dnsMR("rec-00001", "")},
			want:   DNSStates{Converging: 1},
		},
		"Mixed": {
			reason: "The unwrapped run's end, small: two overwritten (Ready), one looping, one stopped.",
			mrs: []*unstructured.Unstructured{
				dnsMR("rec-00001", ownID("rec-00001"), ready, synced),
				dnsMR("rec-00002", ownID("rec-00002"), ready, synced),
				dnsMR("rec-00003", "", cond("Synced", "False", msg409)),
				dnsMR("rec-00004", "", cond("Synced", "False", msgIncomplete)),
			},
			want: DNSStates{Ready: 2, Bound: 2, Looping: 1, Incomplete: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var mrs, trimmed []managed
			for _, u := range tc.mrs {
				mrs = append(mrs, managedOf(u))
				trimmed = append(trimmed, managedOf(mustTrim(t, u)))
			}
			if diff := cmp.Diff(tc.want, countDNS(mrs)); diff != "" {
				t.Errorf("%s\ncountDNS(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, countDNS(trimmed)); diff != "" {
				t.Errorf("%s\ncountDNS() of the tracker's trimmed copies: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDNSStatesSettled(t *testing.T) {
	cases := map[string]struct {
		reason string
		s      DNSStates
		mode   Mode
		want   bool
	}{
		"UnwrappedAllKept":  {reason: "Unwrapped after a kill: Ready, looping and stopped are all states an MR keeps.", s: DNSStates{Ready: 5, Bound: 5, Looping: 26, Incomplete: 9}, mode: ModeUnwrapped, want: true},
		"UnwrappedOneLeft":  {reason: "One MR still converging: not yet.", s: DNSStates{Ready: 5, Looping: 25, Incomplete: 9, Converging: 1}, mode: ModeUnwrapped},
		"UnwrappedTooFew":   {reason: "The watch has not seen every MR.", s: DNSStates{Ready: 5, Looping: 26, Incomplete: 8}, mode: ModeUnwrapped},
		"WrappedAllReady":   {reason: "Wrapped: every MR Ready.", s: DNSStates{Ready: 40, Bound: 40}, mode: ModeWrapped, want: true},
		"WrappedOneLooping": {reason: "Wrapped, a loop is no end state: wait for it, or time out.", s: DNSStates{Ready: 39, Bound: 39, Looping: 1}, mode: ModeWrapped},
		"NoKillAllReady":    {reason: "No kill: every MR Ready.", s: DNSStates{Ready: 40, Bound: 40}, mode: ModeNoKill, want: true},
		"UnwrappedNoKill":   {reason: "The unwrapped provider with no kill must reach Ready too.", s: DNSStates{Ready: 39, Incomplete: 1}, mode: ModeUnwrappedNoKill},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.s.Settled(tc.mode, 40)); diff != "" {
				t.Errorf("%s\nSettled(%s, 40): -want, +got:\n%s", tc.reason, tc.mode, diff)
			}
		})
	}
}

// zoneWith returns the demo's zone holding the apex record sets and an A
// record set per name.
func zoneWith(names ...string) fakeclouddns.ZoneStats {
	z := fakeclouddns.ZoneStats{Project: dnsProject, Zone: dnsZone, DNSName: dnsZoneDNS,
		RRSets: []fakeclouddns.RRSet{{Name: dnsZoneDNS, Type: "NS"}, {Name: dnsZoneDNS, Type: "SOA"}}}
	for _, n := range names {
		z.RRSets = append(z.RRSets, fakeclouddns.RRSet{Name: n, Type: "A"})
	}
	z.RRSetCount = len(z.RRSets)
	return z
}

func TestInFlightAndUnboundDNS(t *testing.T) {
	mr := func(name, ext string) managed { return managedOf(dnsMR(name, ext)) }
	cases := map[string]struct {
		reason       string
		mrs          []managed
		zone         fakeclouddns.ZoneStats
		wantInFlight int
		wantUnbound  []Orphan
	}{
		"Bound": {
			reason: "Every MR names its own record set: nothing in flight, nothing unbound.",
			mrs:    []managed{mr("rec-00001", ownID("rec-00001"))},
			zone:   zoneWith("rec-00001.example.com."),
		},
		"InFlight": {
			reason:       "The record set exists, its MR names nothing: a create in flight, and an orphan owned by that MR.",
			mrs:          []managed{mr("rec-00001", "")},
			zone:         zoneWith("rec-00001.example.com."),
			wantInFlight: 1,
			wantUnbound: []Orphan{{ID: ownID("rec-00001"), Kind: kindRecordSet, Resource: journal.ResourceRef{
				APIVersion: "dns.gcp.m.intentjournal.io/v1beta1", Kind: kindRecordSet, Namespace: dnsNamespace, Name: "rec-00001", UID: "uid-rec-00001"}}},
		},
		"InFlightNamedByMRName": {
			reason:       "An external name that is the MR's own name is not the record set's ID: in flight.",
			mrs:          []managed{mr("rec-00001", "rec-00001")},
			zone:         zoneWith("rec-00001.example.com."),
			wantInFlight: 1,
			wantUnbound: []Orphan{{ID: ownID("rec-00001"), Kind: kindRecordSet, Resource: journal.ResourceRef{
				APIVersion: "dns.gcp.m.intentjournal.io/v1beta1", Kind: kindRecordSet, Namespace: dnsNamespace, Name: "rec-00001", UID: "uid-rec-00001"}}},
		},
		"NotYetCreated": {
			reason: "No record set, no external name: the create never reached the fake; nothing in flight, nothing unbound.",
			mrs:    []managed{mr("rec-00001", "")},
			zone:   zoneWith(),
		},
		"Stranger": {
			reason:      "A record set no MR's name gives is unbound and owned by nobody; the apex record sets are the zone's own.",
			mrs:         []managed{mr("rec-00001", ownID("rec-00001"))},
			zone:        zoneWith("rec-00001.example.com.", "www.example.com."),
			wantUnbound: []Orphan{{ID: recordSetID("www.example.com.", "A"), Kind: kindRecordSet}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.wantInFlight, inFlightDNS(tc.mrs, tc.zone)); diff != "" {
				t.Errorf("%s\ninFlightDNS(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantUnbound, unboundDNS(tc.mrs, tc.zone)); diff != "" {
				t.Errorf("%s\nunboundDNS(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDNSZoneOf(t *testing.T) {
	z := zoneWith("rec-00001.example.com.")
	s := fakeclouddns.Stats{Zones: map[string]fakeclouddns.ZoneStats{dnsProject + "/" + dnsZone: z, "other/zone-a": {Zone: dnsZone}}}
	if diff := cmp.Diff(z, dnsZoneOf(s)); diff != "" {
		t.Errorf("dnsZoneOf() picks the demo project's zone: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(fakeclouddns.ZoneStats{}, dnsZoneOf(fakeclouddns.Stats{})); diff != "" {
		t.Errorf("dnsZoneOf() of a fake with no zone: -want, +got:\n%s", diff)
	}
}

func TestDNSResultMeets(t *testing.T) {
	adopted := func(n int) *report.Report { return &report.Report{Summary: report.Summary{Total: n, Adopted: n}} }
	good := func() Result {
		return Result{Mode: ModeWrapped, Available: true, PerKind: 40, InFlight: 40, Converged: true, Report: adopted(40),
			DNS: &DNSResult{States: DNSStates{Ready: 40, Bound: 40}, RRSets: 42, Settled: true}}
	}
	cases := map[string]struct {
		reason string
		edit   func(*Result)
		want   bool
	}{
		"Clean": {reason: "The wrapped run as the e2e test measured it: 40 adopted, 0 overwrites, 0 loops.", edit: func(*Result) {}, want: true},
		"ClearedToo": {reason: "A create that never reached the fake is cleared, not adopted: still complete.", want: true,
			edit: func(r *Result) { r.Report.Summary.Total, r.Report.Summary.Cleared = 41, 1 }},
		"NoKillEmptyReport": {reason: "The run with no kill: nothing in flight, a report with nothing in it.", want: true,
			edit: func(r *Result) { r.Mode, r.InFlight, r.Report = ModeNoKill, 0, adopted(0) }},
		"Unavailable":    {reason: "A provider without --journal ran no wrapped run.", edit: func(r *Result) { r.Available = false }},
		"NotConverged":   {reason: "Every MR must be Ready.", edit: func(r *Result) { r.Converged = false }},
		"Overwrite":      {reason: "One record set overwritten, at any time, breaks the promise.", edit: func(r *Result) { r.DNS.OverwritesTotal = 1 }},
		"Loop":           {reason: "No MR may loop on 409.", edit: func(r *Result) { r.DNS.States.Looping = 1 }},
		"BoundElsewhere": {reason: "Every MR must be bound to its own record set.", edit: func(r *Result) { r.DNS.States.Bound = 39 }},
		"NoReport":       {reason: "The report must be written.", edit: func(r *Result) { r.Report = nil }},
		"AdoptedTooFew":  {reason: "Every create in flight must be adopted.", edit: func(r *Result) { r.Report = adopted(39) }},
		"Orphan": {reason: "An orphan entry means a record set the pass could not give to its MR.",
			edit: func(r *Result) { r.Report.Summary.Total, r.Report.Summary.Orphan = 41, 1 }},
		"OrphanPresent": {reason: "A record set bound to no MR that the report does not name.",
			edit: func(r *Result) { r.OrphansPresent = []string{ownID("rec-00001")} }},
		"OffMachine": {reason: "Nothing may leave the machine.",
			edit: func(r *Result) { r.DNS.OffMachine = []string{"https://oauth2.googleapis.com:443"} }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := good()
			tc.edit(&r)
			if diff := cmp.Diff(tc.want, r.MeetsInvariants()); diff != "" {
				t.Errorf("%s\nMeetsInvariants(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestConvergingReasons(t *testing.T) {
	long := "cannot connect: " + strings.Repeat("x", 200)
	mrs := []managed{
		managedOf(dnsMR("rec-00001", "", cond("Synced", "False", "cannot observe: dial tcp 127.0.0.1:1: connect: connection refused"))),
		managedOf(dnsMR("rec-00002", "", cond("Synced", "False", "cannot observe: dial tcp 127.0.0.1:1: connect: connection refused"))),
		managedOf(dnsMR("rec-00003", "", cond("Synced", "False", long))),
		managedOf(dnsMR("rec-00004", "")),
		managedOf(dnsMR("rec-00005", "", cond("Synced", "False", msg409))),
		managedOf(dnsMR("rec-00006", ownID("rec-00006"), cond("Ready", "True", ""), cond("Synced", "True", ""))),
	}
	cases := map[string]struct {
		reason string
		limit  int
		want   []Reason
	}{
		"All": {reason: "The converging MRs' messages, most frequent first, then by message; loops and Ready MRs are not converging.", limit: 5, want: []Reason{
			{Message: "cannot observe: dial tcp 127.0.0.1:1: connect: connection refused", Count: 2},
			{Message: "(no Synced message)", Count: 1},
			{Message: long[:maxReasonLen] + "...", Count: 1},
		}},
		"Limit": {reason: "At most limit of them.", limit: 1, want: []Reason{
			{Message: "cannot observe: dial tcp 127.0.0.1:1: connect: connection refused", Count: 2},
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, convergingReasons(mrs, tc.limit)); diff != "" {
				t.Errorf("%s\nconvergingReasons(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
