package recovery

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// TestDecideOwnership is the decision table for look-alikes: cloud
// resources that carry a managed resource's crossplane tags but that
// another cluster, a rebuilt cluster or a person made (issue #15).
func TestDecideOwnership(t *testing.T) {
	const uid, other = "u1", "u-other-cluster"
	began := t1
	withUID := func(tags map[string]string, u string) map[string]string {
		out := cloneTags(tags)
		out[TagUID] = u
		return out
	}
	// res is a resource whose finder compared it with the create's
	// arguments and found them the same; differ and unchecked change that.
	res := func(id string, tags map[string]string, at time.Time, byTags bool) ExternalResource {
		return ExternalResource{ID: id, Tags: tags, CreatedAt: at, MatchedByTags: byTags, Args: ArgsSame}
	}
	differ := func(r ExternalResource, args ...string) ExternalResource {
		r.Args, r.ArgsDiffer = ArgsDifferent, args
		return r
	}
	unchecked := func(r ExternalResource) ExternalResource {
		r.Args = ArgsUnchecked
		return r
	}
	skew := DefaultClockSkew
	type row struct {
		reason     string
		uidTag     bool // the create sent the UID tag
		deleted    bool
		mode       Mode
		mod        func(*Candidate)
		found      []ExternalResource
		outcome    report.Outcome
		why        string
		adopt      string
		orphans    []string
		lookAlikes []string
		proofs     map[string]string // found ID -> proof ("" not ours)
	}
	conflicted := func(c *Candidate) {
		c.Intent.State = journal.StateFailed
		c.Intent.Outcome.ErrorClass = journal.ErrorClassConflict
	}
	const vacantKey = "zones/z/records/www/A"
	vacant := func(c *Candidate) { c.Intent.VacantKey = vacantKey }
	cases := map[string]row{
		"LookAlikeOnlyByKey": {
			reason:  "a name-keyed MR whose only match is a look-alike is paused: never adopted",
			uidTag:  true,
			found:   []ExternalResource{res("rs-theirs", ourTags, t0, false)},
			outcome: report.OutcomeConflict, why: ReasonLookAlike,
			proofs: map[string]string{"rs-theirs": ""},
		},
		"LookAlikeOnlyByTags": {
			reason:  "an ID-keyed MR whose only match is a look-alike found by tags: nothing of ours exists, the create may run",
			uidTag:  true,
			found:   []ExternalResource{res("net-theirs", ourTags, t0, true)},
			outcome: report.OutcomeCleared, why: ReasonNothingCreated, lookAlikes: []string{"net-theirs"},
			proofs: map[string]string{"net-theirs": ""},
		},
		"LookAlikeByTagsAfterConflict": {
			reason:  "a create that met 409 proves the key is held: a look-alike found by tags then blocks, never cleared into another 409",
			uidTag:  true,
			mod:     conflicted,
			found:   []ExternalResource{res("rs-theirs", ourTags, t0, true)},
			outcome: report.OutcomeConflict, why: ReasonLookAlike,
			proofs: map[string]string{"rs-theirs": ""},
		},
		"NothingFoundAfterConflict": {
			reason:  "a create that met 409 and a lookup that finds nothing: what holds the key is unseen, so pause and report",
			uidTag:  true,
			mod:     conflicted,
			outcome: report.OutcomeConflict, why: ReasonUnseenConflict,
			proofs: map[string]string{},
		},
		"OursByTagsAfterConflict": {
			reason:  "a 409 on a retried create whose first attempt made ours: adopted",
			uidTag:  true,
			mod:     conflicted,
			found:   []ExternalResource{res("rs-ours", withUID(ourTags, uid), t2, true)},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "rs-ours",
			proofs: map[string]string{"rs-ours": string(ProofUID)},
		},
		"LookAlikePlusOurs": {
			reason: "ours (UID tag) is adopted; the older look-alike is reported, not an orphan of ours",
			uidTag: true,
			found: []ExternalResource{
				res("net-theirs", ourTags, t0, true),
				res("net-ours", withUID(ourTags, uid), t2, true),
			},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-ours", lookAlikes: []string{"net-theirs"},
			proofs: map[string]string{"net-theirs": "", "net-ours": string(ProofUID)},
		},
		"LookAlikeNewerThanOurs": {
			reason: "a look-alike made after ours by another cluster, without our UID, is still not ours",
			uidTag: true,
			found: []ExternalResource{
				res("net-ours", withUID(ourTags, uid), t2, true),
				res("net-theirs", ourTags, t3, true),
			},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-ours", lookAlikes: []string{"net-theirs"},
			proofs: map[string]string{"net-theirs": "", "net-ours": string(ProofUID)},
		},
		"VacantKeyAdopts": {
			reason:  "a tagless resource at exactly the key a read found free before the intent, with no other managed resource holding or intending it, is ours",
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey, KeyChecked: true, Args: ArgsSame}},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: vacantKey,
			proofs: map[string]string{vacantKey: string(ProofKeyVacant)},
		},
		// Issue #32, item 3: an observe-by-name kind's key is the
		// Terraform ID its GetIDFn builds; the external name it adopts
		// is another string.
		"VacantKeyAtTerraformID": {
			reason:  "a resource found at the Terraform ID a read found free is adopted by its external name",
			mod:     vacant,
			found:   []ExternalResource{{ID: "www", Key: vacantKey, KeyChecked: true, Args: ArgsSame}},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "www",
			proofs: map[string]string{"www": string(ProofKeyVacant)},
		},
		"VacantKeyElsewhere": {
			reason:  "a resource whose external name is the vacant key but that was found at another Terraform ID is not proven by it",
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey, Key: "zones/other/records/www/A", KeyChecked: true, Args: ArgsSame}},
			outcome: report.OutcomeConflict, why: ReasonNotOurs,
			proofs: map[string]string{vacantKey: ""},
		},
		// Issue #29: a weak proof adopts only what matches the create.
		"VacantKeyArgsDiffer": {
			reason:  "a record someone made at the key between the probe and the create differs from what the create sent: a conflict, never adopted (the provider would rewrite it)",
			mod:     vacant,
			found:   []ExternalResource{differ(ExternalResource{ID: vacantKey, KeyChecked: true}, "rrdatas", "ttl")},
			outcome: report.OutcomeConflict, why: ReasonArgsDiffer,
			proofs: map[string]string{vacantKey: ""},
		},
		"VacantKeyArgsUnchecked": {
			reason:  "a weak proof whose finder did not compare the arguments does not adopt: reported, the create kept blocked",
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey, KeyChecked: true}},
			outcome: report.OutcomeUnresolved, why: ReasonWeakProof,
			proofs: map[string]string{vacantKey: string(ProofKeyVacant)},
		},
		"TagsWithinSkewArgsDiffer": {
			reason:  "a look-alike another cluster made within the clock-skew allowance, with other arguments, is not ours; found by tags it still blocks, so an operator decides",
			found:   []ExternalResource{differ(res("net-theirs", ourTags, began.Add(-skew/2), true), "cidr_block")},
			outcome: report.OutcomeConflict, why: ReasonArgsDiffer,
			proofs: map[string]string{"net-theirs": ""},
		},
		"TagsWithinSkewOursBesideDiffering": {
			reason:  "of two resources with our tags made within the allowance, the one matching the create is adopted and the differing one is a look-alike, untouched",
			found:   []ExternalResource{differ(res("net-theirs", ourTags, began.Add(-skew/2), true), "cidr_block"), res("net-1", ourTags, t2, true)},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-1", lookAlikes: []string{"net-theirs"},
			proofs: map[string]string{"net-theirs": "", "net-1": string(ProofTags)},
		},
		"TagsUnchecked": {
			reason:  "crossplane tags with a creation time, not compared with the create: reported, not adopted",
			found:   []ExternalResource{unchecked(res("net-1", ourTags, t2, true))},
			outcome: report.OutcomeUnresolved, why: ReasonWeakProof,
			proofs: map[string]string{"net-1": string(ProofTags)},
		},
		"UntimedAdoptOnTagsArgsDiffer": {
			reason:  "adopt-on-tags adopts on untimed tags only what matches the create",
			mode:    ModeAdoptOnTags,
			found:   []ExternalResource{differ(res("net-1", ourTags, time.Time{}, true), "cidr_block")},
			outcome: report.OutcomeConflict, why: ReasonArgsDiffer,
			proofs: map[string]string{"net-1": ""},
		},
		"StrongProofArgsDiffer": {
			reason:  "a strong proof adopts although the arguments differ: it is our own resource, drifted, and the provider brings it back to spec",
			uidTag:  true,
			found:   []ExternalResource{differ(res("net-1", withUID(ourTags, uid), t2, true), "cidr_block")},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-1",
			proofs: map[string]string{"net-1": string(ProofUID)},
		},
		"VacantKeyTwin": {
			reason:  "another managed resource holds or intends the same key: either create may have made it, so neither adopts",
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey, KeyChecked: true, KeyHolders: []string{"team-b/www"}}},
			outcome: report.OutcomeConflict, why: ReasonNotOurs,
			proofs: map[string]string{vacantKey: ""},
		},
		"VacantKeyUnchecked": {
			reason:  "a finder that did not check the key's holders proves nothing by the vacant key",
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey}},
			outcome: report.OutcomeConflict, why: ReasonNotOurs,
			proofs: map[string]string{vacantKey: ""},
		},
		"VacantKeyUncheckedTagged": {
			reason:  "an unchecked vacant key proves nothing, but does not hide the crossplane tags the resource carries: their weak proof still speaks",
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey, Tags: ourTags, Args: ArgsSame}},
			outcome: report.OutcomeUnresolved, why: ReasonWeakProof,
			proofs: map[string]string{vacantKey: string(ProofTagsUntimed)},
		},
		"VacantKeyOtherID": {
			reason:  "a resource at another key than the one read free is not proven by it",
			mod:     vacant,
			found:   []ExternalResource{{ID: "zones/z/records/other/A", KeyChecked: true}},
			outcome: report.OutcomeConflict, why: ReasonNotOurs,
			proofs: map[string]string{"zones/z/records/other/A": ""},
		},
		"VacantKeyAfterConflict": {
			reason: "the create met 409: another create took the key between the read and ours",
			mod: func(c *Candidate) {
				vacant(c)
				conflicted(c)
			},
			found:   []ExternalResource{{ID: vacantKey, KeyChecked: true}},
			outcome: report.OutcomeConflict, why: ReasonNotOurs,
			proofs: map[string]string{vacantKey: ""},
		},
		"VacantKeyUIDTagSent": {
			reason:  "a create that sent the UID tag accepts only a resource that carries it, whatever key it sits at",
			uidTag:  true,
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey, KeyChecked: true}},
			outcome: report.OutcomeConflict, why: ReasonNotOurs,
			proofs: map[string]string{vacantKey: ""},
		},
		"VacantKeyDeleted": {
			reason:  "an MR deleted mid-create whose resource is proven by the vacant key: an orphan, reported",
			deleted: true,
			mod:     vacant,
			found:   []ExternalResource{{ID: vacantKey, KeyChecked: true}},
			outcome: report.OutcomeOrphan, why: ReasonMRDeleted, orphans: []string{vacantKey},
			proofs: map[string]string{vacantKey: string(ProofKeyVacant)},
		},
		"UIDMismatch": {
			reason:  "a resource naming another UID is never ours, even for an intent from before the UID tag",
			found:   []ExternalResource{res("net-x", withUID(ourTags, other), t2, true)},
			outcome: report.OutcomeCleared, why: ReasonNothingCreated, lookAlikes: []string{"net-x"},
			proofs: map[string]string{"net-x": ""},
		},
		"UIDMismatchBeatsRecordedID": {
			reason: "another UID tag outweighs a recorded ID",
			mod: func(c *Candidate) {
				c.Intent.State, c.Intent.Outcome.ExternalName = journal.StateSucceeded, "net-x"
			},
			found:   []ExternalResource{res("net-x", withUID(ourTags, other), t2, false)},
			outcome: report.OutcomeConflict, why: ReasonLookAlike,
			proofs: map[string]string{"net-x": ""},
		},
		"PreUpgradeTagsAfterBegin": {
			reason:  "an intent begun before the UID tag existed still adopts on crossplane tags made after it began",
			found:   []ExternalResource{res("net-1", ourTags, t2, true)},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-1",
			proofs: map[string]string{"net-1": string(ProofTags)},
		},
		"PreUpgradeTagsBeforeBegin": {
			reason:  "crossplane tags on a resource older than the intent prove nothing: a look-alike",
			found:   []ExternalResource{res("rs-old", ourTags, t0, false)},
			outcome: report.OutcomeConflict, why: ReasonLookAlike,
			proofs: map[string]string{"rs-old": ""},
		},
		"SkewBoundaryInside": {
			reason:  "created exactly the clock-skew allowance before the intent began: still ours",
			found:   []ExternalResource{res("net-1", ourTags, began.Add(-skew), true)},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-1",
			proofs: map[string]string{"net-1": string(ProofTags)},
		},
		"SkewBoundaryOutside": {
			reason:  "created one nanosecond earlier than the allowance: a look-alike",
			found:   []ExternalResource{res("net-1", ourTags, began.Add(-skew-time.Nanosecond), true)},
			outcome: report.OutcomeCleared, why: ReasonNothingCreated, lookAlikes: []string{"net-1"},
			proofs: map[string]string{"net-1": ""},
		},
		"NoCreationTime": {
			reason:  "tags alone with no creation time are weak: reported, the create kept blocked",
			found:   []ExternalResource{res("net-1", ourTags, time.Time{}, true)},
			outcome: report.OutcomeUnresolved, why: ReasonWeakProof,
			proofs: map[string]string{"net-1": string(ProofTagsUntimed)},
		},
		"NoCreationTimeAdoptOnTags": {
			reason:  "the explicit per-kind policy adopts on the weak proof",
			mode:    ModeAdoptOnTags,
			found:   []ExternalResource{res("net-1", ourTags, time.Time{}, true)},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-1",
			proofs: map[string]string{"net-1": string(ProofTagsUntimed)},
		},
		"NoCreationTimeUIDTagged": {
			reason:  "with the UID tag sent, an untimed resource without it is a look-alike, not weak proof",
			uidTag:  true,
			found:   []ExternalResource{res("net-1", ourTags, time.Time{}, true)},
			outcome: report.OutcomeCleared, why: ReasonNothingCreated, lookAlikes: []string{"net-1"},
			proofs: map[string]string{"net-1": ""},
		},
		"StrongestProofNotOldest": {
			reason: "choose by proof first: the UID-tagged copy over an older one proven by tags",
			found: []ExternalResource{
				res("net-tags", ourTags, t1, true),
				res("net-uid", withUID(ourTags, uid), t3, true),
			},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-uid", orphans: []string{"net-tags"},
			proofs: map[string]string{"net-tags": string(ProofTags), "net-uid": string(ProofUID)},
		},
		"AfterIntentBeforeOlder": {
			reason: "among equal proofs, one made after the intent began beats an older one",
			uidTag: true,
			found: []ExternalResource{
				res("net-early", withUID(ourTags, uid), t0.Add(-time.Hour), true),
				res("net-after", withUID(ourTags, uid), t2, true),
			},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "net-after", orphans: []string{"net-early"},
			proofs: map[string]string{"net-early": string(ProofUID), "net-after": string(ProofUID)},
		},
		"NoIntentSpecTagged": {
			reason: "a create no intent explains, on an MR whose spec carries its UID tag, sent the tag: an untagged look-alike is not ours",
			mod: func(c *Candidate) {
				c.Intent = journal.Intent{Resource: c.Intent.Resource}
				c.Object.Object["spec"].(map[string]any)["forProvider"] = map[string]any{"tags": map[string]any{TagUID: uid}}
				c.Object.SetCreationTimestamp(metav1.NewTime(began))
			},
			found:   []ExternalResource{res("rs-theirs", ourTags, began.Add(-time.Second), false)},
			outcome: report.OutcomeConflict, why: ReasonLookAlike,
			proofs: map[string]string{"rs-theirs": ""},
		},
		"NoIntentSpecUntagged": {
			reason: "a create no intent explains, from before the UID tag: crossplane tags made after the MR prove it",
			mod: func(c *Candidate) {
				c.Intent = journal.Intent{Resource: c.Intent.Resource}
				c.Object.SetCreationTimestamp(metav1.NewTime(began))
			},
			found:   []ExternalResource{res("rs-1", ourTags, began.Add(time.Second), false)},
			outcome: report.OutcomeAdopted, why: ReasonAdopted, adopt: "rs-1",
			proofs: map[string]string{"rs-1": string(ProofTags)},
		},
		"DeletedLookAlike": {
			reason: "a deleted MR's look-alike is no orphan of ours",
			uidTag: true, deleted: true,
			found:   []ExternalResource{res("net-theirs", ourTags, t2, true)},
			outcome: report.OutcomeCleared, why: ReasonNothingCreated, lookAlikes: []string{"net-theirs"},
			proofs: map[string]string{"net-theirs": ""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := candidate(tc.deleted)
			c.Intent.Resource.UID = uid
			c.Intent.CreatedAt = began
			c.Intent.UIDTag = tc.uidTag
			if tc.mod != nil {
				tc.mod(c)
			}
			d := Decide(c, tc.found, nil, Rules{Mode: tc.mode})
			if d.Outcome != tc.outcome || d.Reason != tc.why {
				t.Errorf("%s\nDecide: %s/%s, want %s/%s (%s)", tc.reason, d.Outcome, d.Reason, tc.outcome, tc.why, d.Message)
			}
			adopt := ""
			if d.Adopt != nil {
				adopt = d.Adopt.ID
			}
			if adopt != tc.adopt {
				t.Errorf("%s\nadopted %q, want %q", tc.reason, adopt, tc.adopt)
			}
			if diff := cmp.Diff(tc.orphans, ids2(d.Orphans)); diff != "" {
				t.Errorf("%s\norphans (-want +got):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.lookAlikes, ids2(d.LookAlikes)); diff != "" {
				t.Errorf("%s\nlook-alikes (-want +got):\n%s", tc.reason, diff)
			}
			proofs := map[string]string{}
			for _, f := range d.Found {
				proofs[f.ID] = f.Proof
				if f.Owned != (f.Proof != "") {
					t.Errorf("%s\nfound %s: owned %v with proof %q", tc.reason, f.ID, f.Owned, f.Proof)
				}
				if !f.Owned && f.NotOurs == "" {
					t.Errorf("%s\nfound %s is not ours but the report does not say why", tc.reason, f.ID)
				}
			}
			if diff := cmp.Diff(tc.proofs, proofs); diff != "" {
				t.Errorf("%s\nproofs (-want +got):\n%s", tc.reason, diff)
			}
			if (d.Outcome.NeedsAttention() || len(d.LookAlikes) > 0) && d.Action == "" {
				t.Errorf("%s\nno action for the operator: %s", tc.reason, d.Message)
			}
			for _, l := range d.LookAlikes {
				if d.Adopt != nil && d.Adopt.ID == l.ID {
					t.Errorf("%s\nadopted look-alike %s", tc.reason, l.ID)
				}
			}
		})
	}
}

