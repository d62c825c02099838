package recovery

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

var netGVK = schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"}

func candidate(deleted bool) *Candidate {
	c := &Candidate{
		GVK: netGVK,
		Intent: journal.Intent{
			ID:       journal.ID{1},
			Resource: journal.ResourceRef{Kind: "Network", Name: "vpc", UID: "u1"},
			State:    journal.StateDispatched,
			// Begun before every fixture time, so crossplane tags prove
			// ownership where no UID tag was sent.
			CreatedAt: t0,
		},
	}
	if deleted {
		// The create path records the crossplane tags as lookup keys, so
		// a deleted MR's ownership is still checked on all three.
		c.Intent.LookupKeys = map[string]string{TagCrossplaneProviderConfig: "default"}
	} else {
		c.Object = &unstructured.Unstructured{Object: map[string]any{
			"spec": map[string]any{"providerConfigRef": map[string]any{"name": "default"}},
		}}
	}
	return c
}

var (
	t0, t1, t2, t3 = time.Unix(10, 0), time.Unix(100, 0), time.Unix(200, 0), time.Unix(300, 0)
	ourTags        = map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "default"}
	theirTags      = map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "other"}
)

func TestDecide(t *testing.T) {
	// ours is proven by crossplane tags, a weak proof: its finder
	// compared it with the create's arguments.
	ours := func(id string, at time.Time) ExternalResource {
		return ExternalResource{ID: id, Tags: ourTags, CreatedAt: at, Args: ArgsSame}
	}
	theirs := ExternalResource{ID: "net-theirs", Tags: theirTags, CreatedAt: t1}
	cases := map[string]struct {
		reason      string
		deleted     bool
		found       []ExternalResource
		err         error
		mode        Mode
		wantOutcome report.Outcome
		wantReason  string
		wantAdopt   string
		wantOrphans []string
	}{
		"LookupFailed":    {"a failed lookup decides nothing", false, nil, errors.New("503"), ModeAdopt, report.OutcomeUnresolved, ReasonLookupFailed, "", nil},
		"Nothing":         {"nothing found: the create may run again", false, nil, nil, ModeAdopt, report.OutcomeCleared, ReasonNothingCreated, "", nil},
		"OneOurs":         {"one proven ours is adopted", false, []ExternalResource{ours("net-1", t1)}, nil, ModeAdopt, report.OutcomeAdopted, ReasonAdopted, "net-1", nil},
		"OneTheirs":       {"a different providerconfig tag is not ours", false, []ExternalResource{theirs}, nil, ModeAdopt, report.OutcomeConflict, ReasonNotOurs, "", nil},
		"UntaggedSameKey": {"a same-name resource without tags is not ours", false, []ExternalResource{{ID: "rs-x"}}, nil, ModeAdopt, report.OutcomeConflict, ReasonNotOurs, "", nil},
		"SeveralOldest":   {"the first copy made after the intent began is adopted, later copies are orphans", false, []ExternalResource{ours("net-3", t3), ours("net-1", t1), ours("net-2", t2)}, nil, ModeAdopt, report.OutcomeAdopted, ReasonAdopted, "net-1", []string{"net-2", "net-3"}},
		"OursAndTheirs":   {"a foreign match beside ours does not block adoption", false, []ExternalResource{theirs, ours("net-2", t2)}, nil, ModeAdopt, report.OutcomeAdopted, ReasonAdopted, "net-2", nil},
		"DeletedOurs":     {"ours left by a deleted MR are orphans", true, []ExternalResource{ours("net-1", t1), ours("net-2", t2)}, nil, ModeAdopt, report.OutcomeOrphan, ReasonMRDeleted, "", []string{"net-1", "net-2"}},
		"DeletedNothing":  {"a deleted MR that created nothing is cleared", true, nil, nil, ModeAdopt, report.OutcomeCleared, ReasonNothingCreated, "", nil},
		"DeletedTheirs":   {"a deleted MR and a foreign resource: nothing of ours to report", true, []ExternalResource{theirs}, nil, ModeAdopt, report.OutcomeCleared, ReasonNothingCreated, "", nil},
		"DeletedDiffers": {"a deleted MR's weakly proven resource that differs is reported, never cleared", true,
			[]ExternalResource{{ID: "net-9", Tags: ourTags, CreatedAt: t1, Args: ArgsDifferent, ArgsDiffer: []string{"tags"}}}, nil, ModeAdopt, report.OutcomeOrphan, ReasonArgsDiffer, "", []string{"net-9"}},
		"ReportOnly":      {"report-only never adopts and keeps the create blocked", false, []ExternalResource{ours("net-1", t1)}, nil, ModeReportOnly, report.OutcomeUnresolved, ReasonReportOnly, "", nil},
		"ReportOnlyClear": {"report-only still clears when nothing exists", false, nil, nil, ModeReportOnly, report.OutcomeCleared, ReasonNothingCreated, "", nil},
		"ListedUIDTag": {"a resource a tag listing found by its cloud identifier is never adopted, even on a strong proof: its ID is no external name", false,
			[]ExternalResource{{ID: "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-1", Listed: true, Tags: map[string]string{TagUID: "u1"}}}, nil, ModeAdopt, report.OutcomeUnresolved, ReasonExternalNameUnknown, "", nil},
		"ListedMatch": {"nor on a weak proof whose arguments match", false,
			[]ExternalResource{{ID: "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-1", Listed: true, Tags: ourTags, CreatedAt: t1, Args: ArgsSame}}, nil, ModeAdoptOnTags, report.OutcomeUnresolved, ReasonExternalNameUnknown, "", nil},
		"ListedDeleted": {"a deleted MR's listed resources are reported as orphans, by their identifiers", true,
			[]ExternalResource{{ID: "arn:aws:ec2:us-east-1:123456789012:vpc/vpc-1", Listed: true, Tags: ourTags, CreatedAt: t1, Args: ArgsSame}}, nil, ModeAdopt, report.OutcomeOrphan, ReasonMRDeleted, "", []string{"arn:aws:ec2:us-east-1:123456789012:vpc/vpc-1"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := Decide(candidate(tc.deleted), tc.found, tc.err, Rules{Mode: tc.mode})
			if d.Outcome != tc.wantOutcome || d.Reason != tc.wantReason {
				t.Errorf("%s\nDecide: %s/%s, want %s/%s", tc.reason, d.Outcome, d.Reason, tc.wantOutcome, tc.wantReason)
			}
			adopt := ""
			if d.Adopt != nil {
				adopt = d.Adopt.ID
			}
			if adopt != tc.wantAdopt {
				t.Errorf("%s\nadopted %q, want %q", tc.reason, adopt, tc.wantAdopt)
			}
			var orphans []string
			for _, o := range d.Orphans {
				orphans = append(orphans, o.ID)
			}
			if diff := cmp.Diff(tc.wantOrphans, orphans); diff != "" {
				t.Errorf("%s\norphans (-want +got):\n%s", tc.reason, diff)
			}
			if d.Outcome.NeedsAttention() && d.Action == "" {
				t.Errorf("%s\nan outcome that needs attention has no action", tc.reason)
			}
			if len(d.Found) != len(tc.found) {
				t.Errorf("%s\nfound %d, want every lookup result (%d) in the report", tc.reason, len(d.Found), len(tc.found))
			}
			for i, f := range d.Found {
				if f.Listed != tc.found[i].Listed {
					t.Errorf("%s\nfound %s: listed %t, want the lookup's %t", tc.reason, f.ID, f.Listed, tc.found[i].Listed)
				}
			}
		})
	}
}

