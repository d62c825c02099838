package recovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
)

// reportGoldenFile is the v1alpha1 report every reader must keep decoding.
const reportGoldenFile = "report-v1alpha1.golden.json"

// reportT0 is the fixed instant the golden report was generated at.
var reportT0 = time.Date(2026, 11, 22, 2, 31, 7, 0, time.UTC)

// ignoreReportMutex lets cmp compare reports.
var ignoreReportMutex = cmpopts.IgnoreUnexported(Report{})

// reportRef returns the reference of a fakecloud managed resource.
func reportRef(kind, name, uid string) journal.ResourceRef {
	return journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: kind, Name: name, UID: uid}
}

// reportTags returns the Crossplane external tags of a managed resource.
func reportTags(kind, name string) map[string]string {
	return map[string]string{
		"crossplane-kind":           strings.ToLower(kind) + ".fakecloud.intentjournal.io",
		"crossplane-name":           name,
		"crossplane-providerconfig": "default",
	}
}

// goldenReportEntries are the entries of the golden report, one or more for
// every outcome, in the order Sort gives them.
func goldenReportEntries() []Entry {
	vpc := reportRef("Network", "vpc-main", "9b1d7c4e-2f6a-4b8e-a1c3-5d7e9f0a2b4c")
	vpcTags := reportTags("Network", "vpc-main")
	vpcTags["intentjournal-intent-id"] = "7c0a9e1f3b5d4c2a8e6f0b1d3c5a7e9f"
	const vpcIntent = "7c0a9e1f3b5d4c2a8e6f0b1d3c5a7e9f"
	return []Entry{
		{
			IntentID: "3e5f7a9b1c2d4e6f8a0b2c4d6e8f0a1b",
			Resource: reportRef("Network", "db-net", "4f6a8c0e-1b3d-4e5f-9a7b-c2d4e6f8a0b1"),
			Sources:  []string{SourceJournal},
			Found: []Found{{
				ID: "net-1f3e5d7c9b0a2e4d", Tags: reportTags("Network", "db-net"),
				CreatedAt: reportT0.Add(-9 * time.Minute), Owned: true,
			}},
			Outcome: OutcomeOrphan,
			Reason:  "ManagedResourceDeleted",
			Message: "Network/db-net (4f6a8c0e-1b3d-4e5f-9a7b-c2d4e6f8a0b1) was deleted while its create was in flight; 1 cloud resource(s) it created remain",
			Action:  "delete the cloud resource(s) net-1f3e5d7c9b0a2e4d, or recreate the managed resource with crossplane.io/external-name set to adopt one",
		},
		{
			IntentID:     vpcIntent,
			Resource:     vpc,
			Sources:      []string{SourceJournal, SourceAnnotation},
			ExternalName: "net-0a2b4c6d8e0f1a3b",
			Found: []Found{
				{ID: "net-0a2b4c6d8e0f1a3b", Tags: vpcTags, CreatedAt: reportT0.Add(-6 * time.Minute), Owned: true, Adopted: true},
				{ID: "net-5e7f9a1b3c5d7e9f", Tags: vpcTags, CreatedAt: reportT0.Add(-2 * time.Minute), Owned: true},
			},
			Outcome: OutcomeAdopted,
			Reason:  "Adopted",
			Message: "adopted cloud resource net-0a2b4c6d8e0f1a3b (IntentID); 1 later duplicate(s) net-5e7f9a1b3c5d7e9f are orphans",
		},
		{
			IntentID: vpcIntent,
			Resource: vpc,
			Sources:  []string{SourceJournal, SourceAnnotation},
			Found: []Found{
				{ID: "net-5e7f9a1b3c5d7e9f", Tags: vpcTags, CreatedAt: reportT0.Add(-2 * time.Minute), Owned: true},
			},
			Outcome: OutcomeOrphan,
			Reason:  "DuplicateOfAdopted",
			Message: "net-5e7f9a1b3c5d7e9f is a later duplicate of net-0a2b4c6d8e0f1a3b, which Network/vpc-main (9b1d7c4e-2f6a-4b8e-a1c3-5d7e9f0a2b4c) adopted",
			Action:  "delete the cloud resource net-5e7f9a1b3c5d7e9f (or rerun intentjournal recover with --delete-orphans)",
		},
		{
			IntentID:     "",
			Resource:     reportRef("RecordSet", "api", "0c2e4a6b-8d0f-4b1a-93c5-e7f9a1b3c5d7"),
			Sources:      []string{SourceIncompleteCreate},
			ExternalName: "rs-6b8d0f2a4c6e8a0c",
			Found: []Found{{
				ID: "rs-6b8d0f2a4c6e8a0c", Tags: reportTags("RecordSet", "api"),
				CreatedAt: reportT0.Add(-4 * time.Minute), Owned: true, Adopted: true,
			}},
			Outcome: OutcomeAdopted,
			Reason:  "Adopted",
			Message: "adopted cloud resource rs-6b8d0f2a4c6e8a0c (CrossplaneTags)",
		},
		{
			IntentID: "a1b2c3d4e5f60718293a4b5c6d7e8f90",
			Resource: reportRef("RecordSet", "mail", "5a7c9e1b-3d5f-4a7b-8c9d-0e1f2a3b4c5d"),
			Sources:  []string{SourceJournal},
			Found:    []Found{},
			Outcome:  OutcomeCleared,
			Reason:   "NothingCreated",
			Message:  "no cloud resource of RecordSet/mail (5a7c9e1b-3d5f-4a7b-8c9d-0e1f2a3b4c5d) exists; its create may run again",
		},
		{
			IntentID: "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
			Resource: reportRef("RecordSet", "metrics", "8e0a2c4e-6f8a-4c1e-b3d5-f7a9c1e3b5d7"),
			Sources:  []string{SourceJournal, SourceAnnotation},
			Found:    []Found{},
			Outcome:  OutcomeUnresolved,
			Reason:   "LookupFailed",
			Message:  `cannot look up the cloud resources of RecordSet/metrics (8e0a2c4e-6f8a-4c1e-b3d5-f7a9c1e3b5d7): GET /v1/recordsets?name=metrics&zone=example-com: 503 Service Unavailable`,
			Action:   "check the provider's connectivity and permissions, then rerun: intentjournal recover",
		},
		{
			IntentID: "6d3b0c2e8a574c1b9b0e3f1d2a4c5b6e",
			Resource: reportRef("RecordSet", "www", "6d3b0c2e-8a57-4c1b-9b0e-3f1d2a4c5b6e"),
			Sources:  []string{SourceJournal, SourceAnnotation, SourceIncompleteCreate},
			Found: []Found{{
				ID: "rs-00c0ffee00c0ffee",
				Tags: map[string]string{
					"crossplane-kind":           "recordset.fakecloud.intentjournal.io",
					"crossplane-name":           "www",
					"crossplane-providerconfig": "staging",
				},
				CreatedAt: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
			}},
			Outcome: OutcomeConflict,
			Reason:  "NotOurs",
			Message: "1 cloud resource(s) with the natural key of RecordSet/www (6d3b0c2e-8a57-4c1b-9b0e-3f1d2a4c5b6e) exist but are not proven ours (no matching crossplane tags or intent ID)",
			Action:  "inspect rs-00c0ffee00c0ffee; to adopt, set the annotation crossplane.io/external-name=rs-00c0ffee00c0ffee on recordset/www and remove crossplane.io/paused; otherwise delete or rename the cloud resource and remove crossplane.io/paused",
		},
	}
}

