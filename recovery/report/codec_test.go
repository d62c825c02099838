package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
)

func TestReportGolden(t *testing.T) {
	got := encodeReport(t, goldenReport())
	want := golden.Read(t, reportGoldenFile, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Encode: the v1alpha1 report changed (-golden +got); a change that is not additive needs a new apiVersion:\n%s", diff)
	}
	if err := ValidateJSON(want); err != nil {
		t.Errorf("the golden report does not match the schema: %v", err)
	}
	dec, err := Decode(want)
	if err != nil {
		t.Fatalf("Decode(golden): %v", err)
	}
	if diff := cmp.Diff(goldenReport(), dec, ignoreReportMutex); diff != "" {
		t.Errorf("Decode(golden) (-want +got):\n%s", diff)
	}
	wantSummary := Summary{Total: 7, Cleared: 1, Adopted: 2, Conflict: 1, Orphan: 2, Unresolved: 1}
	if diff := cmp.Diff(wantSummary, dec.Summary); diff != "" {
		t.Errorf("golden summary (-want +got):\n%s", diff)
	}
	if !dec.NeedsAttention() {
		t.Error("NeedsAttention(golden) = false; the golden report has a conflict, orphans and an unresolved entry")
	}
}

// TestReportGoldenTimings pins the report of a pass, with its timings, in a
// golden file of its own: the v1alpha1 golden above stays a report without
// them, which every reader keeps decoding.
func TestReportGoldenTimings(t *testing.T) {
	got := encodeReport(t, goldenTimedReport())
	want := golden.Read(t, reportTimingsGoldenFile, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Encode: the report with timings changed (-golden +got):\n%s", diff)
	}
	if err := ValidateJSON(want); err != nil {
		t.Errorf("the golden report with timings does not match the schema: %v", err)
	}
	dec, err := Decode(want)
	if err != nil {
		t.Fatalf("Decode(golden with timings): %v", err)
	}
	if diff := cmp.Diff(goldenTimedReport(), dec, ignoreReportMutex); diff != "" {
		t.Errorf("Decode(golden with timings) (-want +got):\n%s", diff)
	}
}