func TestOwned(t *testing.T) {
	c := candidate(false)
	c.Intent.LookupKeys = map[string]string{TagCrossplaneName: "vpc"}
	cases := map[string]struct {
		r    ExternalResource
		mod  func(*Candidate)
		want Proof
	}{
		"IntentIDTag":   {ExternalResource{ID: "n", Tags: map[string]string{TagIntentID: journal.ID{1}.String()}}, nil, ProofIntentID},
		"RecordedID":    {ExternalResource{ID: "net-9"}, func(c *Candidate) { c.Intent.State, c.Intent.Outcome.ExternalName = journal.StateSucceeded, "net-9" }, ProofRecordedID},
		"Tags":          {ExternalResource{ID: "n", Tags: ourTags, CreatedAt: t1}, nil, ProofTags},
		"TagsNoTime":    {ExternalResource{ID: "n", Tags: ourTags}, nil, ProofTagsUntimed},
		"TagsExtraOK":   {ExternalResource{ID: "n", Tags: map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "default", "team": "a"}, CreatedAt: t1}, nil, ProofTags},
		"UIDTag":        {ExternalResource{ID: "n", Tags: map[string]string{TagUID: "u1"}}, nil, ProofUID},
		"OtherUIDTag":   {ExternalResource{ID: "n", Tags: map[string]string{TagUID: "u2", TagIntentID: journal.ID{1}.String()}}, nil, ""},
		"NameOnly":      {ExternalResource{ID: "vpc"}, nil, ""},
		"OtherName":     {ExternalResource{ID: "n", Tags: map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "other", TagCrossplaneProviderConfig: "default"}}, nil, ""},
		"OtherIntentID": {ExternalResource{ID: "n", Tags: map[string]string{TagIntentID: journal.ID{2}.String()}}, nil, ""},
		"KindMissing":   {ExternalResource{ID: "n", Tags: map[string]string{TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "default"}}, nil, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := candidate(false)
			if tc.mod != nil {
				tc.mod(c)
			}
			if got := Owned(c, tc.r); got != tc.want {
				t.Errorf("Owned = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGate(t *testing.T) {
	var g Gate
	if err := g.Allow("a"); !errors.Is(err, ErrRecoveryPending) {
		t.Errorf("before the scan: %v, want ErrRecoveryPending for every resource (fail closed)", err)
	}
	g.Block("a", "intent x")
	g.MarkScanned()
	if err := g.Allow("a"); !errors.Is(err, ErrIntentUnresolved) {
		t.Errorf("blocked after the scan: %v, want ErrIntentUnresolved", err)
	}
	if err := g.Allow("b"); err != nil {
		t.Errorf("not blocked after the scan: %v", err)
	}
	g.Unblock("a")
	if err := g.Allow("a"); err != nil || g.Blocked() != 0 {
		t.Errorf("after Unblock: %v, %d blocked", err, g.Blocked())
	}
}

func TestExpectedTags(t *testing.T) {
	c := candidate(false)
	want := map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "default"}
	if diff := cmp.Diff(want, c.ExpectedTags()); diff != "" {
		t.Errorf("derived from the MR (-want +got):\n%s", diff)
	}
	c = candidate(true)
	c.Intent.LookupKeys = map[string]string{TagCrossplaneProviderConfig: "pc2", "zone": "z"}
	want[TagCrossplaneProviderConfig] = "pc2"
	if diff := cmp.Diff(want, c.ExpectedTags()); diff != "" {
		t.Errorf("from the lookup keys of a deleted MR (-want +got):\n%s", diff)
	}
	c.Intent.LookupKeys[TagCrossplaneNamespace] = "team-a"
	want[TagCrossplaneNamespace] = "team-a"
	if diff := cmp.Diff(want, c.ExpectedTags()); diff != "" {
		t.Errorf("with a recorded namespace tag (-want +got):\n%s", diff)
	}

	// A namespaced MR (crossplane-runtime v2) with no recorded keys: its
	// namespace and its typed provider config reference's kind, as
	// crossplane-runtime's GetExternalTags derives them.
	c = candidate(false)
	c.Intent.Resource.Namespace = "team-b"
	if err := unstructured.SetNestedField(c.Object.Object, "ClusterProviderConfig", "spec", "providerConfigRef", "kind"); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "default",
		TagCrossplaneNamespace: "team-b", TagCrossplaneProviderConfigKind: "ClusterProviderConfig"}
	if diff := cmp.Diff(want, c.ExpectedTags()); diff != "" {
		t.Errorf("derived from a namespaced MR (-want +got):\n%s", diff)
	}

	// SpecTags, what the create sent as a scan read them: as they are,
	// with nothing derived, and a copy.
	c.SpecTags = map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "default"}
	got := c.ExpectedTags()
	if diff := cmp.Diff(c.SpecTags, got); diff != "" {
		t.Errorf("with SpecTags (-want +got):\n%s", diff)
	}
	got[TagCrossplaneName] = "changed"
	if c.SpecTags[TagCrossplaneName] != "vpc" {
		t.Error("ExpectedTags returned SpecTags itself, not a copy")
	}
	c.SpecTags = nil
	other := ExternalResource{ID: "n", Tags: map[string]string{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc",
		TagCrossplaneProviderConfig: "default", TagCrossplaneNamespace: "team-a", TagCrossplaneProviderConfigKind: "ClusterProviderConfig"}, CreatedAt: t1}
	if got := Owned(c, other); got != "" {
		t.Errorf("the same name in another namespace: Owned = %q, want nothing", got)
	}
}

