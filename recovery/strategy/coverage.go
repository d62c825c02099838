package strategy

import (
	"slices"
)

// Coverage is how a list of kinds falls to the strategies: per provider,
// in total, and kind by kind.
type Coverage struct {
	// Providers are the per-provider counts, in the order the providers
	// first appear in the kinds.
	Providers []ProviderCoverage `json:"providers"`
	// Total sums Providers; its Provider is "total".
	Total ProviderCoverage `json:"total"`
	// Kinds are the decisions, in the order of the kinds given.
	Kinds []KindDecision `json:"kinds"`
	// UnusedTemplates are the templates that decide no kind, with why.
	UnusedTemplates []UnusedTemplate `json:"unusedTemplates,omitempty"`
}

// ProviderCoverage counts one provider's kinds.
type ProviderCoverage struct {
	Provider string `json:"provider"`
	Kinds    int    `json:"kinds"`
	// The kinds per strategy.
	ObserveByName     int `json:"observeByName"`
	ObserveByTemplate int `json:"observeByTemplate"`
	ListByTags        int `json:"listByTags"`
	ReportOnly        int `json:"reportOnly"`
	// Covered counts the kinds with a strategy other than report-only.
	Covered int `json:"covered"`
	// Goal counts the kinds that must be covered with no per-kind input:
	// the ID known before the create, or a tags or labels field.
	Goal int `json:"goal"`
	// GoalCovered counts the Goal kinds that Classify covers with no
	// template at all.
	GoalCovered int `json:"goalCovered"`
	// GoalMet is true when GoalCovered is Goal.
	GoalMet bool `json:"goalMet"`
}

// KindDecision is one kind's decision.
type KindDecision struct {
	Provider           string `json:"provider"`
	TerraformResource  string `json:"terraformResource"`
	ExternalNameConfig string `json:"externalNameConfig"`
	Decision
}

// UnusedTemplate is a template that decides no kind.
type UnusedTemplate struct {
	TerraformResource string `json:"terraformResource"`
	Reason            string `json:"reason"`
}

// Measure classifies every kind with t and counts the result. The goal is
// measured apart: every kind whose ID is known before the create, or
// that has a tags field, must be covered by Classify with no template.
func Measure(kinds []Facts, t Templates) Coverage {
	c := Coverage{Total: ProviderCoverage{Provider: "total"}, Kinds: make([]KindDecision, 0, len(kinds))}
	index := map[string]int{}
	used := map[string]bool{}      // resource types whose template decided a kind
	notUsed := map[string]string{} // why a template did not decide a kind of its type
	for _, f := range kinds {
		i, ok := index[f.Provider]
		if !ok {
			i = len(c.Providers)
			index[f.Provider] = i
			c.Providers = append(c.Providers, ProviderCoverage{Provider: f.Provider})
		}
		d := Classify(f, t)
		c.Kinds = append(c.Kinds, KindDecision{Provider: f.Provider, TerraformResource: f.TerraformResource,
			ExternalNameConfig: f.ExternalNameConfig, Decision: d})
		goal := f.IDKnownBeforeCreate || len(f.TagFields) > 0
		goalCovered := goal && Classify(f, Templates{}).Strategy != ReportOnly
		c.Providers[i].add(d.Strategy, goal, goalCovered)
		c.Total.add(d.Strategy, goal, goalCovered)
		if _, ok := t.Lookup(f.TerraformResource); ok {
			if d.Strategy == ObserveByTemplate {
				used[f.TerraformResource] = true
			} else {
				notUsed[f.TerraformResource] = unusedReason(f)
			}
		}
	}
	for _, r := range t.Resources() {
		if used[r] {
			continue
		}
		why, ok := notUsed[r]
		if !ok {
			why = "no kind measured has this Terraform resource type"
		}
		c.UnusedTemplates = append(c.UnusedTemplates, UnusedTemplate{TerraformResource: r, Reason: why})
	}
	return c
}

// unusedReason says why the template of f's resource type did not decide f.
func unusedReason(f Facts) string {
	if f.IDKnownBeforeCreate || f.IDFromSpec {
		return "the kind's ID is known before the create: observe-by-name needs no template"
	}
	return "the template uses .external_name, which a cloud-assigned kind does not know before the create"
}

func (p *ProviderCoverage) add(s Strategy, goal, goalCovered bool) {
	p.Kinds++
	switch s {
	case ObserveByName:
		p.ObserveByName++
	case ObserveByTemplate:
		p.ObserveByTemplate++
	case ListByTags:
		p.ListByTags++
	case ReportOnly:
		p.ReportOnly++
	}
	if s != ReportOnly {
		p.Covered++
	}
	if goal {
		p.Goal++
	}
	if goalCovered {
		p.GoalCovered++
	}
	p.GoalMet = p.GoalCovered == p.Goal
}

// Filter returns the decisions with one of the strategies, in order.
func (c Coverage) Filter(s ...Strategy) []KindDecision {
	out := []KindDecision{}
	for _, k := range c.Kinds {
		if slices.Contains(s, k.Strategy) {
			out = append(out, k)
		}
	}
	return out
}
