package strategy

import (
	"fmt"
	"strings"
)

// Strategy is how the recovery pass finds what a kind's interrupted create
// made.
type Strategy string

// The strategies, best first.
const (
	// ObserveByName looks the resource up through the provider's Observe
	// (a Terraform read) by the ID the create would have made, which the
	// kind's own GetIDFn builds from spec, setup and external name.
	ObserveByName Strategy = "observe-by-name"
	// ObserveByTemplate does the same with the ID a declarative ID
	// template renders from spec and setup, for a kind whose ID the cloud
	// assigns but the spec determines (a DNS record set).
	ObserveByTemplate Strategy = "observe-by-template"
	// ListByTags lists the cloud's resources of the kind by the crossplane
	// tags or labels the create sent.
	ListByTags Strategy = "list-by-tags"
	// ReportOnly finds nothing: an unsettled create of the kind is
	// reported for an operator, never adopted or cleared.
	ReportOnly Strategy = "report-only"
)

// Strategies lists every strategy, best first.
var Strategies = []Strategy{ObserveByName, ObserveByTemplate, ListByTags, ReportOnly}

// Valid reports whether s is one of Strategies.
func (s Strategy) Valid() bool {
	switch s {
	case ObserveByName, ObserveByTemplate, ListByTags, ReportOnly:
		return true
	}
	return false
}

// Facts are what the classification needs to know of one kind: what
// upjet's configuration of the kind says, nothing of any one resource.
type Facts struct {
	// Provider names the provider, e.g. aws, gcp or azure.
	Provider string `json:"provider"`
	// TerraformResource is the Terraform resource type, e.g.
	// google_dns_record_set. Templates are keyed by it.
	TerraformResource string `json:"terraformResource"`
	// IDKnownBeforeCreate is true when the provider's GetIDFn builds the
	// real Terraform ID from spec, setup and the initialised external name
	// before the create runs (NameAsIdentifier, ParameterAsIdentifier,
	// templates bound to arguments and setup); false when the cloud
	// assigns it (IdentifierFromProvider).
	IDKnownBeforeCreate bool `json:"idKnownBeforeCreate"`
	// IDFromSpec is true for a kind with no external name before the
	// create (upjet's DisableNameInitializer) whose GetIDFn nonetheless
	// builds the Terraform ID from spec and setup alone, with an empty
	// external name: upjet's FormattedIdentifierFromProvider and the
	// configurations built like it. The ID is known before the create,
	// though not the external name, which the kind's GetExternalNameFn
	// makes of the state. A kinds file does not carry it yet.
	IDFromSpec bool `json:"idFromSpec,omitempty"`
	// ExternalNameConfig names the kind's external-name configuration, for
	// people: NameAsIdentifier, IdentifierFromProvider, Templated:...,
	// custom:<function>.
	ExternalNameConfig string `json:"externalNameConfig"`
	// TagFields are the map fields of spec.forProvider that hold tags or
	// labels (tags, labels, userLabels), empty when the kind has none.
	TagFields []string `json:"tagFields,omitempty"`
	// Detail is free text: the kind's upjet template or parameter.
	Detail string `json:"detail,omitempty"`
	// TagsAtCreate says when the kind's create sends the tags of its
	// TagFields to the cloud: TagsInRequest, TagsAfter or
	// TagsPartitionFallback; empty for a kind with no tags field, and
	// where it is not known (KindFacts: upjet's configuration does not
	// say; a provider declares TagsAfterCreate).
	TagsAtCreate string `json:"tagsAtCreate,omitempty"`
	// TagsAtCreateEvidence says where TagsAtCreate was read: the file and
	// line of the Terraform provider's source (hack/tagsderive), or why a
	// value is kept where the source could not tell. A kinds file's
	// eighth column; empty in a seven-column file.
	TagsAtCreateEvidence string `json:"tagsAtCreateEvidence,omitempty"`
}

// Decision is a kind's strategy and why it was chosen.
type Decision struct {
	Strategy Strategy `json:"strategy"`
	Reason   string   `json:"reason"`
}

// Classify chooses the strategy of the kind f describes, given the ID
// templates t (keyed by Terraform resource type). It is a pure function of
// its arguments; the order of the rules is the package documentation's.
func Classify(f Facts, t Templates) Decision {
	tmpl, hasTemplate := t.Lookup(f.TerraformResource)
	if f.IDKnownBeforeCreate {
		reason := fmt.Sprintf("the ID is known before the create (%s): Observe by the ID the create would have made", f.ExternalNameConfig)
		if hasTemplate {
			reason += "; its ID template is not needed and is not used"
		}
		return Decision{Strategy: ObserveByName, Reason: reason}
	}
	if f.IDFromSpec {
		reason := fmt.Sprintf("the cloud names the resource, but its ID is built from spec and setup before the create (%s): Observe by that ID, adopt by the external name the state gives", f.ExternalNameConfig)
		if hasTemplate {
			reason += "; its ID template is not needed and is not used"
		}
		return Decision{Strategy: ObserveByName, Reason: reason}
	}
	var notes []string
	if hasTemplate {
		if !tmpl.UsesExternalName() {
			return Decision{Strategy: ObserveByTemplate,
				Reason: "the cloud assigns the ID and spec determines it: Observe by the ID the kind's template renders"}
		}
		notes = append(notes, "its ID template uses .external_name, which a cloud-assigned kind does not know before the create")
	}
	if len(f.TagFields) > 0 {
		reason := fmt.Sprintf("the cloud assigns the ID: list by the crossplane tags in spec.forProvider.%s", strings.Join(f.TagFields, ", spec.forProvider."))
		return Decision{Strategy: ListByTags, Reason: withNotes(reason, notes)}
	}
	reason := "the cloud assigns the ID, the kind has no tags or labels field"
	if !hasTemplate {
		reason += " and no ID template"
	}
	return Decision{Strategy: ReportOnly, Reason: withNotes(reason, notes)}
}

func withNotes(reason string, notes []string) string {
	if len(notes) == 0 {
		return reason
	}
	return reason + "; " + strings.Join(notes, "; ")
}
