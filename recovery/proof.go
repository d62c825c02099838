package recovery

import (
	"fmt"
	"strings"
	"time"

	"github.com/intentjournal/intentjournal/journal"
)

// DefaultClockSkew is how far the cloud's clock may lag the provider's
// before a resource of ours looks older than the create that made it. NTP
// keeps both within a second; a minute covers a node whose clock drifted
// badly. The allowance matters only where crossplane tags are the best
// proof (an intent with no UID tag): a look-alike created by another
// cluster within the allowance before our create began is then taken for
// ours. See docs/recovery.md, Ownership.
const DefaultClockSkew = time.Minute

// Proof says why a found resource is known to be ours.
type Proof string

// Proofs, strongest first. An empty Proof means ownership is not proven.
const (
	// ProofIntentID: the resource carries this intent's ID tag.
	ProofIntentID Proof = "IntentID"
	// ProofRecordedID: the journal recorded this ID as the create's result.
	ProofRecordedID Proof = "RecordedID"
	// ProofUID: the resource carries tag intentjournal-uid equal to the
	// managed resource's UID, which its create sent.
	ProofUID Proof = "UIDTag"
	// ProofTags: the resource carries the crossplane-kind, -name and (when
	// known) -providerconfig tags of this managed resource, and the cloud
	// created it after the create began (less the clock-skew allowance).
	// Only an intent whose create sent no UID tag accepts it.
	ProofTags Proof = "CrossplaneTags"
	// ProofKeyVacant: the resource sits at exactly the key a read found
	// free just before the create began (Intent.VacantKey), so it was
	// created after that read; the create did not meet "already exists";
	// and the Finder checked that no other managed resource holds or
	// intends the key (ExternalResource.KeyChecked, no KeyHolders). It is
	// what proves a kind with no tags ours (GCP's DNS record set). Like
	// crossplane tags with a creation time, it cannot tell our create from
	// another cluster's that made the same key in the moments between the
	// read and the create: it adopts, never deletes.
	ProofKeyVacant Proof = "KeyVacant"
	// ProofTagsUntimed: the crossplane tags match, but the cloud reports no
	// creation time, so a look-alike made earlier by another cluster cannot
	// be told apart. It is weak: it adopts only under ModeAdoptOnTags and
	// never deletes.
	ProofTagsUntimed Proof = "CrossplaneTagsUntimed"
)

// proofOrder lists the proofs strongest first.
var proofOrder = []Proof{ProofIntentID, ProofRecordedID, ProofUID, ProofTags, ProofKeyVacant, ProofTagsUntimed}

// rank orders proofs: 0 is the strongest; not proven ranks last.
func (p Proof) rank() int {
	for i, q := range proofOrder {
		if p == q {
			return i
		}
	}
	return len(proofOrder)
}

// Strong reports whether p identifies the exact managed resource (its UID)
// or create (its intent ID, its recorded result): proof enough to delete
// an orphan. Crossplane tags never are: any cluster with the same
// manifests writes the same ones.
func (p Proof) Strong() bool {
	return p == ProofIntentID || p == ProofRecordedID || p == ProofUID
}

// Weak reports whether p proves a resource ours without identifying the
// exact managed resource or create: crossplane tags (timed or not) or a
// vacant key. Another cluster with the same manifests, or a person who
// took the same key in the moments between our read and our create, can
// make a resource with the same proof. A weak proof adopts only a resource
// that matches the arguments the create sent (ExternalResource.Args), so
// that the provider never rewrites someone else's resource; it never
// deletes.
func (p Proof) Weak() bool { return p != "" && !p.Strong() }

// OnlyOnTagsPolicy reports whether p adopts only under ModeAdoptOnTags:
// crossplane tags on a resource whose creation time the cloud does not
// report.
func (p Proof) OnlyOnTagsPolicy() bool { return p == ProofTagsUntimed }

// Verdict is what Judge concluded about one found resource.
type Verdict struct {
	// Proof is how the resource is proven ours; "" when it is not.
	Proof Proof
	// LookAlike is true for a resource that carries this managed
	// resource's crossplane tags but is proven not to be its: it names
	// another UID, lacks the UID tag its create sent, or was created
	// before its create began. Another cluster with the same manifests,
	// a rebuilt cluster, or a person made it. It is never touched.
	LookAlike bool
	// NotOurs says, in one sentence, why the resource is not ours; "" for
	// a resource proven ours.
	NotOurs string
	// Differs is true for a resource that a weak proof would have taken
	// for ours but whose arguments differ from what the create sent
	// (ArgsDifferent): someone else made it. It holds what the create
	// needs, so it blocks the create like a resource at the natural key,
	// and it is never touched.
	Differs bool
}

// Owned returns how r is proven to be the resource c's create made, or ""
// when it is not, with the default clock-skew allowance. See Judge.
func Owned(c *Candidate, r ExternalResource) Proof {
	return Judge(c, r, DefaultClockSkew).Proof
}

