package report

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReportSchemaPublished(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(JSONSchema()), string(docs)); diff != "" {
		t.Errorf("docs/report.schema.json differs from the embedded recovery/report/schema/report.schema.json; copy it: cp recovery/report/schema/report.schema.json docs/ (-embedded +docs):\n%s", diff)
	}
	var s struct {
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(docs, &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.ID != SchemaID {
		t.Errorf("schema $schema %q, $id %q; want draft 2020-12 and %q", s.Schema, s.ID, SchemaID)
	}
	if _, err := compiledReportSchema(); err != nil {
		t.Errorf("the embedded schema does not compile: %v", err)
	}
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
		"Timings":           {"a pass's timings are optional, and valid", func(d map[string]any) { d["summary"].(map[string]any)["timings"] = timingsDoc() }, true},
		"TimingsNegative": {"times are not negative", func(d map[string]any) {
			tm := timingsDoc()
			tm["settlesMs"] = -3
			d["summary"].(map[string]any)["timings"] = tm
		}, false},
		"TimingsFraction": {"times are whole milliseconds", func(d map[string]any) {
			tm := timingsDoc()
			tm["wallMs"] = 5.5
			d["summary"].(map[string]any)["timings"] = tm
		}, false},
		"TimingsMissing": {"timings, when present, carry every phase", func(d map[string]any) {
			tm := timingsDoc()
			delete(tm, "lookupsMs")
			d["summary"].(map[string]any)["timings"] = tm
		}, false},
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
			err := ValidateJSON(b)
			if tc.valid && err != nil {
				t.Errorf("%s\nValidateReportJSON: %v, want valid", tc.reason, err)
			}
			if !tc.valid && !errors.Is(err, ErrMalformed) {
				t.Errorf("%s\nValidateReportJSON: got %v, want errors.Is ErrMalformed", tc.reason, err)
			}
		})
	}
	for name, b := range map[string]string{"NotJSON": "apiVersion: v1alpha1", "Truncated": `{"apiVersion":`, "Empty": ""} {
		if err := ValidateJSON([]byte(b)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: ValidateJSON(%q) = %v, want errors.Is ErrMalformed", name, b, err)
		}
	}
}

// timingsDoc is the JSON form of a pass's timings.
func timingsDoc() map[string]any {
	return map[string]any{"wallMs": 5432, "discoverMs": 41, "readsMs": 230, "reads": 5, "lookupsMs": 8120, "lookups": 6,
		"patchesMs": 912, "patches": 4, "settlesMs": 77, "settles": 5}
}
