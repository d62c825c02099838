package strategy

import (
	"fmt"
	"slices"

	"github.com/intentjournal/intentjournal/inventory"
)

// Verdict is what becomes of a kind's create that a crash interrupted,
// once the recovery pass has run.
type Verdict string

// The verdicts.
const (
	// Adopt: recovery finds what the create made and proves it ours, so
	// its managed resource is bound to it with no operator; or proves
	// that nothing was made, and the create runs again.
	Adopt Verdict = "adopt"
	// Report: recovery cannot tell, and reports the create for an
	// operator, its managed resource paused or its create kept blocked.
	// Nothing is created again.
	Report Verdict = "report"
	// CouldDuplicate: recovery may take an absence that proves nothing
	// for proof that nothing was made, and run the create again over a
	// resource the first create made: the bug intentjournal exists to
	// end. It must never be.
	CouldDuplicate Verdict = "could-duplicate"
)

// Verdicts lists every verdict.
var Verdicts = []Verdict{Adopt, Report, CouldDuplicate}

// The taggers of Env.Taggers: what a provider writes into a kind's tags
// field before the first create.
const (
	// TaggerNone: nothing (provider-upjet-gcp and -azure by default).
	TaggerNone = "none"
	// TaggerCrossplane: the crossplane tags, upjet's config.TagInitializer
	// (provider-upjet-aws): a weak proof, which another cluster with the
	// same manifests matches too.
	TaggerCrossplane = "crossplane"
	// TaggerUID: the crossplane tags and the managed resource's UID,
	// intentjournal's upjetv2.TagInitializer: a strong proof.
	TaggerUID = "uid"
)

// Env is what a provider runs with beyond its kinds' Facts: what Expect
// needs to tell a kind's outcome.
type Env struct {
	// Templates are the ID templates (DefaultTemplates, or the
	// provider's own).
	Templates Templates
	// Inventory is true when the provider lists its list-by-tags kinds
	// through its cloud's tag lister (upjetv2.WithLister, or an
	// upjetv2.WithInventory of its own). It counts only for a provider
	// Listers names: one with no lister lists nothing.
	Inventory bool
	// VacantKeys is true when every observe kind's create claims the key
	// its Observe found vacant and recovery checks the key's claimants
	// (upjetv2.WithVacantKeys, with the generated controllers' observed
	// keys): the key-vacant proof (recovery.ProofKeyVacant).
	VacantKeys bool
	// TemplateVacantKeysOnly limits VacantKeys to observe-by-template
	// kinds, as the adapter once did: an observe-by-name kind's create
	// claimed no key. It models that past adapter, for the coverage
	// comparisons of the tests; nothing else sets it.
	TemplateVacantKeysOnly bool
	// Taggers says, per provider, what its tagger writes (TaggerNone,
	// TaggerCrossplane, TaggerUID); a provider not named writes nothing.
	Taggers map[string]string
	// DeclaredTagsAfter is true when the provider declares the kinds this
	// package lists as tagged after their create
	// (DeclaredTagsAfterCreate), so that an empty listing proves nothing
	// for them.
	DeclaredTagsAfter bool
	// ListAnyType models the listers before they said what their index
	// lists (inventory.Listing): every type of a lister's provider counted
	// as listed. False counts only the types the shipped listings
	// (inventory.ShippedListings) list.
	ListAnyType bool
	// AbsenceRule is true when an empty listing clears an intent only if
	// the create's request carried the tags the listing looks for
	// (recovery.AbsenceProver): a provider whose tagger
	// writes none, or a kind declared tagged after its create, is
	// reported instead. False models the rule before it, for the coverage
	// comparisons of the tests; intentjournal finders coverage sets it.
	AbsenceRule bool
}

// Listers are the providers for which intentjournal ships a tag lister
// (inventory/aws, inventory/gcp, inventory/azure): the only ones whose
// list-by-tags kinds Env.Inventory makes listable.
var Listers = []string{"aws", "gcp", "azure"}

// listable reports whether env lists f's kind by tags: a lister of its
// provider runs, and its index lists the kind's Terraform resource type
// (the shipped listings), or ListAnyType.
func listable(f Facts, env Env) bool {
	return listing(f, env).Listed
}

// listing is what env's lister lists of f's Terraform resource type.
func listing(f Facts, env Env) inventory.Listing {
	x := inventory.Listing{TerraformResource: f.TerraformResource}
	switch {
	case !env.Inventory:
		x.Evidence = "no inventory lists the kind by its tags"
	case !slices.Contains(Listers, f.Provider):
		x.Evidence = fmt.Sprintf("no lister ships for provider %q", f.Provider)
	case env.ListAnyType:
		x.Listed, x.Evidence = true, "every type counted as listed (ListAnyType)"
	default:
		l, err := inventory.ShippedListings(f.Provider)
		if err != nil {
			x.Evidence = err.Error()
			return x
		}
		x = l.Of(f.TerraformResource)
		x.Evidence = "the lister's index does not list the type: " + x.Evidence
	}
	return x
}

// Expectation is what Expect says of a kind.
type Expectation struct {
	Verdict Verdict `json:"outcome"`
	// Proof is the proof an Adopt rests on (recovery.Proof's names:
	// KeyVacant, UIDTag), or "AbsenceProven" for a listing whose empty
	// answer proves nothing was made.
	Proof string `json:"proof,omitempty"`
	// Reason says why, for people.
	Reason string `json:"reason"`
}