// TestDecideAbsenceUnproven: when the lookup could not have seen what the
// create made (Rules.AbsenceUnproven), finding nothing of ours is
// reported, never cleared: clearing would let the create run again and
// make a second resource (issue #32).
func TestDecideAbsenceUnproven(t *testing.T) {
	const why = "its create did not send the crossplane tags"
	ours := ExternalResource{ID: "net-1", Tags: ourTags, CreatedAt: t1, Args: ArgsSame}
	lookalike := ExternalResource{ID: "net-theirs", Tags: theirTags, CreatedAt: t1, MatchedByTags: true}
	cases := []struct {
		name        string
		deleted     bool
		found       []ExternalResource
		absence     string
		wantOutcome report.Outcome
		wantReason  string
	}{
		{name: "nothing found, absence proven: cleared", wantOutcome: report.OutcomeCleared, wantReason: ReasonNothingCreated},
		{name: "nothing found: paused and reported", absence: why, wantOutcome: report.OutcomeConflict, wantReason: ReasonAbsenceUnproven},
		{name: "a look-alike found by tags alone: paused and reported", found: []ExternalResource{lookalike}, absence: why,
			wantOutcome: report.OutcomeConflict, wantReason: ReasonAbsenceUnproven},
		{name: "MR deleted, nothing found: reported, kept", deleted: true, absence: why, wantOutcome: report.OutcomeUnresolved, wantReason: ReasonAbsenceUnproven},
		{name: "MR deleted, only another's found: reported, kept", deleted: true, found: []ExternalResource{lookalike}, absence: why,
			wantOutcome: report.OutcomeUnresolved, wantReason: ReasonAbsenceUnproven},
		{name: "ours found: adopted as before", found: []ExternalResource{ours}, absence: why, wantOutcome: report.OutcomeAdopted, wantReason: ReasonAdopted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(candidate(tc.deleted), tc.found, nil, Rules{AbsenceUnproven: tc.absence})
			if d.Outcome != tc.wantOutcome || d.Reason != tc.wantReason {
				t.Fatalf("Decide: %s/%s, want %s/%s (%s)", d.Outcome, d.Reason, tc.wantOutcome, tc.wantReason, d.Message)
			}
			if tc.wantReason == ReasonAbsenceUnproven {
				if !strings.Contains(d.Message, why) {
					t.Errorf("the message does not say why the absence proves nothing: %q", d.Message)
				}
				if d.Action == "" {
					t.Errorf("no action for an entry that needs an operator")
				}
			}
		})
	}
}
