package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// coverageSchemaVersion is the schemaVersion of `finders coverage -o json`.
// It changes when a field is removed or changes meaning.
const coverageSchemaVersion = 1

// builtinTemplates is what the output names the built-in templates by.
const builtinTemplates = "built-in"

// The --list values.
const (
	listReportOnly = "report-only"
	listAll        = "all"
)

// coverageOptions are the options of `finders coverage`.
type coverageOptions struct {
	outputFlag `embed:""`

	Kinds     string `name:"kinds" required:"" placeholder:"FILE" help:"The kinds file: one kind a line with its external-name configuration (testdata/upjet-provider-kinds.tsv's format)."`
	Templates string `name:"templates" placeholder:"FILE" help:"An ID templates file (RESOURCE<TAB>TEMPLATE a line, # comments), used instead of the built-in templates."`
	Provider  string `name:"provider" placeholder:"NAME" help:"Only the kinds of this provider (aws, gcp, azure: a provider the kinds file names)."`
	List      string `name:"list" enum:",report-only,all" default:"" placeholder:"WHICH" help:"Also list kinds by name: report-only (what a template would add) or all."`
}

// Run runs `finders coverage`.
func (o *coverageOptions) Run(e *Env) error {
	return runFindersCoverage(e.Stdout, *o)
}

// Help is the detailed help of `finders coverage`.
func (o *coverageOptions) Help() string {
	return "Classifies every kind of the --kinds file: observe-by-name (ID known before the create), " +
		"observe-by-template (a cloud-assigned ID an ID template renders from spec), list-by-tags " +
		"(cloud-assigned, with a tags or labels field) or report-only, and counts them per provider. " +
		"GOAL counts the kinds that need no per-kind input; GOAL-MET says whether all of them are covered " +
		"with no template. See docs/recovery.md, Finder strategies and coverage."
}

// coverageOutput is the json and yaml form of `finders coverage`.
type coverageOutput struct {
	SchemaVersion int    `json:"schemaVersion"`
	KindsFile     string `json:"kindsFile"`
	// Templates is the --templates file, or "built-in".
	Templates       string                      `json:"templates"`
	Provider        string                      `json:"provider,omitempty"`
	Providers       []strategy.ProviderCoverage `json:"providers"`
	Total           strategy.ProviderCoverage   `json:"total"`
	UnusedTemplates []strategy.UnusedTemplate   `json:"unusedTemplates,omitempty"`
	// Kinds are listed with --list.
	Kinds []strategy.KindDecision `json:"kinds,omitempty"`
}

// runFindersCoverage classifies the kinds of o.Kinds and prints the
// coverage. It reads only the files it is given.
func runFindersCoverage(out io.Writer, o coverageOptions) error {
	format, err := o.format()
	if err != nil {
		return err
	}
	kinds, err := readKinds(o.Kinds)
	if err != nil {
		return err
	}
	if o.Provider != "" {
		kinds, err = providerKinds(kinds, o.Provider)
		if err != nil {
			return err
		}
	}
	templates, source, err := readTemplates(o.Templates)
	if err != nil {
		return err
	}
	c := strategy.Measure(kinds, templates)
	res := coverageOutput{
		SchemaVersion: coverageSchemaVersion, KindsFile: o.Kinds, Templates: source, Provider: o.Provider,
		Providers: c.Providers, Total: c.Total, UnusedTemplates: c.UnusedTemplates,
	}
	if res.Providers == nil {
		res.Providers = []strategy.ProviderCoverage{}
	}
	switch o.List {
	case listReportOnly:
		res.Kinds = c.Filter(strategy.ReportOnly)
	case listAll:
		res.Kinds = c.Kinds
	}
	if format != formatTable {
		return writeData(out, format, res)
	}
	return writeCoverageTable(out, res)
}

// readKinds decodes the kinds file at path.
func readKinds(path string) ([]strategy.Facts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read --kinds: %w", err)
	}
	defer f.Close()
	kinds, err := strategy.DecodeKinds(f)
	if err != nil {
		return nil, fmt.Errorf("--kinds %s: %w", path, err)
	}
	return kinds, nil
}

// providerKinds returns the kinds of provider, which must be one the kinds
// name.
func providerKinds(kinds []strategy.Facts, provider string) ([]strategy.Facts, error) {
	var out []strategy.Facts
	var names []string
	for _, k := range kinds {
		if k.Provider == provider {
			out = append(out, k)
		}
		if !slices.Contains(names, k.Provider) {
			names = append(names, k.Provider)
		}
	}
	if len(out) == 0 {
		return nil, UsageError("--provider %q: the kinds file has no kinds of it; its providers: %v", provider, names)
	}
	return out, nil
}

// readTemplates decodes the templates file at path, or returns the
// built-in templates when path is empty, with the name the output gives
// them.
func readTemplates(path string) (strategy.Templates, string, error) {
	if path == "" {
		t, err := strategy.DefaultTemplates()
		return t, builtinTemplates, err
	}
	f, err := os.Open(path)
	if err != nil {
		return strategy.Templates{}, "", fmt.Errorf("cannot read --templates: %w", err)
	}
	defer f.Close()
	t, err := strategy.DecodeTemplates(f)
	if err != nil {
		return strategy.Templates{}, "", fmt.Errorf("--templates %s: %w", path, err)
	}
	return t, path, nil
}

// writeCoverageTable writes the per-provider counts, then the unused
// templates and the listed kinds, each table after a blank line.
func writeCoverageTable(out io.Writer, res coverageOutput) error {
	t := tabular.New(out, "PROVIDER", "KINDS", "OBSERVE-BY-NAME", "OBSERVE-BY-TEMPLATE", "LIST-BY-TAGS", "REPORT-ONLY", "COVERED", "GOAL", "GOAL-MET")
	for _, p := range append(slices.Clone(res.Providers), res.Total) {
		met := "yes"
		if !p.GoalMet {
			met = fmt.Sprintf("no (%d/%d)", p.GoalCovered, p.Goal)
		}
		t.Row(p.Provider, strconv.Itoa(p.Kinds), strconv.Itoa(p.ObserveByName), strconv.Itoa(p.ObserveByTemplate),
			strconv.Itoa(p.ListByTags), strconv.Itoa(p.ReportOnly), strconv.Itoa(p.Covered), strconv.Itoa(p.Goal), met)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if len(res.UnusedTemplates) > 0 {
		fmt.Fprintln(out)
		t = tabular.New(out, "UNUSED TEMPLATE", "WHY")
		for _, u := range res.UnusedTemplates {
			t.Row(u.TerraformResource, u.Reason)
		}
		if err := t.Flush(); err != nil {
			return err
		}
	}
	if res.Kinds != nil {
		fmt.Fprintln(out)
		t = tabular.New(out, "PROVIDER", "TERRAFORM RESOURCE", "STRATEGY", "EXTERNAL NAME CONFIG", "REASON")
		for _, k := range res.Kinds {
			t.Row(k.Provider, k.TerraformResource, string(k.Strategy), k.ExternalNameConfig, k.Reason)
		}
		return t.Flush()
	}
	return nil
}
