package strategy

import (
	"slices"
)

// Coverage is how a list of kinds falls to the strategies and the
// outcomes: per provider, in total, and kind by kind.
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
	// The kinds per outcome (Expect): Adopt, of which AdoptKeyVacant and
	// AdoptUIDTag on each proof; Report; CouldDuplicate, which must be 0.
	Adopt          int `json:"adopt"`
	AdoptKeyVacant int `json:"adoptKeyVacant"`
	AdoptUIDTag    int `json:"adoptUIDTag"`
	Report         int `json:"report"`
	CouldDuplicate int `json:"couldDuplicate"`
	// Goal counts the kinds the independent expectation (Goal) says must
	// adopt; GoalMisses the kinds whose outcome differs from it.
	Goal       int `json:"goal"`
	GoalMisses int `json:"goalMisses"`
	// GoalMet is true when no kind misses the goal and none could
	// duplicate.
	GoalMet bool `json:"goalMet"`
}

// KindDecision is one kind's strategy and outcome.
type KindDecision struct {
	Provider           string `json:"provider"`
	TerraformResource  string `json:"terraformResource"`
	ExternalNameConfig string `json:"externalNameConfig"`
	Decision
	Expectation Expectation `json:"expectation"`
	// Goal is the outcome the independent expectation wants.
	Goal Verdict `json:"goal"`
}

// UnusedTemplate is a template that decides no kind.
type UnusedTemplate struct {
	TerraformResource string `json:"terraformResource"`
	Reason            string `json:"reason"`
}

// Measure classifies every kind in env (Classify with env.Templates,
// then Expect) and counts the strategies and outcomes. The goal is
// measured apart, from the kinds' own columns (Goal): every kind whose
// outcome differs from it is a miss.
func Measure(kinds []Facts, env Env) Coverage {
	c := Coverage{Total: ProviderCoverage{Provider: "total", GoalMet: true}, Kinds: make([]KindDecision, 0, len(kinds))}
	t := env.Templates
	index := map[string]int{}
	used := map[string]bool{}      // resource types whose template decided a kind
	notUsed := map[string]string{} // why a template did not decide a kind of its type
	for _, f := range kinds {
		i, ok := index[f.Provider]
		if !ok {
			i = len(c.Providers)
			index[f.Provider] = i
			c.Providers = append(c.Providers, ProviderCoverage{Provider: f.Provider, GoalMet: true})
		}
		k := KindDecision{Provider: f.Provider, TerraformResource: f.TerraformResource,
			ExternalNameConfig: f.ExternalNameConfig, Decision: Classify(f, t), Expectation: Expect(f, env), Goal: Goal(f, env)}
		c.Kinds = append(c.Kinds, k)
		c.Providers[i].add(k)
		c.Total.add(k)
		if _, ok := t.Lookup(f.TerraformResource); ok {
			if k.Strategy == ObserveByTemplate {
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

func (p *ProviderCoverage) add(k KindDecision) {
	p.Kinds++
	switch k.Strategy {
	case ObserveByName:
		p.ObserveByName++
	case ObserveByTemplate:
		p.ObserveByTemplate++
	case ListByTags:
		p.ListByTags++
	case ReportOnly:
		p.ReportOnly++
	}
	switch k.Expectation.Verdict {
	case Adopt:
		p.Adopt++
		switch k.Expectation.Proof {
		case proofKeyVacant:
			p.AdoptKeyVacant++
		case proofUIDTag:
			p.AdoptUIDTag++
		}
	case Report:
		p.Report++
	case CouldDuplicate:
		p.CouldDuplicate++
	}
	if k.Goal == Adopt {
		p.Goal++
	}
	if k.Goal != k.Expectation.Verdict {
		p.GoalMisses++
	}
	p.GoalMet = p.GoalMisses == 0 && p.CouldDuplicate == 0
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

// FilterVerdict returns the decisions with one of the outcomes, in order.
func (c Coverage) FilterVerdict(o ...Verdict) []KindDecision {
	out := []KindDecision{}
	for _, k := range c.Kinds {
		if slices.Contains(o, k.Expectation.Verdict) {
			out = append(out, k)
		}
	}
	return out
}

// Misses returns the decisions whose outcome differs from the goal, in
// order.
func (c Coverage) Misses() []KindDecision {
	out := []KindDecision{}
	for _, k := range c.Kinds {
		if k.Goal != k.Expectation.Verdict {
			out = append(out, k)
		}
	}
	return out
}
