package terraform

import (
	"bufio"
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Diagnostic kinds, from what the CLI printed.
const (
	// KindNotFound: the import ID names no object ("Cannot import
	// non-existent remote object"); the provider's Read cleared the ID.
	KindNotFound = "NotFound"
	// KindStateCorrupt: the state file cannot be read.
	KindStateCorrupt = "StateCorrupt"
	// KindProviderMissing: the provider is not installed or not initialised.
	KindProviderMissing = "ProviderMissing"
	// KindLocked: the state lock is held.
	KindLocked = "Locked"
	// KindOther: any other error.
	KindOther = "Other"
)

// Diagnostic is one error or warning printed by tofu or terraform.
type Diagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"`
	// Address is the resource instance the diagnostic is about, from its
	// address field or its text ("... to \"fakecloud_network.a\" ...").
	Address string `json:"address,omitempty"`
	// File and Line locate the configuration the diagnostic points at.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Kind classifies an error: KindNotFound, KindStateCorrupt, ...
	Kind string `json:"kind"`
}

// jsonMessage is one line of the machine-readable UI (-json).
type jsonMessage struct {
	Type       string `json:"type"`
	Diagnostic *struct {
		Severity string `json:"severity"`
		Summary  string `json:"summary"`
		Detail   string `json:"detail"`
		Address  string `json:"address"`
		Range    *struct {
			Filename string `json:"filename"`
			Start    struct {
				Line int `json:"line"`
			} `json:"start"`
		} `json:"range"`
	} `json:"diagnostic"`
}

// maxLine bounds one line of CLI output; longer lines are skipped.
const maxLine = 4 << 20

// ParseJSONDiagnostics returns the diagnostics in the machine-readable UI
// stream of `plan -json` or `apply -json`, in order. Lines that are not
// JSON diagnostics (plain text, progress messages, truncated lines) are
// ignored: the parser never fails and never panics.
func ParseJSONDiagnostics(out []byte) []Diagnostic {
	var diags []Diagnostic
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var m jsonMessage
		if err := json.Unmarshal(line, &m); err != nil || m.Type != "diagnostic" || m.Diagnostic == nil {
			continue
		}
		d := Diagnostic{
			Severity: m.Diagnostic.Severity,
			Summary:  m.Diagnostic.Summary,
			Detail:   m.Diagnostic.Detail,
			Address:  m.Diagnostic.Address,
		}
		if r := m.Diagnostic.Range; r != nil {
			d.File, d.Line = r.Filename, r.Start.Line
		}
		diags = append(diags, classify(d))
	}
	return diags
}

// textError matches the first line of an error in the human-readable
// output, with or without the box-drawing prefix.
var textError = regexp.MustCompile(`^(?:│\s*)?(Error|Warning): (.+)$`)

// ParseTextDiagnostics returns the errors and warnings in human-readable CLI
// output (-no-color), such as the stderr of init or show. Each diagnostic's
// detail is the paragraph text up to the next diagnostic.
func ParseTextDiagnostics(out string) []Diagnostic {
	var diags []Diagnostic
	var detail []string
	flush := func() {
		if len(diags) == 0 {
			return
		}
		d := &diags[len(diags)-1]
		d.Detail = strings.TrimSpace(strings.Join(detail, "\n"))
		*d = classify(*d)
		detail = detail[:0]
	}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := textError.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			flush()
			diags = append(diags, Diagnostic{Severity: strings.ToLower(m[1]), Summary: strings.TrimSpace(m[2])})
			continue
		}
		if len(diags) > 0 {
			line = strings.TrimPrefix(strings.TrimPrefix(line, "│"), " ")
			if strings.HasPrefix(line, "╷") || strings.HasPrefix(line, "╵") {
				continue
			}
			detail = append(detail, line)
		}
	}
	flush()
	return diags
}

// importTarget finds the address in the detail of an import error.
var importTarget = regexp.MustCompile(`(?:import an existing object to|import to|resource address|Resource instance) "([^"\n]+)"`)

// classify fills in Kind and, where the text names one, Address.
func classify(d Diagnostic) Diagnostic {
	if d.Severity != "error" {
		d.Kind = ""
		return d
	}
	if d.Address == "" {
		if m := importTarget.FindStringSubmatch(d.Detail); m != nil {
			d.Address = m[1]
		}
	}
	s, text := strings.ToLower(d.Summary), strings.ToLower(d.Summary+"\n"+d.Detail)
	switch {
	case strings.Contains(s, "non-existent remote object") || strings.Contains(s, "cannot import non-existent"):
		d.Kind = KindNotFound
	case strings.Contains(s, "state lock") || strings.Contains(text, "error acquiring the state lock"):
		d.Kind = KindLocked
	case strings.Contains(text, "unsupported state file format") || strings.Contains(s, "failed to load state") ||
		strings.Contains(text, "state file could not be parsed") || strings.Contains(s, "error loading state"):
		d.Kind = KindStateCorrupt
	case strings.Contains(s, "failed to query available provider packages") ||
		strings.Contains(s, "inconsistent dependency lock file") ||
		strings.Contains(s, "missing required provider") ||
		strings.Contains(s, "failed to load plugin schemas") ||
		strings.Contains(s, "required plugins are not installed") ||
		strings.Contains(text, "was not found in any of the search locations"):
		d.Kind = KindProviderMissing
	default:
		d.Kind = KindOther
	}
	return d
}

// errorsOf returns the diagnostics of severity error.
func errorsOf(diags []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range diags {
		if d.Severity == "error" {
			out = append(out, d)
		}
	}
	return out
}