// Proofs Expect names.
const (
	proofKeyVacant = "KeyVacant"
	proofUIDTag    = "UIDTag"
)

// Expect tells what becomes of an interrupted create of the kind f
// describes in a provider running with env. It is computed from
// Classify's strategy and the proofs env gives the finders, so that the
// coverage a provider gets is what its recovery pass does, not what its
// strategy promises:
//
//	observe-by-name, -template  adopt on KeyVacant with VacantKeys (TemplateVacantKeysOnly: templates only);
//	                            else adopt on the UID tag a uid tagger sends; else report
//	list-by-tags                report without an inventory, or without a uid tagger (crossplane tags
//	                            alone are a weak proof); could-duplicate where an empty listing
//	                            clears an intent whose request did not carry the tags (no tagger, or
//	                            tags after the create undeclared) without AbsenceRule, or where the
//	                            tags come after the create and are not declared; report where
//	                            AbsenceRule or the declaration makes an empty listing prove nothing;
//	                            else adopt on the UID tag
//	report-only                 report
func Expect(f Facts, env Env) Expectation {
	d := Classify(f, env.Templates)
	tagger := env.Taggers[f.Provider]
	if tagger == "" {
		tagger = TaggerNone
	}
	switch d.Strategy {
	case ObserveByName, ObserveByTemplate:
		if env.VacantKeys && (!env.TemplateVacantKeysOnly || d.Strategy == ObserveByTemplate) {
			return Expectation{Verdict: Adopt, Proof: proofKeyVacant,
				Reason: "observed at the ID its create's Observe found vacant, no other managed resource claiming it"}
		}
		if tagger == TaggerUID && sentInRequest(f) {
			return Expectation{Verdict: Adopt, Proof: proofUIDTag, Reason: "observed at its ID, carrying the managed resource's UID tag"}
		}
		return Expectation{Verdict: Report, Reason: "observed at its ID, with nothing to prove it ours: no vacant key claimed, no UID tag sent"}
	case ListByTags:
		return expectListing(f, env, tagger)
	}
	return Expectation{Verdict: Report, Reason: d.Reason}
}

// expectListing is Expect for a list-by-tags kind.
func expectListing(f Facts, env Env, tagger string) Expectation {
	if x := listing(f, env); !x.Listed {
		return Expectation{Verdict: Report, Reason: x.Evidence}
	}
	after := f.TagsAtCreate == TagsAfter
	declared := env.DeclaredTagsAfter && DeclaredTagsAfterCreate(f.Provider, f.TerraformResource)
	switch {
	case tagger == TaggerNone && !env.AbsenceRule:
		return Expectation{Verdict: CouldDuplicate,
			Reason: "the provider tags nothing, so a listing finds nothing, and an empty listing clears the intent: the create runs again over what it made"}
	case tagger == TaggerNone:
		return Expectation{Verdict: Report, Reason: "the provider tags nothing: an empty listing proves nothing (AbsenceProvesNothing)"}
	case after && !declared:
		return Expectation{Verdict: CouldDuplicate,
			Reason: fmt.Sprintf("its create tags after the call that makes it (%s), undeclared: a crash in between leaves an untagged resource an empty listing misses, and the create runs again", f.TagsAtCreate)}
	case after:
		return Expectation{Verdict: Report, Reason: "declared tagged after its create: an empty listing proves nothing (AbsenceProvesNothing)"}
	case declared:
		// The adapter declares it whatever the kinds file says (a
		// partition-fallback kind, or a list that disagrees with the
		// file): an empty listing is reported.
		return Expectation{Verdict: Report, Reason: fmt.Sprintf("declared tagged after its create (its create tags %s): an empty listing proves nothing (AbsenceProvesNothing)", f.TagsAtCreate)}
	case tagger == TaggerCrossplane:
		return Expectation{Verdict: Report, Reason: "listed by its crossplane tags, a weak proof another cluster's look-alike shares: what is found is reported"}
	}
	return Expectation{Verdict: Adopt, Proof: proofUIDTag, Reason: "listed by its tags, carrying the managed resource's UID tag; an empty listing proves nothing was made"}
}

// Goal is the independent expectation GOAL-MET compares Expect with, read
// from a kinds file's own columns and not through Classify: a kind whose
// ID the spec determines (K), or that a template names, adopts; a
// cloud-assigned kind adopts only when its create sends a tags field in
// the request in every partition (tags_at_create request, not
// partition-fallback, which the adapter declares tagged after by
// default), a uid tagger writes it and its lister's index lists it;
// every other kind is reported. No kind may duplicate.
func Goal(f Facts, env Env) Verdict {
	if f.IDKnownBeforeCreate || f.IDFromSpec {
		return Adopt
	}
	if tmpl, ok := env.Templates.Lookup(f.TerraformResource); ok && !tmpl.UsesExternalName() {
		return Adopt
	}
	if f.TagsAtCreate == TagsInRequest && len(f.TagFields) > 0 && env.Taggers[f.Provider] == TaggerUID && listable(f, env) {
		return Adopt
	}
	return Report
}

// sentInRequest reports whether f's create sends its tags field in the
// request that makes the resource: TagsInRequest, or
// TagsPartitionFallback, which does so in AWS's commercial partition, the
// one coverage is measured for.
func sentInRequest(f Facts) bool {
	return len(f.TagFields) > 0 && (f.TagsAtCreate == TagsInRequest || f.TagsAtCreate == TagsPartitionFallback)
}
