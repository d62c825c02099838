package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/intentjournal/intentjournal/journal"
)

// reportGoldenFile is the v1alpha1 report every reader must keep decoding.
const reportGoldenFile = "report-v1alpha1.golden.json"

// reportTimingsGoldenFile is a report of a pass, with its timings.
const reportTimingsGoldenFile = "report-v1alpha1-timings.golden.json"

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
	r := New(Source{
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

// goldenTimedReport is the golden report as a pass makes it, with where the
// pass spent its time: 16 workers' lookups sum to more than the wall time.
func goldenTimedReport() *Report {
	r := goldenReport()
	r.SetTimings(Timings{
		Wall: 5432 * time.Millisecond, Discover: 41 * time.Millisecond,
		Reads: 230 * time.Millisecond, ReadCount: 5,
		Lookups: 8120 * time.Millisecond, LookupCount: 6,
		Patches: 912 * time.Millisecond, PatchCount: 4,
		Settles: 77 * time.Millisecond, SettleCount: 5,
	})
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
			r := New(Source{}, reportT0)
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
		r := New(Source{}, reportT0)
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
	r := New(Source{}, reportT0)
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
	if _, err := Decode(b); err != nil {
		t.Errorf("Decode after concurrent Add: %v", err)
	}
	if err := ValidateJSON(b); err != nil {
		t.Errorf("ValidateJSON after concurrent Add: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// syntheticReport returns a report of n entries shaped like the public
// report that motivated intentjournal: thousands of RecordSet conflicts.
func syntheticReport(n int) *Report {
	r := New(Source{Cluster: "https://127.0.0.1:6443", Journal: "/var/lib/provider/intents.db",
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
			if _, err := Decode(enc); err != nil {
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
			if err := ValidateJSON(enc); err != nil {
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
			if err := WriteFile(path, r); err != nil {
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
	md, err := os.ReadFile(filepath.Join("..", "..", "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(md, []byte("\n```json\n"))
	example, _, closed := bytes.Cut(rest, []byte("\n```\n"))
	if !ok || !closed {
		t.Fatal("docs/report.md has no ```json example")
	}
	if err := ValidateJSON(example); err != nil {
		t.Errorf("the example in docs/report.md does not match the schema: %v", err)
	}
	r, err := Decode(example)
	if err != nil {
		t.Fatalf("Decode(the example in docs/report.md): %v", err)
	}
	golden := goldenReport()
	for _, e := range r.Entries {
		if !slices.ContainsFunc(golden.Entries, func(g *Entry) bool { return cmp.Equal(e, g) }) {
			t.Errorf("the example's entry for %s (%s) is not in the golden report; keep the two in step", e.Resource, e.Outcome)
		}
	}
}