// Judge decides whether r is the resource c's create made. A matching name
// alone never proves ownership: a resource created outside Crossplane may
// share it. Neither do crossplane tags alone once the create carried the
// UID tag, nor for a resource the cloud created before the create began
// (less skew): another cluster with the same manifests writes the same
// tags. A resource naming another managed resource's UID is never ours,
// whatever else it carries.
//
// A weak proof (Proof.Weak) holds only for a resource whose arguments the
// Finder found the same as the create's (ArgsSame). One whose arguments
// differ is not ours (Verdict.Differs); one the Finder did not compare
// keeps its proof, and Decide leaves the candidate unresolved.
func Judge(c *Candidate, r ExternalResource, skew time.Duration) Verdict {
	v := judgeProof(c, r, skew)
	if !v.Proof.Weak() || r.Args != ArgsDifferent {
		return v
	}
	what := "its arguments differ from what this create sent"
	if len(r.ArgsDiffer) > 0 {
		what = fmt.Sprintf("its arguments differ from what this create sent (%s)", strings.Join(r.ArgsDiffer, ", "))
	}
	return Verdict{LookAlike: v.Proof != ProofKeyVacant, Differs: true,
		NotOurs: fmt.Sprintf("%s would prove it ours, but %s: someone else made it", weakProofPhrase(v.Proof), what)}
}

// weakProofPhrase says what a weak proof rests on, for messages.
func weakProofPhrase(p Proof) string {
	switch p {
	case ProofKeyVacant:
		return "it sits at the key that was free when this create began, which"
	case ProofTags:
		return "it carries this managed resource's crossplane tags and was created after the create began (allowing for clock skew), which"
	}
	return "it carries this managed resource's crossplane tags, which"
}

// judgeProof is Judge before the arguments rule.
func judgeProof(c *Candidate, r ExternalResource, skew time.Duration) Verdict {
	if skew <= 0 {
		skew = DefaultClockSkew
	}
	ours := c.Intent.Resource.UID
	tagged := tagsMatch(c.ExpectedTags(), r.Tags)
	if uid := r.Tags[TagUID]; uid != "" && uid != ours {
		return Verdict{LookAlike: tagged, NotOurs: fmt.Sprintf("it carries %s=%s, and this managed resource's UID is %s", TagUID, uid, ours)}
	}
	if !c.Intent.ID.IsZero() && r.Tags[TagIntentID] == c.Intent.ID.String() {
		return Verdict{Proof: ProofIntentID}
	}
	if id := c.Intent.Outcome.ExternalName; id != "" && id == r.ID && c.Intent.State == journal.StateSucceeded {
		return Verdict{Proof: ProofRecordedID}
	}
	if ours != "" && r.Tags[TagUID] == ours {
		return Verdict{Proof: ProofUID}
	}
	if v, ok := judgeVacantKey(c, r); ok {
		return v
	}
	if !tagged {
		return Verdict{NotOurs: "it carries neither this managed resource's UID tag nor its crossplane tags"}
	}
	if c.SentUIDTag() {
		return Verdict{LookAlike: true, NotOurs: fmt.Sprintf("it carries this managed resource's crossplane tags but not %s=%s, which this create sent", TagUID, ours)}
	}
	began := c.NotBefore()
	if r.CreatedAt.IsZero() || began.IsZero() {
		return Verdict{Proof: ProofTagsUntimed}
	}
	if r.CreatedAt.Before(began.Add(-skew)) {
		return Verdict{LookAlike: true, NotOurs: fmt.Sprintf("the cloud created it at %s, before this create began at %s (allowing %s of clock skew)",
			r.CreatedAt.UTC().Format(time.RFC3339), began.UTC().Format(time.RFC3339), skew)}
	}
	return Verdict{Proof: ProofTags}
}

// judgeVacantKey applies ProofKeyVacant: false when it does not speak to
// r, leaving the tag rules to decide.
func judgeVacantKey(c *Candidate, r ExternalResource) (Verdict, bool) {
	key := c.Intent.VacantKey
	switch {
	case key == "" || r.AtKey() != key:
		return Verdict{}, false
	case c.metConflict():
		return Verdict{NotOurs: fmt.Sprintf("it sits at %s, which was free when this create began, but the create met \"already exists\": another create took the key first", key)}, true
	case c.SentUIDTag():
		// The UID tag the create sent is the better proof, and r lacks it.
		return Verdict{}, false
	case !r.KeyChecked && tagsMatch(c.ExpectedTags(), r.Tags):
		// Unchecked, the key proves nothing: the crossplane tags may.
		return Verdict{}, false
	case !r.KeyChecked:
		return Verdict{NotOurs: fmt.Sprintf("it sits at %s, which was free when this create began, but the lookup could not check whether another managed resource holds or intends that key", key)}, true
	case len(r.KeyHolders) > 0:
		return Verdict{NotOurs: fmt.Sprintf("it sits at %s, which was free when this create began, but other managed resources claim that key too (%s): which of their creates made it cannot be told",
			key, strings.Join(r.KeyHolders, ", "))}, true
	}
	return Verdict{Proof: ProofKeyVacant}, true
}

