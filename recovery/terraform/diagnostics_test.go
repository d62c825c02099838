package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/recovery"
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
				t.Fatalf("%v (regenerate with: go test ./recovery/terraform -run Capture -update)", err)
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

// TestCaptureCLIOutput drives the real CLI into each failure the parser must
// recognise and checks the live output parses to the same kinds as the
// captured files; with -update it rewrites the captures.
func TestCaptureCLIOutput(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	// kinds is the set of error kinds and addresses: the CLI reports
	// resources in no fixed order, and Terraform and OpenTofu differ in how
	// many diagnostics one failure makes.
	kinds := func(ds []Diagnostic) []string {
		var out []string
		for _, d := range errorsOf(ds) {
			out = append(out, d.Kind+" "+d.Address)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	check := func(t *testing.T, name string, out []byte) {
		t.Helper()
		if len(out) == 0 {
			t.Fatalf("%s: the CLI printed nothing", name)
		}
		capture(t, name, out)
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatalf("%v (regenerate with -update)", err)
		}
		if diff := cmp.Diff(kinds(parseFile(name, raw)), kinds(parseFile(name, out))); diff != "" {
			t.Errorf("%s: the live output must parse like the capture; -capture, +live:\n%s", name, diff)
		}
	}
	record := func(im *Importer, op string) *[]byte {
		var got []byte
		im.observe = func(o string, out []byte) {
			if o == op && got == nil {
				got = append([]byte(nil), out...)
			}
		}
		return &got
	}

	t.Run("PlanNotFound", func(t *testing.T) {
		im := r.importer(t)
		out := record(im, "plan")
		ok := candidate(1, "")
		ok.Intent.ExternalName = createNetwork(t, r.fc.Client, ok.Intent.Resource.Name, ourTags(ok))
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{ok, candidate(2, missingID(2)), candidate(3, missingID(3))}); err != nil {
			t.Fatal(err)
		}
		check(t, "plan-not-found.jsonl", *out)
	})
	t.Run("PlanReadError", func(t *testing.T) {
		im := r.importer(t)
		out := record(im, "plan")
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{candidate(1, "net-"+strings.Repeat("b", 1100000))}); err != nil {
			t.Fatal(err)
		}
		got := *out
		// Keep the capture small: the summary quotes the whole ID.
		got = []byte(strings.ReplaceAll(string(got), strings.Repeat("b", 1100000), "bbbb"))
		check(t, "plan-read-error.jsonl", got)
	})
	t.Run("PlanConfigError", func(t *testing.T) {
		typ := networkType
		typ.Attributes = func(c *recovery.Candidate) (map[string]any, error) {
			return map[string]any{"name": map[string]any{"not": "a string"}}, nil
		}
		im, err := New(t.TempDir(), r.cli, typ, WithFilesystemMirror(r.mirror), WithProviderConfig(testProviderBlock(r)))
		if err != nil {
			t.Fatal(err)
		}
		out := record(im, "plan")
		res, err := im.ImportBatch(ctx, []*recovery.Candidate{candidate(1, missingID(1))})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Status != StatusError {
			t.Errorf("a block with an invalid argument must fail: %+v", res[0])
		}
		check(t, "plan-config-error.jsonl", *out)
	})
	t.Run("ShowCorruptState", func(t *testing.T) {
		im := r.importer(t)
		out := record(im, "show")
		if err := os.WriteFile(filepath.Join(im.Dir(), stateFile), []byte(`{"version": 4, "serial": 1, "resources": [`), 0o644); err != nil {
			t.Fatal(err)
		}
		// json.Valid catches this before the CLI runs; run show directly.
		_, err := im.tf.Show(ctx)
		if err == nil {
			t.Fatal("show of a corrupt state must fail")
		}
		_ = out
		check(t, "show-corrupt-state.txt", []byte(err.Error()))
	})
	t.Run("InitProviderMissing", func(t *testing.T) {
		im, err := New(t.TempDir(), r.cli, networkType, WithFilesystemMirror(t.TempDir()), WithProviderConfig(testProviderBlock(r)))
		if err != nil {
			t.Fatal(err)
		}
		out := record(im, "init")
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{candidate(1, missingID(1))}); err == nil {
			t.Fatal("init without the provider must fail")
		}
		check(t, "init-provider-missing.txt", *out)
	})
	t.Run("PlanLocked", func(t *testing.T) {
		im := r.importer(t)
		first := candidate(1, "")
		first.Intent.ExternalName = createNetwork(t, r.fc.Client, first.Intent.Resource.Name, ourTags(first))
		if _, err := im.ImportBatch(ctx, []*recovery.Candidate{first}); err != nil {
			t.Fatal(err)
		}
		setLatency(t, r.fc.Client, 30*time.Second)
		defer setLatency(t, r.fc.Client, 0)
		r.startCLI(t, im, "apply", "-refresh-only", "-auto-approve", "-no-color", "-input=false")
		waitForLock(t, im)
		var out bytes.Buffer
		_, err := im.tf.PlanJSON(ctx, &out, tfexec.LockTimeout("0s"))
		if err == nil {
			t.Fatal("plan under a held lock must fail")
		}
		check(t, "plan-locked.jsonl", out.Bytes())
	})
}
