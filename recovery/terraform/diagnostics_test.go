package terraform

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
)

// parseFile parses captured CLI output: *.jsonl is the machine-readable UI
// of plan -json, *.txt the human-readable error text.
func parseFile(name string, data []byte) []Diagnostic {
	if strings.HasSuffix(name, ".jsonl") {
		return ParseJSONDiagnostics(data)
	}
	return ParseTextDiagnostics(string(data))
}

// TestParseDiagnosticsGolden parses real tofu output captured under
// testdata/ and compares with the golden results; -update rewrites them.
// The captures themselves are made, and checked against the live CLI, by
// TestCaptureCLIOutput in the test bed (testbed/integration/terraform),
// which runs the real OpenTofu.
func TestParseDiagnosticsGolden(t *testing.T) {
	cases := map[string]struct {
		reason string
		file   string
	}{
		"PlanNotFound": {
			reason: "Imports of missing objects are NotFound, charged to their addresses; other lines are ignored.",
			file:   "plan-not-found.jsonl",
		},
		"PlanReadError": {
			reason: "A provider's Read error names no address: the batch must be split to find it.",
			file:   "plan-read-error.jsonl",
		},
		"PlanConfigError": {
			reason: "A configuration error carries the line of the generated file it points at.",
			file:   "plan-config-error.jsonl",
		},
		"ShowCorruptState": {
			reason: "An unreadable state file is StateCorrupt.",
			file:   "show-corrupt-state.txt",
		},
		"InitProviderMissing": {
			reason: "A provider missing from the mirror is ProviderMissing.",
			file:   "init-provider-missing.txt",
		},
		"PlanLocked": {
			reason: "A held state lock is Locked.",
			file:   "plan-locked.jsonl",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatalf("%v (regenerate with: cd testbed && go test ./integration/terraform -run Capture -update)", err)
			}
			got := parseFile(tc.file, raw)
			enc, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b := golden.Read(t, tc.file+".golden.json", append(enc, '\n'))
			var want []Diagnostic
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestParseDiagnostics covers forms the captures do not.
func TestParseDiagnostics(t *testing.T) {
	cases := map[string]struct {
		reason string
		json   bool
		in     string
		want   []Diagnostic
	}{
		"Empty": {reason: "No output, no diagnostics.", in: ""},
		"BoxedText": {
			reason: "Text with the box-drawing prefix of colour-less tofu output parses too.",
			in:     "╷\n│ Error: Cannot import non-existent remote object\n│ \n│ While attempting to import an existing object to \"fakecloud_network.x\", the\n│ provider detected that no object exists.\n╵\n",
			want: []Diagnostic{{Severity: "error", Summary: "Cannot import non-existent remote object",
				Detail: "While attempting to import an existing object to \"fakecloud_network.x\", the\nprovider detected that no object exists.", Address: "fakecloud_network.x", Kind: KindNotFound}},
		},
		"Warning": {
			reason: "Warnings are kept but not classified.",
			json:   true,
			in:     `{"type":"diagnostic","diagnostic":{"severity":"warning","summary":"Resource targeting is in effect"}}`,
			want:   []Diagnostic{{Severity: "warning", Summary: "Resource targeting is in effect"}},
		},
		"AddressField": {
			reason: "Terraform's address field wins over the text.",
			json:   true,
			in:     `{"type":"diagnostic","diagnostic":{"severity":"error","summary":"boom","address":"a.b","detail":"import to \"c.d\""}}`,
			want:   []Diagnostic{{Severity: "error", Summary: "boom", Detail: "import to \"c.d\"", Address: "a.b", Kind: KindOther}},
		},
		"Garbage": {
			reason: "Non-JSON, truncated JSON and other message types are skipped.",
			json:   true,
			in:     "not json\n{\"type\":\"diagnostic\",\"diagn\n{\"type\":\"version\"}\n{\"type\":\"diagnostic\",\"diagnostic\":null}\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []Diagnostic
			if tc.json {
				got = ParseJSONDiagnostics([]byte(tc.in))
			} else {
				got = ParseTextDiagnostics(tc.in)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// FuzzParseDiagnostics: the parsers never panic, and what they return is
// well-formed. Seeded from the captured CLI output.
func FuzzParseDiagnostics(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	txt, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, p := range append(files, txt...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"diagnostic","diagnostic":{"severity":"error","summary":"x","range":{"filename":"a.tf","start":{"line":-1}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range append(ParseJSONDiagnostics(data), ParseTextDiagnostics(string(data))...) {
			if d.Severity == "error" && d.Kind == "" {
				t.Errorf("error diagnostic without kind: %+v", d)
			}
			if d.Severity != "error" && d.Kind != "" {
				t.Errorf("non-error diagnostic with kind: %+v", d)
			}
			if utf8.ValidString(string(data)) && strings.ContainsRune(d.Address, '"') {
				t.Errorf("address holds a quote: %q", d.Address)
			}
		}
	})
}
