package report

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
)

// reportScanGoldenFile holds a report of `intentjournal scan --apply`, with
// the entry fields only scan writes: a golden file of its own, so that the
// v1alpha1 golden stays a recovery pass's report.
const reportScanGoldenFile = "report-v1alpha1-scan.golden.json"

// goldenScanReport is what scan --apply reports of a stock provider's
// crash: a RecordSet looping on "already exists" (paused), and a Network
// whose two look-alikes within the window are ambiguous (paused, neither
// adopted).
func goldenScanReport() *Report {
	r := New(Source{
		Cluster: "https://127.0.0.1:6443", ClusterUID: "3f9c6a2e-5b1d-4c7a-9e0f-1a2b3c4d5e6f",
		Owner: journal.Owner{Replica: "intentjournal-cli:ops-1", Epoch: "187a0c2b3e4f5a60-0a0b0c0d", Cluster: "3f9c6a2e-5b1d-4c7a-9e0f-1a2b3c4d5e6f"},
	}, reportT0)
	const rs = "kubectl annotate recordsets.fakecloud.intentjournal.io www"
	const net = "kubectl annotate networks.fakecloud.intentjournal.io vpc-main"
	r.Add(Entry{
		Resource: reportRef("RecordSet", "www", "6d3b0c2e-8a57-4c1b-9b0e-3f1d2a4c5b6e"),
		Sources:  []string{SourceScan},
		Found:    []Found{{ID: "rs-00c0ffee00c0ffee", Tags: map[string]string{"owner": "dns-team"}, CreatedAt: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC), NotOurs: "it carries neither this managed resource's UID tag nor its crossplane tags"}},
		Outcome:  OutcomeConflict,
		Reason:   "NotOurs",
		Message:  "1 cloud resource(s) with the natural key of RecordSet/www (6d3b0c2e-8a57-4c1b-9b0e-3f1d2a4c5b6e) exist but are not proven ours (rs-00c0ffee00c0ffee: it carries neither this managed resource's UID tag nor its crossplane tags)",
		Action:   "inspect rs-00c0ffee00c0ffee; to adopt, set the annotation crossplane.io/external-name=rs-00c0ffee00c0ffee on recordset/www and remove crossplane.io/paused; otherwise delete or rename the cloud resource and remove crossplane.io/paused; if rs-00c0ffee00c0ffee is this managed resource's, adopt it: " + rs + " crossplane.io/external-name=rs-00c0ffee00c0ffee --overwrite && " + rs + " crossplane.io/paused-",
		Scan: &Scan{
			Reasons: []string{"AlreadyExistsLoop", "CreateSucceededUnbound"},
			Evidence: []string{
				"Synced is False since 2026-11-22T02:20:07Z (ReconcileError): create failed: async create failed: failed to create the resource: [{0 recordset \"www\" already exists in zone \"example-com\"  []}]",
				"crossplane.io/external-create-succeeded is 2026-11-22T02:19:40Z, crossplane.io/external-name is absent, and Ready is False",
			},
			Actions: []ScanAction{
				{Type: ScanActionPause, Commands: []string{rs + " crossplane.io/paused=true --overwrite"}, Applied: true,
					Note: "paused by scan --apply: stops the loop on \"already exists\""},
				{Type: ScanActionAdopt, ExternalName: "rs-00c0ffee00c0ffee",
					Commands: []string{rs + " crossplane.io/external-name=rs-00c0ffee00c0ffee --overwrite", rs + " crossplane.io/paused-"},
					Note:     "holds the key but is not proven this managed resource's (it carries neither this managed resource's UID tag nor its crossplane tags): adopt it only if you know it is"},
			},
		},
	})
	tags := reportTags("Network", "vpc-main")
	r.Add(Entry{
		Resource: reportRef("Network", "vpc-main", "9b1d7c4e-2f6a-4b8e-a1c3-5d7e9f0a2b4c"),
		Sources:  []string{SourceScan},
		Found: []Found{
			{ID: "net-0a2b4c6d8e0f1a3b", Tags: tags, CreatedAt: reportT0.Add(-6 * time.Minute), Owned: true, Proof: "CrossplaneTags", Weak: true, Arguments: "match"},
			{ID: "net-5e7f9a1b3c5d7e9f", Tags: tags, CreatedAt: reportT0.Add(-5 * time.Minute), Owned: true, Proof: "CrossplaneTags", Weak: true, Arguments: "match"},
		},
		Outcome: OutcomeUnresolved,
		Reason:  "AdoptionDisabledByPolicy",
		Message: "2 cloud resources are proven Network/vpc-main (9b1d7c4e-2f6a-4b8e-a1c3-5d7e9f0a2b4c)'s create's only weakly: net-0a2b4c6d8e0f1a3b (CrossplaneTags), net-5e7f9a1b3c5d7e9f (CrossplaneTags). Ambiguous: they cannot be told apart, and scan chooses none; scan adopts only on a strong proof (IntentID, RecordedID or UIDTag), which a stock provider's create never leaves",
		Action:  "if net-0a2b4c6d8e0f1a3b is this managed resource's, adopt it: " + net + " crossplane.io/external-name=net-0a2b4c6d8e0f1a3b --overwrite && " + net + " crossplane.io/paused-; if net-5e7f9a1b3c5d7e9f is this managed resource's, adopt it: " + net + " crossplane.io/external-name=net-5e7f9a1b3c5d7e9f --overwrite && " + net + " crossplane.io/paused-",
		Scan: &Scan{
			Reasons:  []string{"CreateSucceededUnbound"},
			Evidence: []string{"crossplane.io/external-create-succeeded is 2026-11-22T02:24:51Z, crossplane.io/external-name is absent, and Ready is False"},
			Actions: []ScanAction{
				{Type: ScanActionPause, Commands: []string{net + " crossplane.io/paused=true --overwrite"}, Applied: true,
					Note: "paused by scan --apply: holds the create, which the provider would run again, until an operator has decided"},
				{Type: ScanActionAdopt, ExternalName: "net-0a2b4c6d8e0f1a3b", Commands: []string{net + " crossplane.io/external-name=net-0a2b4c6d8e0f1a3b --overwrite", net + " crossplane.io/paused-"},
					Note: "proven this create's only by CrossplaneTags, a weak proof: scan --apply adopts only on a strong proof (IntentID, RecordedID or UIDTag); adopt it yourself if you know it is this managed resource's"},
				{Type: ScanActionAdopt, ExternalName: "net-5e7f9a1b3c5d7e9f", Commands: []string{net + " crossplane.io/external-name=net-5e7f9a1b3c5d7e9f --overwrite", net + " crossplane.io/paused-"},
					Note: "proven this create's only by CrossplaneTags, a weak proof: scan --apply adopts only on a strong proof (IntentID, RecordedID or UIDTag); adopt it yourself if you know it is this managed resource's"},
			},
		},
	})
	r.Sort()
	r.SetTimings(Timings{Wall: 1830 * time.Millisecond, Discover: 120 * time.Millisecond, Lookups: 2400 * time.Millisecond, LookupCount: 2,
		Patches: 44 * time.Millisecond, PatchCount: 2})
	return r
}