// metConflict reports whether the candidate's create met "already
// exists": its intent settled failed, class conflict.
func (c *Candidate) metConflict() bool {
	return c.Intent.State == journal.StateFailed && c.Intent.Outcome.ErrorClass == journal.ErrorClassConflict
}

// tagsMatch reports whether have carries every expected crossplane tag,
// with its value as it is or as a GCP label encodes it (valueMatches).
// Without the kind and name tags nothing matches.
func tagsMatch(want, have map[string]string) bool {
	if want[TagCrossplaneKind] == "" || want[TagCrossplaneName] == "" {
		return false
	}
	for k, v := range want {
		if !valueMatches(v, have[k]) {
			return false
		}
	}
	return true
}

// SentUIDTag reports whether the candidate's create sent the managed
// resource's UID as a tag. An intent says so itself (Intent.UIDTag). A
// create no intent explains (crossplane-runtime's pending mark alone, or an
// unreadable intent annotation) sent it if the managed resource's spec
// carries it: the adapter's Tagger never adds the tag to a resource whose
// create is incomplete, so a tag in the spec was there before any create
// that is still unexplained was dispatched.
func (c *Candidate) SentUIDTag() bool {
	if !c.Intent.ID.IsZero() {
		return c.Intent.UIDTag
	}
	return c.Object != nil && CarriesUIDTag(c.Object.Object, c.Intent.Resource.UID)
}

// CarriesUIDTag reports whether the managed resource obj (its unstructured
// content) carries intentjournal-uid equal to uid in some map field of
// spec.forProvider: the tags or labels its create sends. Any field name
// counts, so no kind needs configuring; so does the value as a GCP label
// encodes it (valueMatches), which for a Kubernetes UID is the UID itself.
func CarriesUIDTag(obj map[string]any, uid string) bool {
	if uid == "" {
		return false
	}
	spec, _ := obj["spec"].(map[string]any)
	fp, _ := spec["forProvider"].(map[string]any)
	for _, v := range fp {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if got, ok := m[TagUID].(string); ok && valueMatches(uid, got) {
			return true
		}
	}
	return false
}

// SentTags reports whether the candidate's create request carried the
// crossplane tags a tag listing looks for (ExpectedTags). An intent says
// whether the spec held them when it began (Intent.TaggedSpec). A create
// no intent explains sent them if the managed resource's spec carries
// them now: a tagger writes them before the first create and never takes
// them away. Whether a kind's create sends the spec's tags at all is the
// kind's fact (TagsAfterCreate), not the candidate's.
func (c *Candidate) SentTags() bool {
	if !c.Intent.ID.IsZero() {
		return c.Intent.TaggedSpec
	}
	return c.Object != nil && CarriesTags(c.Object.Object, c.ExpectedTags())
}

// CrossplaneTags returns the crossplane tags among keys (an intent's
// lookup keys, or the tags a line says upjet sends): the keys a tag
// listing matches, without the natural-key fields.
func CrossplaneTags(keys map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{TagCrossplaneKind, TagCrossplaneName, TagCrossplaneProviderConfig, TagCrossplaneNamespace, TagCrossplaneProviderConfigKind} {
		if v, ok := keys[k]; ok && v != "" {
			out[k] = v
		}
	}
	return out
}

// CarriesTags reports whether the managed resource obj (its unstructured
// content) carries every tag of tags, with its value, in one map field of
// spec.forProvider: the tags or labels its create sends. Any field name
// counts, as for CarriesUIDTag, and so does a value as a GCP label encodes
// it (valueMatches). No tags carry nothing.
func CarriesTags(obj map[string]any, tags map[string]string) bool {
	if len(tags) == 0 {
		return false
	}
	spec, _ := obj["spec"].(map[string]any)
	fp, _ := spec["forProvider"].(map[string]any)
	for _, v := range fp {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		all := true
		for k, want := range tags {
			if got, _ := m[k].(string); !valueMatches(want, got) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// NotBefore returns the earliest moment the cloud can have created a
// resource for this create: when the intent was begun, else (a create no
// intent explains) when the managed resource was created. It is zero when
// neither is known.
func (c *Candidate) NotBefore() time.Time {
	if !c.Intent.CreatedAt.IsZero() {
		return c.Intent.CreatedAt
	}
	if c.Object != nil {
		return c.Object.GetCreationTimestamp().Time
	}
	return time.Time{}
}