// TestProofStrength pins which proofs may delete an orphan.
func TestProofStrength(t *testing.T) {
	want := map[Proof]bool{ProofIntentID: true, ProofRecordedID: true, ProofUID: true, ProofTags: false, ProofKeyVacant: false, ProofTagsUntimed: false, "": false}
	for p, strong := range want {
		if p.Strong() != strong {
			t.Errorf("%q.Strong() = %v, want %v", p, p.Strong(), strong)
		}
	}
	for _, p := range proofOrder {
		if p.Weak() == p.Strong() {
			t.Errorf("%q is both or neither weak and strong", p)
		}
	}
	if Proof("").Weak() {
		t.Error("no proof is not a weak proof")
	}
	if !ProofTagsUntimed.OnlyOnTagsPolicy() || ProofTags.OnlyOnTagsPolicy() || ProofKeyVacant.OnlyOnTagsPolicy() {
		t.Error("only CrossplaneTagsUntimed needs the adopt-on-tags policy")
	}
}

func ids2(rs []ExternalResource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// TestOpenJournalWrongCluster: a journal of another cluster is an error,
// never the silent fall-back to annotations that a locked one gets.
func TestOpenJournalWrongCluster(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := journal.Open(path, journal.WithCluster("cluster-a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, note, err := OpenJournal(path, journal.WithCluster("cluster-b"))
	if j != nil || note != "" || !errors.Is(err, journal.ErrWrongCluster) {
		t.Errorf("OpenJournal from another cluster = %v, %q, %v; want nil, \"\", ErrWrongCluster", j, note, err)
	}
	j, note, err = OpenJournal(path, journal.WithCluster("cluster-a"))
	if j == nil || note != "" || err != nil {
		t.Fatalf("OpenJournal from its own cluster = %v, %q, %v", j, note, err)
	}
	_ = j.Close()
}