func TestReportGoldenScan(t *testing.T) {
	got := encodeReport(t, goldenScanReport())
	want := golden.Read(t, reportScanGoldenFile, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Encode: the scan's report changed (-golden +got):\n%s", diff)
	}
	if err := ValidateJSON(want); err != nil {
		t.Errorf("the golden scan report does not match the schema: %v", err)
	}
	dec, err := Decode(want)
	if err != nil {
		t.Fatalf("Decode(golden scan report): %v", err)
	}
	if diff := cmp.Diff(goldenScanReport(), dec, ignoreReportMutex); diff != "" {
		t.Errorf("Decode(golden scan report) (-want +got):\n%s", diff)
	}
	if !dec.NeedsAttention() {
		t.Error("NeedsAttention(golden scan report) = false; it has a conflict and an unresolved entry")
	}
}

// TestValidateScanJSON holds the schema of the fields scan writes.
func TestValidateScanJSON(t *testing.T) {
	scanOf := func(d map[string]any) map[string]any {
		return d["entries"].([]any)[1].(map[string]any)["scan"].(map[string]any)
	}
	actionOf := func(d map[string]any, i int) map[string]any {
		return scanOf(d)["actions"].([]any)[i].(map[string]any)
	}
	cases := map[string]struct {
		reason string
		edit   func(doc map[string]any)
		valid  bool
	}{
		"Golden":              {"the golden scan report is valid", func(map[string]any) {}, true},
		"OtherReason":         {"new scan reasons may come", func(d map[string]any) { scanOf(d)["reasons"] = []any{"ProviderGone"} }, true},
		"OtherActionType":     {"new action types may come", func(d map[string]any) { actionOf(d, 0)["type"] = "annotate" }, true},
		"UnknownScanField":    {"minor versions may add fields", func(d map[string]any) { scanOf(d)["window"] = "5m" }, true},
		"NoEvidenceNoActions": {"evidence and actions are optional", func(d map[string]any) { delete(scanOf(d), "evidence"); delete(scanOf(d), "actions") }, true},
		"NoReasons":           {"a scan entry says why it was taken up", func(d map[string]any) { delete(scanOf(d), "reasons") }, false},
		"EmptyReasons":        {"at least one reason", func(d map[string]any) { scanOf(d)["reasons"] = []any{} }, false},
		"RepeatedReason":      {"reasons are a set", func(d map[string]any) { scanOf(d)["reasons"] = []any{"CreatePending", "CreatePending"} }, false},
		"ReasonNotCamelCase":  {"reasons are CamelCase", func(d map[string]any) { scanOf(d)["reasons"] = []any{"create pending"} }, false},
		"AdoptWithoutName":    {"an adopt action names what it adopts", func(d map[string]any) { delete(actionOf(d, 1), "externalName") }, false},
		"ActionNoCommands":    {"an action is its commands", func(d map[string]any) { actionOf(d, 0)["commands"] = []any{} }, false},
		"ActionNoApplied":     {"an action says whether it was carried out", func(d map[string]any) { delete(actionOf(d, 0), "applied") }, false},
		"UnknownSource":       {"sources is still an enum", func(d map[string]any) { d["entries"].([]any)[1].(map[string]any)["sources"] = []any{"inventory"} }, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(encodeReport(t, goldenScanReport()), &doc); err != nil {
				t.Fatal(err)
			}
			tc.edit(doc)
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			err = ValidateJSON(b)
			if tc.valid && err != nil {
				t.Errorf("%s\nValidateJSON: %v, want valid", tc.reason, err)
			}
			if !tc.valid && !errors.Is(err, ErrMalformed) {
				t.Errorf("%s\nValidateJSON: got %v, want errors.Is ErrMalformed", tc.reason, err)
			}
		})
	}
}

// TestSortScanSource: scan comes after the other sources.
func TestSortScanSource(t *testing.T) {
	r := New(Source{}, reportT0)
	r.Add(Entry{Resource: reportRef("Network", "n", "u"), Sources: []string{SourceScan, SourceIncompleteCreate, SourceJournal}, Outcome: OutcomeCleared, Reason: "NothingCreated"})
	r.Sort()
	if diff := cmp.Diff([]string{SourceJournal, SourceIncompleteCreate, SourceScan}, r.Entries[0].Sources); diff != "" {
		t.Errorf("sources after Sort (-want +got):\n%s", diff)
	}
}