// goldenReport is the report the golden file encodes: every outcome, a
// RecordSet conflict, and a Network whose create ran twice (one copy
// adopted, the other an orphan).
func goldenReport() *Report {
	r := NewReport(Source{
		Cluster: "https://127.0.0.1:6443",
		Journal: "/var/lib/provider-fakecloud/intents.db",
		Owner:   journal.Owner{Replica: "provider-fakecloud-7d9f8b6c5-x2kq4", Epoch: "187a0c2b3e4f5a60-0a0b0c0d"},
		Notes:   []string{"RecordSet/metrics: the fake cloud answered 503 three times; the intent is kept for the next pass"},
	}, reportT0)
	for _, e := range goldenReportEntries() {
		r.Add(e)
	}
	r.Sort()
	return r
}

// encodeReport returns r's encoding.
func encodeReport(t testing.TB, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Encode(&buf); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

func TestReportGolden(t *testing.T) {
	got := encodeReport(t, goldenReport())
	want := golden.Read(t, reportGoldenFile, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Encode: the v1alpha1 report changed (-golden +got); a change that is not additive needs a new apiVersion:\n%s", diff)
	}
	if err := ValidateReportJSON(want); err != nil {
		t.Errorf("the golden report does not match the schema: %v", err)
	}
	dec, err := DecodeReport(want)
	if err != nil {
		t.Fatalf("DecodeReport(golden): %v", err)
	}
	if diff := cmp.Diff(goldenReport(), dec, ignoreReportMutex); diff != "" {
		t.Errorf("DecodeReport(golden) (-want +got):\n%s", diff)
	}
	wantSummary := Summary{Total: 7, Cleared: 1, Adopted: 2, Conflict: 1, Orphan: 2, Unresolved: 1}
	if diff := cmp.Diff(wantSummary, dec.Summary); diff != "" {
		t.Errorf("golden summary (-want +got):\n%s", diff)
	}
	if !dec.NeedsAttention() {
		t.Error("NeedsAttention(golden) = false; the golden report has a conflict, orphans and an unresolved entry")
	}
}

func TestReportRoundTrip(t *testing.T) {
	cases := map[string]struct {
		reason string
		report func() *Report
	}{
		"Golden": {"every outcome", goldenReport},
		"Empty": {"a pass with nothing to resolve still writes entries: []", func() *Report {
			return NewReport(Source{Owner: journal.Owner{Replica: "r"}, DryRun: true}, reportT0)
		}},
		"AnnotationOnly": {"no journal path, notes about the fallback", func() *Report {
			r := NewReport(Source{Cluster: "kind-crossplane", Notes: []string{"journal locked by provider-fakecloud-0: fell back to annotations"}}, reportT0)
			r.Add(Entry{Resource: reportRef("Network", "n", "u"), Sources: []string{SourceAnnotation}, Outcome: OutcomeCleared, Reason: "NothingCreated"})
			return r
		}},
		"LocalTime": {"a non-UTC clock is kept in UTC", func() *Report {
			return NewReport(Source{}, reportT0.In(time.FixedZone("CET", 3600)))
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			first := encodeReport(t, tc.report())
			if err := ValidateReportJSON(first); err != nil {
				t.Errorf("%s\nValidateReportJSON(Encode(r)): %v", tc.reason, err)
			}
			dec, err := DecodeReport(first)
			if err != nil {
				t.Fatalf("%s\nDecodeReport(Encode(r)): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.report(), dec, ignoreReportMutex); diff != "" {
				t.Errorf("%s\nDecodeReport(Encode(r)) (-want +got):\n%s", tc.reason, diff)
			}
			if second := encodeReport(t, dec); !bytes.Equal(first, second) {
				t.Errorf("%s\nEncode(DecodeReport(b)) != b:\n%s", tc.reason, cmp.Diff(string(first), string(second)))
			}
		})
	}
}

func TestReportSchemaPublished(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("..", "docs", "report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(ReportJSONSchema()), string(docs)); diff != "" {
		t.Errorf("docs/report.schema.json differs from the embedded recovery/schema/report.schema.json; copy it: cp recovery/schema/report.schema.json docs/ (-embedded +docs):\n%s", diff)
	}
	var s struct {
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(docs, &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.ID != ReportSchemaID {
		t.Errorf("schema $schema %q, $id %q; want draft 2020-12 and %q", s.Schema, s.ID, ReportSchemaID)
	}
	if _, err := compiledReportSchema(); err != nil {
		t.Errorf("the embedded schema does not compile: %v", err)
	}
}

// mutateGolden returns the golden report as generic JSON after edit.
func mutateGolden(t *testing.T, edit func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(encodeReport(t, goldenReport()), &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// entryOf returns entry i of a generic report document.
func entryOf(doc map[string]any, i int) map[string]any {
	return doc["entries"].([]any)[i].(map[string]any)
}

// entryWith returns the first entry of a generic report document with the
// given outcome, or a detached map (the edit then changes nothing and the
// case fails) when there is none.
func entryWith(doc map[string]any, o Outcome) map[string]any {
	for _, e := range doc["entries"].([]any) {
		if m := e.(map[string]any); m["outcome"] == string(o) {
			return m
		}
	}
	return map[string]any{}
}

func TestValidateReportJSON(t *testing.T) {
	cases := map[string]struct {
		reason string
		edit   func(doc map[string]any)
		valid  bool
	}{
		"Golden":            {"the golden report is valid", func(map[string]any) {}, true},
		"UnknownTopLevel":   {"minor versions may add fields", func(d map[string]any) { d["recoveryDuration"] = "3.2s" }, true},
		"UnknownEntryField": {"minor versions may add entry fields", func(d map[string]any) { entryOf(d, 0)["cloudRegion"] = "eu-west-1" }, true},
		"NoNotes":           {"notes are optional", func(d map[string]any) { delete(d["source"].(map[string]any), "notes") }, true},
		"MissingAPIVersion": {"apiVersion is required", func(d map[string]any) { delete(d, "apiVersion") }, false},
		"OtherAPIVersion":   {"the schema describes v1alpha1 only", func(d map[string]any) { d["apiVersion"] = "intentjournal.io/v1" }, false},
		"OtherKind":         {"the kind is fixed", func(d map[string]any) { d["kind"] = "IntentList" }, false},
		"MissingEntries":    {"entries is required, even when empty", func(d map[string]any) { delete(d, "entries") }, false},
		"NullEntries":       {"entries is an array, never null", func(d map[string]any) { d["entries"] = nil }, false},
		"UnknownOutcome":    {"outcome is an enum", func(d map[string]any) { entryOf(d, 0)["outcome"] = "deleted" }, false},
		"UnknownSource":     {"sources is an enum", func(d map[string]any) { entryOf(d, 0)["sources"] = []any{"etcd"} }, false},
		"NoSources":         {"an entry comes from somewhere", func(d map[string]any) { entryOf(d, 0)["sources"] = []any{} }, false},
		"DuplicateSource":   {"sources is a set", func(d map[string]any) { entryOf(d, 0)["sources"] = []any{"journal", "journal"} }, false},
		"SummaryString":     {"counts are integers", func(d map[string]any) { d["summary"].(map[string]any)["total"] = "7" }, false},
		"SummaryNegative":   {"counts are not negative", func(d map[string]any) { d["summary"].(map[string]any)["orphan"] = -1 }, false},
		"SummaryFraction":   {"counts are whole", func(d map[string]any) { d["summary"].(map[string]any)["orphan"] = 1.5 }, false},
		"SummaryMissing":    {"every count is required", func(d map[string]any) { delete(d["summary"].(map[string]any), "unresolved") }, false},
		"DryRunString":      {"dryRun is a boolean", func(d map[string]any) { d["source"].(map[string]any)["dryRun"] = "false" }, false},
		"NoOwner":           {"the owner is required", func(d map[string]any) { delete(d["source"].(map[string]any), "owner") }, false},
		"BadGeneratedAt":    {"generatedAt is an RFC 3339 date-time", func(d map[string]any) { d["generatedAt"] = "22/11/2026 02:31" }, false},
		"BadFoundCreatedAt": {"found createdAt is an RFC 3339 date-time", func(d map[string]any) { entryOf(d, 0)["found"].([]any)[0].(map[string]any)["createdAt"] = "yesterday" }, false},
		"FoundWithoutID":    {"a found resource has an ID", func(d map[string]any) { delete(entryOf(d, 0)["found"].([]any)[0].(map[string]any), "id") }, false},
		"FoundTagNotString": {"tag values are strings", func(d map[string]any) {
			entryOf(d, 0)["found"].([]any)[0].(map[string]any)["tags"] = map[string]any{"n": 1}
		}, false},
		"BadIntentID":        {"intent IDs are 32 lower-case hex digits", func(d map[string]any) { entryOf(d, 0)["intentId"] = "7C0A" }, false},
		"NoReason":           {"every entry has a reason", func(d map[string]any) { delete(entryOf(d, 0), "reason") }, false},
		"ReasonNotCamelCase": {"reasons are CamelCase", func(d map[string]any) { entryOf(d, 0)["reason"] = "lookup failed" }, false},
		"ResourceWithoutUID": {"a resource has a UID", func(d map[string]any) { delete(entryOf(d, 0)["resource"].(map[string]any), "uid") }, false},
		"AdoptedWithoutName": {"an adopted entry names what it adopted", func(d map[string]any) { delete(entryWith(d, OutcomeAdopted), "externalName") }, false},
		"EntryNotObject":     {"entries are objects", func(d map[string]any) { d["entries"] = []any{"adopted"} }, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := mutateGolden(t, tc.edit)
			err := ValidateReportJSON(b)
			if tc.valid && err != nil {
				t.Errorf("%s\nValidateReportJSON: %v, want valid", tc.reason, err)
			}
			if !tc.valid && !errors.Is(err, ErrMalformedReport) {
				t.Errorf("%s\nValidateReportJSON: got %v, want errors.Is ErrMalformedReport", tc.reason, err)
			}
		})
	}
	for name, b := range map[string]string{"NotJSON": "apiVersion: v1alpha1", "Truncated": `{"apiVersion":`, "Empty": ""} {
		if err := ValidateReportJSON([]byte(b)); !errors.Is(err, ErrMalformedReport) {
			t.Errorf("%s: ValidateReportJSON(%q) = %v, want errors.Is ErrMalformedReport", name, b, err)
		}
	}
}

func TestDecodeReportErrors(t *testing.T) {
	good := string(encodeReport(t, goldenReport()))
	cases := map[string]struct {
		reason string
		doc    string
		want   error
	}{
		"Empty":             {"no bytes", "", ErrMalformedReport},
		"Garbage":           {"not JSON", "\x00\xffPK\x03\x04", ErrMalformedReport},
		"Null":              {"JSON null is not a report", "null", ErrMalformedReport},
		"Array":             {"JSON of the wrong shape", "[1,2,3]", ErrMalformedReport},
		"Truncated":         {"a report cut short, as by a full disk", good[:len(good)/2], ErrMalformedReport},
		"TrailingGarbage":   {"two documents concatenated", good + good, ErrMalformedReport},
		"MissingAPIVersion": {"an object that is not a report", `{"kind":"OrphanReport","entries":[]}`, ErrMalformedReport},
		"APIVersionNumber":  {"apiVersion of the wrong type", `{"apiVersion":1,"kind":"OrphanReport"}`, ErrMalformedReport},
		"OtherAPIVersion":   {"a newer major version is refused, never guessed at", strings.Replace(good, ReportAPIVersion, "intentjournal.io/v1", 1), ErrUnsupportedReport},
		"OtherAPIVersionNewShape": {"a newer major version whose fields changed type is unsupported, not malformed",
			`{"apiVersion":"intentjournal.io/v2","kind":"OrphanReport","entries":{"by-uid":{}},"summary":[]}`, ErrUnsupportedReport},
		"OtherKind":           {"another kind of the same group", strings.Replace(good, `"kind": "OrphanReport"`, `"kind": "IntentList"`, 1), ErrUnsupportedReport},
		"InconsistentTotal":   {"the total must count the entries", strings.Replace(good, `"total": 7`, `"total": 6`, 1), ErrMalformedReport},
		"InconsistentOrphans": {"an outcome count must match", strings.Replace(good, `"orphan": 2`, `"orphan": 0`, 1), ErrMalformedReport},
		"UnknownOutcome":      {"an outcome this build does not know", strings.Replace(good, `"outcome": "cleared"`, `"outcome": "deleted"`, 1), ErrMalformedReport},
		"WrongType":           {"a field of the wrong type", strings.Replace(good, `"dryRun": false`, `"dryRun": "no"`, 1), ErrMalformedReport},
		"NullEntry":           {"an entry that is null", `{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","generatedAt":"2026-11-22T02:31:07Z","source":{"owner":{},"dryRun":false},"summary":{"total":1,"cleared":1,"adopted":0,"conflict":0,"orphan":0,"unresolved":0},"entries":[null]}`, ErrMalformedReport},
		"BadTime":             {"a time that is not RFC 3339", strings.Replace(good, `"generatedAt": "2026-11-22T02:31:07Z"`, `"generatedAt": "now"`, 1), ErrMalformedReport},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.doc == good {
				t.Fatalf("%s: the edit did not apply; the golden report changed shape", name)
			}
			r, err := DecodeReport([]byte(tc.doc))
			if !errors.Is(err, tc.want) {
				t.Errorf("%s\nDecodeReport(%.60q): got %v, want errors.Is %v", tc.reason, tc.doc, err, tc.want)
			}
			if r != nil {
				t.Errorf("%s\nDecodeReport returned a report with an error", tc.reason)
			}
		})
	}
}

func TestDecodeReportTolerant(t *testing.T) {
	b := mutateGolden(t, func(d map[string]any) {
		d["recoveryDuration"] = "3.2s"
		d["source"].(map[string]any)["leaderLease"] = map[string]any{"holder": "x"}
		entryOf(d, 0)["cloudRegion"] = "eu-west-1"
		entryOf(d, 0)["found"].([]any)[0].(map[string]any)["etag"] = 7
	})
	got, err := DecodeReport(b)
	if err != nil {
		t.Fatalf("DecodeReport with unknown fields: %v", err)
	}
	if diff := cmp.Diff(goldenReport(), got, ignoreReportMutex); diff != "" {
		t.Errorf("unknown fields must be ignored (-want +got):\n%s", diff)
	}
	// Lists left out by a lenient writer decode as empty, so the report
	// re-encodes with the arrays the schema requires.
	got, err = DecodeReport([]byte(`{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","summary":{"total":1,"cleared":1},
		"entries":[{"resource":{"kind":"Network","name":"n","uid":"u"},"sources":["journal"],"outcome":"cleared","reason":"NothingCreated"}]}`))
	if err != nil {
		t.Fatalf("DecodeReport of a minimal report: %v", err)
	}
	if got.Entries[0].Found == nil {
		t.Error("DecodeReport left Found nil; want an empty list")
	}
}

func TestDecodeReportSizeBound(t *testing.T) {
	good := encodeReport(t, goldenReport())
	if _, err := decodeReport(good, len(good)); err != nil {
		t.Errorf("decodeReport at exactly the bound: %v", err)
	}
	if _, err := decodeReport(good, len(good)-1); !errors.Is(err, ErrMalformedReport) {
		t.Errorf("decodeReport one byte over the bound: got %v, want errors.Is ErrMalformedReport", err)
	}
	if MaxReportSize != 512<<20 {
		t.Errorf("MaxReportSize = %d, want 512 MiB", MaxReportSize)
	}
}

func TestReportEncodeRefusesWhatDecodeRefuses(t *testing.T) {
	cases := map[string]struct {
		reason string
		report func() *Report
		want   error
	}{
		"UnknownOutcome": {"an outcome nothing can decode", func() *Report {
			r := goldenReport()
			r.Add(Entry{Resource: reportRef("Network", "n", "u"), Sources: []string{SourceJournal}, Outcome: "teleported", Reason: "Beamed"})
			return r
		}, ErrMalformedReport},
		"StaleSummary": {"entries appended without Add", func() *Report {
			r := goldenReport()
			r.Entries = r.Entries[1:]
			return r
		}, ErrMalformedReport},
		"NoIdentity": {"a report not made by NewReport", func() *Report { return &Report{} }, ErrUnsupportedReport},
		"Nil":        {"a nil report", func() *Report { return nil }, ErrMalformedReport},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tc.report().Encode(&buf)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s\nEncode: got %v, want errors.Is %v", tc.reason, err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("%s\nEncode wrote %d bytes before failing", tc.reason, buf.Len())
			}
		})
	}
}

