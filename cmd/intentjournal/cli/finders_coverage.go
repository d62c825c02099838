package cli

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// coverageSchemaVersion is the schemaVersion of `finders coverage -o json`.
// It changes when a field is removed or changes meaning: 2 counts the
// outcomes (adopt, report, could duplicate) and drops covered and
// goalCovered.
const coverageSchemaVersion = 2

// builtinTemplates is what the output names the built-in templates by.
const builtinTemplates = "built-in"

// The --list values: an outcome, the goal's misses, or all.
const (
	listAdopt          = "adopt"
	listReport         = "report"
	listCouldDuplicate = "could-duplicate"
	listMisses         = "misses"
	listAll            = "all"
)

// defaultTaggers are what provider-upjet-aws, -gcp and -azure write into
// a kind's tags field by default: upjet's config.TagInitializer on AWS,
// nothing on GCP and Azure.
var defaultTaggers = map[string]string{"aws": strategy.TaggerCrossplane}

// coverageOptions are the options of `finders coverage`.
type coverageOptions struct {
	outputFlag `embed:""`

	Kinds     string            `name:"kinds" required:"" placeholder:"FILE" help:"The kinds file: one kind a line with its external-name configuration (testdata/upjet-provider-kinds.tsv's format)."`
	Templates string            `name:"templates" placeholder:"FILE" help:"An ID templates file (RESOURCE<TAB>TEMPLATE a line, # comments), used instead of the built-in templates."`
	Provider  string            `name:"provider" placeholder:"NAME" help:"Only the kinds of this provider (aws, gcp, azure: a provider the kinds file names)."`
	List      string            `name:"list" enum:",adopt,report,could-duplicate,misses,all" default:"" placeholder:"WHICH" help:"Also list kinds by name, with their outcome and why: adopt, report, could-duplicate (each an outcome), misses (the kinds whose outcome is not the goal's) or all."`
	Inventory bool              `name:"inventory" help:"Measure with each provider's tag lister serving its list-by-tags kinds (upjetv2.WithLister): intentjournal ships one for aws, gcp and azure; another provider's kinds stay reported."`
	AnyType   bool              `name:"inventory-any-type" help:"With --inventory, count every type of a lister's provider as listed, as before the listers said what their index lists (inventory/listings): to reproduce the earlier figures. Default: only the types the shipped listings list."`
	Tagger    map[string]string `name:"tagger" placeholder:"PROVIDER=TAGGER" help:"What a provider's tagger writes: none, crossplane (upjet's TagInitializer) or uid (intentjournal's, with the UID tag). Default: aws=crossplane, others none; repeat for several providers."`
}

// Run runs `finders coverage`.
func (o *coverageOptions) Run(e *Env) error {
	return runFindersCoverage(e.Stdout, *o)
}

// Help is the detailed help of `finders coverage`.
func (o *coverageOptions) Help() string {
	return "Classifies every kind of the --kinds file: observe-by-name (ID known before the create), " +
		"observe-by-template (a cloud-assigned ID an ID template renders from spec), list-by-tags " +
		"(cloud-assigned, with a tags or labels field) or report-only; then tells what becomes of a create " +
		"of it that a crash interrupted, given the proofs the provider's finders have: adopt (unattended, with " +
		"the proof), report (for an operator) or could-duplicate (an empty listing that proves nothing clears " +
		"the intent: must be 0). GOAL counts the kinds the kinds file's own columns say must adopt; GOAL-MET " +
		"says every kind's outcome is the goal's and none could duplicate. See docs/recovery.md, Finder " +
		"strategies and coverage."
}

// coverageOutput is the json and yaml form of `finders coverage`.
type coverageOutput struct {
	SchemaVersion int    `json:"schemaVersion"`
	KindsFile     string `json:"kindsFile"`
	// Templates is the --templates file, or "built-in".
	Templates string `json:"templates"`
	// Inventory and Taggers are what the coverage was measured with.
	Inventory       bool                        `json:"inventory"`
	AnyType         bool                        `json:"inventoryAnyType,omitempty"`
	Taggers         map[string]string           `json:"taggers"`
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
	taggers, err := coverageTaggers(o.Tagger)
	if err != nil {
		return err
	}
	// What a provider wired as docs/integrating.md says runs with: every
	// observe kind claims its vacant key, the shipped tags-after
	// declarations, and the rule that an absence proves nothing unless
	// the request carried the tags.
	env := strategy.Env{Templates: templates, Inventory: o.Inventory, VacantKeys: true, DeclaredTagsAfter: true, AbsenceRule: true, Taggers: taggers, ListAnyType: o.AnyType}
	c := strategy.Measure(kinds, env)
	res := coverageOutput{
		SchemaVersion: coverageSchemaVersion, KindsFile: o.Kinds, Templates: source, Inventory: o.Inventory, AnyType: o.AnyType, Taggers: taggers, Provider: o.Provider,
		Providers: c.Providers, Total: c.Total, UnusedTemplates: c.UnusedTemplates,
	}
	if res.Providers == nil {
		res.Providers = []strategy.ProviderCoverage{}
	}
	switch o.List {
	case listAdopt, listReport, listCouldDuplicate:
		res.Kinds = c.FilterVerdict(strategy.Verdict(o.List))
	case listMisses:
		res.Kinds = c.Misses()
	case listAll:
		res.Kinds = c.Kinds
	}
	if format != formatTable {
		return writeData(out, format, res)
	}
	return writeCoverageTable(out, res)
}

// coverageTaggers returns defaultTaggers with flags' values over them,
// each checked.
func coverageTaggers(flags map[string]string) (map[string]string, error) {
	out := maps.Clone(defaultTaggers)
	for p, t := range flags {
		switch t {
		case strategy.TaggerNone, strategy.TaggerCrossplane, strategy.TaggerUID:
			out[p] = t
		default:
			return nil, UsageError("--tagger %s=%s: want %s, %s or %s", p, t, strategy.TaggerNone, strategy.TaggerCrossplane, strategy.TaggerUID)
		}
	}
	return out, nil
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
	t := tabular.New(out, "PROVIDER", "KINDS", "ADOPT", "KEY-VACANT", "UID-TAG", "REPORT", "COULD-DUPLICATE", "GOAL", "GOAL-MET")
	for _, p := range append(slices.Clone(res.Providers), res.Total) {
		met := "yes"
		if !p.GoalMet {
			met = fmt.Sprintf("no (%d missed)", p.GoalMisses)
		}
		t.Row(p.Provider, strconv.Itoa(p.Kinds), strconv.Itoa(p.Adopt), strconv.Itoa(p.AdoptKeyVacant), strconv.Itoa(p.AdoptUIDTag),
			strconv.Itoa(p.Report), strconv.Itoa(p.CouldDuplicate), strconv.Itoa(p.Goal), met)
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
		t = tabular.New(out, "PROVIDER", "TERRAFORM RESOURCE", "STRATEGY", "OUTCOME", "PROOF", "GOAL", "WHY")
		for _, k := range res.Kinds {
			t.Row(k.Provider, k.TerraformResource, string(k.Strategy), string(k.Expectation.Verdict), k.Expectation.Proof, string(k.Goal), k.Expectation.Reason)
		}
		return t.Flush()
	}
	return nil
}