func TestReportRoundTrip(t *testing.T) {
	cases := map[string]struct {
		reason string
		report func() *Report
	}{
		"Golden": {"every outcome", goldenReport},
		"Empty": {"a pass with nothing to resolve still writes entries: []", func() *Report {
			return New(Source{Owner: journal.Owner{Replica: "r"}, DryRun: true}, reportT0)
		}},
		"AnnotationOnly": {"no journal path, notes about the fallback", func() *Report {
			r := New(Source{Cluster: "kind-crossplane", Notes: []string{"journal locked by provider-fakecloud-0: fell back to annotations"}}, reportT0)
			r.Add(Entry{Resource: reportRef("Network", "n", "u"), Sources: []string{SourceAnnotation}, Outcome: OutcomeCleared, Reason: "NothingCreated"})
			return r
		}},
		"Timings": {"a pass's timings, in whole milliseconds", goldenTimedReport},
		"CacheReads": {"a provider's pass, its reads from the manager's cache and the decisions made again", func() *Report {
			r := goldenReport()
			r.SetTimings(Timings{Wall: time.Second, Reads: 20 * time.Millisecond, ReadCount: 5, CacheReadCount: 4, RereadCount: 1,
				Patches: 40 * time.Millisecond, PatchCount: 4})
			return r
		}},
		"LocalTime": {"a non-UTC clock is kept in UTC", func() *Report {
			return New(Source{}, reportT0.In(time.FixedZone("CET", 3600)))
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			first := encodeReport(t, tc.report())
			if err := ValidateJSON(first); err != nil {
				t.Errorf("%s\nValidateReportJSON(Encode(r)): %v", tc.reason, err)
			}
			dec, err := Decode(first)
			if err != nil {
				t.Fatalf("%s\nDecodeReport(Encode(r)): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.report(), dec, ignoreReportMutex); diff != "" {
				t.Errorf("%s\nDecodeReport(Encode(r)) (-want +got):\n%s", tc.reason, diff)
			}
			if second := encodeReport(t, dec); !bytes.Equal(first, second) {
				t.Errorf("%s\nEncode(Decode(b)) != b:\n%s", tc.reason, cmp.Diff(string(first), string(second)))
			}
		})
	}
}

func TestDecodeReportErrors(t *testing.T) {
	good := string(encodeReport(t, goldenReport()))
	timed := string(encodeReport(t, goldenTimedReport()))
	cases := map[string]struct {
		reason string
		doc    string
		want   error
	}{
		"Empty":             {"no bytes", "", ErrMalformed},
		"Garbage":           {"not JSON", "\x00\xffPK\x03\x04", ErrMalformed},
		"Null":              {"JSON null is not a report", "null", ErrMalformed},
		"Array":             {"JSON of the wrong shape", "[1,2,3]", ErrMalformed},
		"Truncated":         {"a report cut short, as by a full disk", good[:len(good)/2], ErrMalformed},
		"TrailingGarbage":   {"two documents concatenated", good + good, ErrMalformed},
		"MissingAPIVersion": {"an object that is not a report", `{"kind":"OrphanReport","entries":[]}`, ErrMalformed},
		"APIVersionNumber":  {"apiVersion of the wrong type", `{"apiVersion":1,"kind":"OrphanReport"}`, ErrMalformed},
		"OtherAPIVersion":   {"a newer major version is refused, never guessed at", strings.Replace(good, APIVersion, "intentjournal.io/v1", 1), ErrUnsupported},
		"OtherAPIVersionNewShape": {"a newer major version whose fields changed type is unsupported, not malformed",
			`{"apiVersion":"intentjournal.io/v2","kind":"OrphanReport","entries":{"by-uid":{}},"summary":[]}`, ErrUnsupported},
		"OtherKind":           {"another kind of the same group", strings.Replace(good, `"kind": "OrphanReport"`, `"kind": "IntentList"`, 1), ErrUnsupported},
		"InconsistentTotal":   {"the total must count the entries", strings.Replace(good, `"total": 7`, `"total": 6`, 1), ErrMalformed},
		"InconsistentOrphans": {"an outcome count must match", strings.Replace(good, `"orphan": 2`, `"orphan": 0`, 1), ErrMalformed},
		"UnknownOutcome":      {"an outcome this build does not know", strings.Replace(good, `"outcome": "cleared"`, `"outcome": "deleted"`, 1), ErrMalformed},
		"WrongType":           {"a field of the wrong type", strings.Replace(good, `"dryRun": false`, `"dryRun": "no"`, 1), ErrMalformed},
		"NullEntry":           {"an entry that is null", `{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","generatedAt":"2026-11-22T02:31:07Z","source":{"owner":{},"dryRun":false},"summary":{"total":1,"cleared":1,"adopted":0,"conflict":0,"orphan":0,"unresolved":0},"entries":[null]}`, ErrMalformed},
		"NegativeTiming":      {"a phase cannot take negative time", strings.Replace(timed, `"lookupsMs": 8120`, `"lookupsMs": -1`, 1), ErrMalformed},
		"NegativeTimingCount": {"a phase cannot run a negative number of times", strings.Replace(timed, `"patches": 4`, `"patches": -4`, 1), ErrMalformed},
		"TimingOverflow":      {"a time no time.Duration holds", strings.Replace(timed, `"wallMs": 5432`, `"wallMs": 9223372036854775807`, 1), ErrMalformed},
		"TimingNotNumber":     {"times are numbers", strings.Replace(timed, `"wallMs": 5432`, `"wallMs": "5.4s"`, 1), ErrMalformed},
		"BadTime":             {"a time that is not RFC 3339", strings.Replace(good, `"generatedAt": "2026-11-22T02:31:07Z"`, `"generatedAt": "now"`, 1), ErrMalformed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.doc == good || tc.doc == timed {
				t.Fatalf("%s: the edit did not apply; the golden report changed shape", name)
			}
			r, err := Decode([]byte(tc.doc))
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
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode with unknown fields: %v", err)
	}
	if diff := cmp.Diff(goldenReport(), got, ignoreReportMutex); diff != "" {
		t.Errorf("unknown fields must be ignored (-want +got):\n%s", diff)
	}
	// Lists left out by a lenient writer decode as empty, so the report
	// re-encodes with the arrays the schema requires.
	got, err = Decode([]byte(`{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","summary":{"total":1,"cleared":1},
		"entries":[{"resource":{"kind":"Network","name":"n","uid":"u"},"sources":["journal"],"outcome":"cleared","reason":"NothingCreated"}]}`))
	if err != nil {
		t.Fatalf("Decode of a minimal report: %v", err)
	}
	if got.Entries[0].Found == nil {
		t.Error("Decode left Found nil; want an empty list")
	}
}

func TestDecodeReportSizeBound(t *testing.T) {
	good := encodeReport(t, goldenReport())
	if _, err := decode(good, len(good)); err != nil {
		t.Errorf("decode at exactly the bound: %v", err)
	}
	if _, err := decode(good, len(good)-1); !errors.Is(err, ErrMalformed) {
		t.Errorf("decode one byte over the bound: got %v, want errors.Is ErrMalformed", err)
	}
	if MaxSize != 512<<20 {
		t.Errorf("MaxSize = %d, want 512 MiB", MaxSize)
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
		}, ErrMalformed},
		"StaleSummary": {"entries appended without Add", func() *Report {
			r := goldenReport()
			r.Entries = r.Entries[1:]
			return r
		}, ErrMalformed},
		"NegativeTiming": {"a clock that stepped back, summed by hand", func() *Report {
			r := goldenTimedReport()
			r.Summary.Timings.Settles = -time.Millisecond
			return r
		}, ErrMalformed},
		"NoIdentity": {"a report not made by New", func() *Report { return &Report{} }, ErrUnsupported},
		"Nil":        {"a nil report", func() *Report { return nil }, ErrMalformed},
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

// FuzzDecodeReport checks that any input decodes cleanly or gives
// ErrMalformed / ErrUnsupported, never a panic, and that a
// decoded report encodes, validates its summary, and decodes to the same
// report.
func FuzzDecode(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", reportGoldenFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	timed, err := os.ReadFile(filepath.Join("testdata", reportTimingsGoldenFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(timed)
	scanned, err := os.ReadFile(filepath.Join("testdata", reportScanGoldenFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(scanned)
	f.Add([]byte(`{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","summary":{"timings":{"wallMs":-9223372036854775808,"lookups":1e3}},"entries":[]}`))
	f.Add([]byte(`{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","summary":{},"entries":[]}`))
	f.Add([]byte(`{"apiVersion":"intentjournal.io/v1alpha1","kind":"OrphanReport","summary":{"total":1,"conflict":1},"entries":[{"outcome":"conflict","found":[{"id":"x","createdAt":"2026-01-01T00:00:00+01:00"}]}]}`))
	f.Add([]byte(`{"apiVersion":"intentjournal.io/v2","kind":"OrphanReport"}`))
	f.Add(good[:len(good)/3])
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Decode: error %v is neither ErrMalformed nor ErrUnsupported", err)
			}
			if r != nil {
				t.Fatal("Decode returned a report with an error")
			}
			return
		}
		var buf bytes.Buffer
		if err := r.Encode(&buf); err != nil {
			t.Fatalf("Encode(Decode(b)): %v", err)
		}
		back, err := Decode(buf.Bytes())
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(b))): %v\n%s", err, buf.Bytes())
		}
		if diff := cmp.Diff(r, back, ignoreReportMutex); diff != "" {
			t.Fatalf("round trip changed the report (-first +second):\n%s", diff)
		}
		_ = r.NeedsAttention()
		r.Sort()
	})
}