func TestReportNeedsAttention(t *testing.T) {
	cases := map[string]struct {
		reason   string
		outcomes []Outcome
		want     bool
	}{
		"Empty":      {"nothing to do", nil, false},
		"Settled":    {"cleared and adopted need no one", []Outcome{OutcomeCleared, OutcomeAdopted, OutcomeAdopted}, false},
		"Conflict":   {"a foreign resource holds the natural key", []Outcome{OutcomeAdopted, OutcomeConflict}, true},
		"Orphan":     {"a cloud resource with no managed resource", []Outcome{OutcomeCleared, OutcomeOrphan}, true},
		"Unresolved": {"the lookup failed", []Outcome{OutcomeUnresolved}, true},
		"Unknown":    {"an outcome this build does not know fails closed", []Outcome{OutcomeAdopted, "teleported"}, true},
		"LookAlike":  {"a cleared entry that met a look-alike: someone else makes resources with our names", []Outcome{OutcomeAdopted, "cleared+look-alike"}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := NewReport(Source{}, reportT0)
			for _, o := range tc.outcomes {
				e := Entry{Outcome: o}
				if o == "cleared+look-alike" {
					e = Entry{Outcome: OutcomeCleared, Found: []Found{{ID: "net-theirs", LookAlike: true}}}
				}
				r.Add(e)
			}
			if got := r.NeedsAttention(); got != tc.want {
				t.Errorf("%s\nNeedsAttention() = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

func TestReportSort(t *testing.T) {
	want := goldenReportEntries()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		shuffled := goldenReportEntries()
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		for j := range shuffled {
			e := &shuffled[j]
			rng.Shuffle(len(e.Sources), func(a, b int) { e.Sources[a], e.Sources[b] = e.Sources[b], e.Sources[a] })
			rng.Shuffle(len(e.Found), func(a, b int) { e.Found[a], e.Found[b] = e.Found[b], e.Found[a] })
		}
		r := NewReport(Source{}, reportT0)
		for _, e := range shuffled {
			r.Add(e)
		}
		r.Sort()
		got := make([]Entry, 0, len(r.Entries))
		for _, e := range r.Entries {
			got = append(got, *e)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("shuffle %d: Sort does not give one order whatever the order of Add (-want +got):\n%s", i, diff)
		}
	}
}

func TestReportAddConcurrent(t *testing.T) {
	const workers, perWorker = 8, 500
	r := NewReport(Source{}, reportT0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r.AddNote(fmt.Sprintf("worker %d started", w))
			for i := range perWorker {
				o := Outcomes[i%len(Outcomes)]
				name := ""
				if o == OutcomeAdopted {
					name = fmt.Sprintf("rs-%016x", w*perWorker+i)
				}
				r.Add(Entry{
					IntentID:     fmt.Sprintf("%032x", w*perWorker+i),
					Resource:     reportRef("RecordSet", fmt.Sprintf("rs-%d-%d", w, i), fmt.Sprintf("uid-%d-%d", w, i)),
					Sources:      []string{SourceJournal},
					ExternalName: name,
					Outcome:      o,
					Reason:       "Concurrent",
				})
			}
		})
	}
	// Readers run while workers add: the CLI prints progress from the
	// report as the pass goes on.
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = r.NeedsAttention()
			if err := r.Encode(discard{}); err != nil {
				t.Errorf("Encode during Add: %v", err)
				return
			}
		}
	})
	wg.Wait()
	close(stop)
	readers.Wait()
	r.Sort()

	per := workers * perWorker / len(Outcomes)
	want := Summary{Total: workers * perWorker, Cleared: per, Adopted: per, Conflict: per, Orphan: per, Unresolved: per}
	if diff := cmp.Diff(want, r.Summary); diff != "" {
		t.Errorf("Summary after concurrent Add (-want +got):\n%s", diff)
	}
	if len(r.Source.Notes) != workers {
		t.Errorf("%d notes after concurrent AddNote, want %d", len(r.Source.Notes), workers)
	}
	if len(r.Entries) != workers*perWorker {
		t.Errorf("%d entries after concurrent Add, want %d", len(r.Entries), workers*perWorker)
	}
	b := encodeReport(t, r)
	if _, err := DecodeReport(b); err != nil {
		t.Errorf("DecodeReport after concurrent Add: %v", err)
	}
	if err := ValidateReportJSON(b); err != nil {
		t.Errorf("ValidateReportJSON after concurrent Add: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// withUmask runs fn with the process umask set to mask. The umask is
// process-wide, so callers must not run in parallel.
func withUmask(mask int, fn func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

func TestWriteReportFileMode(t *testing.T) {
	for _, mask := range []int{0o000, 0o022, 0o077} {
		t.Run(fmt.Sprintf("umask%04o", mask), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.json")
			var err error
			withUmask(mask, func() { err = WriteReportFile(path, goldenReport()) })
			if err != nil {
				t.Fatalf("WriteReportFile: %v", err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode(); got != 0o600 {
				t.Errorf("under umask %04o the report has mode %v, want -rw------- (0600)", mask, got)
			}
			got, err := ReadReportFile(path)
			if err != nil {
				t.Fatalf("ReadReportFile: %v", err)
			}
			if diff := cmp.Diff(goldenReport(), got, ignoreReportMutex); diff != "" {
				t.Errorf("ReadReportFile(WriteReportFile(r)) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"report.json"}, dirNames(t, dir)); diff != "" {
				t.Errorf("WriteReportFile left temporary files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteReportFileAtomic(t *testing.T) {
	old := []byte("the previous report\n")
	bad := goldenReport()
	bad.Add(Entry{Outcome: "teleported"})

	cases := map[string]struct {
		reason string
		// setup prepares dir and returns the path to write.
		setup func(t *testing.T, dir string) string
		r     *Report
		// wantErr is true when WriteReportFile must fail.
		wantErr bool
		// want is the content at path afterwards; nil means the golden
		// report.
		want []byte
		// names are the directory entries afterwards.
		names []string
	}{
		"New": {"a fresh file", func(t *testing.T, dir string) string { return filepath.Join(dir, "r.json") },
			goldenReport(), false, nil, []string{"r.json"}},
		"Replace": {"an existing report is replaced whole", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.json")
			if err := os.WriteFile(p, old, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, goldenReport(), false, nil, []string{"r.json"}},
		"EncodeFails": {"a report that cannot be encoded leaves the previous one intact", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.json")
			if err := os.WriteFile(p, old, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, bad, true, old, []string{"r.json"}},
		"RenameFails": {"the path is a non-empty directory: nothing is left behind", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.json")
			if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, goldenReport(), true, nil, []string{"r.json"}},
		"NoDir": {"a missing directory fails cleanly", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "r.json")
		}, goldenReport(), true, nil, []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			err := WriteReportFile(path, tc.r)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nWriteReportFile: %v, want error %v", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.names, dirNames(t, dir)); diff != "" {
				t.Errorf("%s\ndirectory after WriteReportFile (-want +got):\n%s", tc.reason, diff)
			}
			if fi, err := os.Stat(path); err != nil || fi.IsDir() {
				return
			}
			want := tc.want
			if want == nil {
				want = encodeReport(t, goldenReport())
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s\ncontent at path (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestWriteReportFileReadOnlyDir writes into a directory the writer may not
// write to. Root bypasses directory permissions, so as root the write runs
// on a locked OS thread whose filesystem uid is nobody's: the kernel then
// drops CAP_DAC_OVERRIDE for that thread, and the thread exits with the
// goroutine, never serving other code.
func TestWriteReportFileReadOnlyDir(t *testing.T) {
	dir := t.TempDir()
	// t.TempDir's parent is private to root; nobody must be able to reach
	// dir for the test to be about dir's own permissions.
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	prev := filepath.Join(ro, "r.json")
	if err := os.WriteFile(prev, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(ro, 0o755) })

	for _, path := range []string{filepath.Join(ro, "new.json"), prev} {
		errc := make(chan error, 1)
		go func() {
			if os.Geteuid() == 0 {
				runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
				const nobody = 65534
				if err := syscall.Setfsuid(nobody); err != nil {
					errc <- fmt.Errorf("setfsuid: %w", err)
					return
				}
			}
			errc <- WriteReportFile(path, goldenReport())
		}()
		err := <-errc
		if err == nil {
			t.Errorf("WriteReportFile(%s) in a read-only directory succeeded", path)
		} else if !errors.Is(err, os.ErrPermission) {
			t.Errorf("WriteReportFile(%s) in a read-only directory: got %v, want a permission error", path, err)
		}
	}
	if diff := cmp.Diff([]string{"r.json"}, dirNames(t, ro)); diff != "" {
		t.Errorf("a failed write left files behind (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(prev); err != nil || string(b) != "previous\n" {
		t.Errorf("the previous report changed: %q, %v", b, err)
	}
}

// reportCrashChildEnv makes the test binary a child that rewrites a report
// file until it is killed; its value is the report path.
const reportCrashChildEnv = "RECOVERY_REPORT_CRASH_CHILD"

// TestWriteReportFileCrashChild is the child of TestWriteReportFileSIGKILL.
// Run by go test, without the environment variable, it does nothing.
func TestWriteReportFileCrashChild(t *testing.T) {
	path := os.Getenv(reportCrashChildEnv)
	if path == "" {
		return
	}
	// Alternate a large and a small report so a kill lands mid-write of
	// either, and a torn file would be visible as a prefix of one.
	reports := []*Report{syntheticReport(2000), goldenReport()}
	for i := 0; ; i++ {
		if err := WriteReportFile(path, reports[i%2]); err != nil {
			t.Fatalf("child: WriteReportFile: %v", err)
		}
	}
}

// TestWriteReportFileSIGKILL kills a process that rewrites a report in a
// loop at random moments, and checks that the path always holds a complete
// report: the old one or the new one, never a torn one. A killed write may
// leave its temporary file; it is never at the report's path.
func TestWriteReportFileSIGKILL(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	want := map[int]bool{2000: true, len(goldenReportEntries()): true}
	rng := rand.New(rand.NewPCG(3, 4))
	// Kill at least 8 times, and until three kills landed mid-write (each
	// leaves its temporary file), at most 60 times: a kill between two
	// writes proves nothing about a torn write.
	const wantMid, maxKills = 3, 60
	mid, i := 0, 0
	for ; (i < 8 || mid < wantMid) && i < maxKills; i++ {
		left := len(dirNames(t, dir))
		var lastWrite time.Time
		if fi, err := os.Stat(path); err == nil {
			lastWrite = fi.ModTime()
		}
		cmd := exec.Command(exe, "-test.run=^TestWriteReportFileCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), reportCrashChildEnv+"="+path)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it complete at least one write of its own (the path's
		// modification time moves), then kill it at a random point of a
		// later one: it writes without pause, so that point is mid-write.
		wrote := func() bool {
			fi, err := os.Stat(path)
			return err == nil && fi.ModTime().After(lastWrite)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !wrote() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("kill %d: the child ended with %v before it was killed:\n%s", i, err, stderr.Bytes())
		}
		r, err := ReadReportFile(path)
		if err != nil {
			t.Fatalf("kill %d: the report at the path is not complete: %v", i, err)
		}
		if !want[len(r.Entries)] {
			t.Fatalf("kill %d: the report at the path has %d entries, want one of the written reports", i, len(r.Entries))
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode() != 0o600 {
			t.Fatalf("kill %d: the report's mode is %v (%v), want 0600", i, fi.Mode(), err)
		}
		names := dirNames(t, dir)
		for _, name := range names {
			if name != "report.json" && !strings.HasPrefix(name, ".report.json.tmp-") {
				t.Errorf("kill %d: unexpected file %s", i, name)
			}
		}
		if len(names) > left {
			mid++
		}
	}
	if mid < wantMid {
		t.Errorf("%d of %d kills landed mid-write, want %d: the path was never at risk", mid, i, wantMid)
	}
	t.Logf("%d of %d kills landed mid-write", mid, i)
}

// FuzzDecodeReport checks that any input decodes cleanly or gives
// ErrMalformedReport / ErrUnsupportedReport, never a panic, and that a
// decoded report encodes, validates its summary, and decodes to the same
// report.
func FuzzDecodeReport(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", reportGoldenFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","summary":{},"entries":[]}`))
	f.Add([]byte(`{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","summary":{"total":1,"conflict":1},"entries":[{"outcome":"conflict","found":[{"id":"x","createdAt":"2026-01-01T00:00:00+01:00"}]}]}`))
	f.Add([]byte(`{"apiVersion":"intentjournal.io/v2","kind":"OrphanReport"}`))
	f.Add(good[:len(good)/3])
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeReport(b)
		if err != nil {
			if !errors.Is(err, ErrMalformedReport) && !errors.Is(err, ErrUnsupportedReport) {
				t.Fatalf("DecodeReport: error %v is neither ErrMalformedReport nor ErrUnsupportedReport", err)
			}
			if r != nil {
				t.Fatal("DecodeReport returned a report with an error")
			}
			return
		}
		var buf bytes.Buffer
		if err := r.Encode(&buf); err != nil {
			t.Fatalf("Encode(DecodeReport(b)): %v", err)
		}
		back, err := DecodeReport(buf.Bytes())
		if err != nil {
			t.Fatalf("DecodeReport(Encode(DecodeReport(b))): %v\n%s", err, buf.Bytes())
		}
		if diff := cmp.Diff(r, back, ignoreReportMutex); diff != "" {
			t.Fatalf("round trip changed the report (-first +second):\n%s", diff)
		}
		_ = r.NeedsAttention()
		r.Sort()
	})
}

// syntheticReport returns a report of n entries shaped like the public
// report that motivated intentjournal: thousands of RecordSet conflicts.
func syntheticReport(n int) *Report {
	r := NewReport(Source{Cluster: "https://127.0.0.1:6443", Journal: "/var/lib/provider/intents.db",
		Owner: journal.Owner{Replica: "provider-0", Epoch: "187a0c2b3e4f5a60-0a0b0c0d"}}, reportT0)
	for i := range n {
		name := fmt.Sprintf("www-%05d", i)
		id := fmt.Sprintf("rs-%016x", i)
		r.Add(Entry{
			IntentID: fmt.Sprintf("%032x", i+1),
			Resource: reportRef("RecordSet", name, fmt.Sprintf("6d3b0c2e-8a57-4c1b-9b0e-%012x", i)),
			Sources:  []string{SourceJournal, SourceAnnotation},
			Found: []Found{{ID: id, Tags: map[string]string{
				"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": name, "crossplane-providerconfig": "staging",
			}, CreatedAt: reportT0.Add(-time.Duration(i) * time.Second)}},
			Outcome: OutcomeConflict,
			Reason:  "NotOurs",
			Message: "1 cloud resource(s) with the natural key of RecordSet/" + name + " exist but are not proven ours",
			Action:  "inspect " + id + "; to adopt, set the annotation crossplane.io/external-name=" + id + " on recordset/" + name + " and remove crossplane.io/paused",
		})
	}
	r.Sort()
	return r
}

// BenchmarkReport4000 measures the report of a 4,000-RecordSet incident:
// go test ./recovery -run '^$' -bench Report4000 -benchmem.
func BenchmarkReport4000(b *testing.B) {
	r := syntheticReport(4000)
	enc := encodeReport(b, r)
	b.Run("Encode", func(b *testing.B) {
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			if err := r.Encode(discard{}); err != nil {
				b.Fatal(err)
			}
		}
		// On each sub-benchmark, after the loop: a parent's metrics are
		// never printed, and b.Loop's timer reset drops earlier ones.
		b.ReportMetric(float64(len(enc)), "file-bytes")
	})
	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			if _, err := DecodeReport(enc); err != nil {
				b.Fatal(err)
			}
		}
		// On each sub-benchmark, after the loop: a parent's metrics are
		// never printed, and b.Loop's timer reset drops earlier ones.
		b.ReportMetric(float64(len(enc)), "file-bytes")
	})
	b.Run("Validate", func(b *testing.B) {
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			if err := ValidateReportJSON(enc); err != nil {
				b.Fatal(err)
			}
		}
		// On each sub-benchmark, after the loop: a parent's metrics are
		// never printed, and b.Loop's timer reset drops earlier ones.
		b.ReportMetric(float64(len(enc)), "file-bytes")
	})
	b.Run("WriteFile", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "report.json")
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			if err := WriteReportFile(path, r); err != nil {
				b.Fatal(err)
			}
		}
		// On each sub-benchmark, after the loop: a parent's metrics are
		// never printed, and b.Loop's timer reset drops earlier ones.
		b.ReportMetric(float64(len(enc)), "file-bytes")
	})
}

// TestReportDocExample keeps the example in docs/report.md a valid report.
func TestReportDocExample(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(md, []byte("\n```json\n"))
	example, _, closed := bytes.Cut(rest, []byte("\n```\n"))
	if !ok || !closed {
		t.Fatal("docs/report.md has no ```json example")
	}
	if err := ValidateReportJSON(example); err != nil {
		t.Errorf("the example in docs/report.md does not match the schema: %v", err)
	}
	r, err := DecodeReport(example)
	if err != nil {
		t.Fatalf("DecodeReport(the example in docs/report.md): %v", err)
	}
	golden := goldenReport()
	for _, e := range r.Entries {
		if !slices.ContainsFunc(golden.Entries, func(g *Entry) bool { return cmp.Equal(e, g) }) {
			t.Errorf("the example's entry for %s (%s) is not in the golden report; keep the two in step", e.Resource, e.Outcome)
		}
	}
}
