package recovery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

func TestNewTagFinder(t *testing.T) {
	lookalike := ExternalResource{ID: "n-1", Tags: map[string]string{TagCrossplaneName: "vpc"}}
	listErr := errors.New("list failed")
	cases := map[string]struct {
		opts    []TagFinderOption
		found   []ExternalResource
		err     error
		want    []ExternalResource
		wantErr error
	}{
		"ID-keyed: found by tags alone": {
			found: []ExternalResource{lookalike},
			want:  []ExternalResource{{ID: "n-1", Tags: lookalike.Tags, MatchedByTags: true}},
		},
		"NameKeyed(false) is the default": {
			opts:  []TagFinderOption{NameKeyed(false)},
			found: []ExternalResource{lookalike},
			want:  []ExternalResource{{ID: "n-1", Tags: lookalike.Tags, MatchedByTags: true}},
		},
		"name-keyed: what the tags find holds the key": {
			opts:  []TagFinderOption{NameKeyed(true)},
			found: []ExternalResource{lookalike},
			want:  []ExternalResource{{ID: "n-1", Tags: lookalike.Tags}},
		},
		"the lister's error passes through": {
			err:     listErr,
			wantErr: listErr,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var asked map[string]string
			f := NewTagFinder(func(_ context.Context, tags map[string]string) ([]ExternalResource, error) {
				asked = tags
				return append([]ExternalResource(nil), tc.found...), tc.err
			}, tc.opts...)
			c := candidate(false)
			got, err := f.Find(context.Background(), c)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Find error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.ExpectedTags(), asked); diff != "" {
				t.Errorf("tags listed by (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("unknown crossplane tags are an error, not a list of everything", func(t *testing.T) {
		f := NewTagFinder(func(context.Context, map[string]string) ([]ExternalResource, error) {
			t.Fatal("listed with no crossplane-name tag")
			return nil, nil
		})
		c := candidate(false)
		c.Object = nil
		c.Intent.Resource.Name = ""
		if _, err := f.Find(context.Background(), c); err == nil {
			t.Fatal("Find with no crossplane-name tag: no error")
		}
	})
}

// TestTagFinderAbsence: a tag listing's finding nothing proves the create
// made nothing only when the create sent the tags it lists by, and the
// kind tags its resources in the create request itself; VerifyArgs keeps
// what its Finder says; a Finder that says nothing proves absence.
func TestTagFinderAbsence(t *testing.T) {
	list := func(context.Context, map[string]string) ([]ExternalResource, error) { return nil, nil }
	tagged := func(c *Candidate) *Candidate { c.Intent.TaggedSpec = true; return c }
	noIntent := func(specTags map[string]any) *Candidate {
		c := candidate(false)
		c.Intent.ID = journal.ID{}
		if specTags != nil {
			c.Object.Object["spec"].(map[string]any)["forProvider"] = map[string]any{"tags": specTags}
		}
		return c
	}
	cases := []struct {
		name   string
		f      Finder
		c      *Candidate
		proven bool
	}{
		{name: "the intent's spec carried the tags", f: NewTagFinder(list), c: tagged(candidate(false)), proven: true},
		{name: "the intent's spec did not", f: NewTagFinder(list), c: candidate(false)},
		{name: "tags after the create call", f: NewTagFinder(list, TagsAfterCreate(true)), c: tagged(candidate(false))},
		{name: "no intent, the spec carries the tags", f: NewTagFinder(list), proven: true,
			c: noIntent(map[string]any{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc", TagCrossplaneProviderConfig: "default"})},
		{name: "no intent, the spec lacks one", f: NewTagFinder(list),
			c: noIntent(map[string]any{TagCrossplaneKind: "network.fakecloud.intentjournal.io", TagCrossplaneName: "vpc"})},
		{name: "VerifyArgs keeps the tag finder's answer", f: VerifyArgs(NewTagFinder(list), MatcherFn(nil)), c: candidate(false)},
		{name: "VerifyArgs keeps the tag finder's answer, proven", f: VerifyArgs(NewTagFinder(list), MatcherFn(nil)), c: tagged(candidate(false)), proven: true},
		{name: "an index's lag is no reason to report: it is a wait (AbsenceProvenAt)", f: NewTagFinder(list, IndexLag(5*time.Minute)),
			c: tagged(candidate(false)), proven: true},
		{name: "a Finder that says nothing proves absence", f: FinderFn(func(context.Context, *Candidate) ([]ExternalResource, error) { return nil, nil }),
			c: candidate(false), proven: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			why := AbsenceUnproven(tc.f, tc.c)
			if got := why == ""; got != tc.proven {
				t.Errorf("absence proven = %t (%q), want %t", got, why, tc.proven)
			}
		})
	}
}

// TestTagFinderAbsenceProvenAt: a lagging index proves absence only once
// its lag has passed since the latest moment the create can have reached
// the cloud (Candidate.DeadBy), never since the create began. The
// adversary is a create that retried for minutes after its Begin and made
// its resource just before the provider died.
func TestTagFinderAbsenceProvenAt(t *testing.T) {
	list := func(context.Context, map[string]string) ([]ExternalResource, error) { return nil, nil }
	const lag = 5 * time.Minute
	begin := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	died := begin.Add(4 * time.Minute) // the create retried; its resource came at 09:03:59
	cases := map[string]struct {
		reason string
		f      Finder
		deadBy time.Time
		now    time.Time
		want   report.Outcome
	}{
		"PastBeginPlusLag": {
			reason: "six minutes after Begin, two after the provider died: the index may not show a resource made at 09:03:59; wait",
			f:      NewTagFinder(list, IndexLag(lag)), deadBy: died, now: begin.Add(6 * time.Minute), want: report.OutcomeUnresolved,
		},
		"PastDeathPlusLag": {
			reason: "the lag has passed since the latest moment the create could have made anything: nothing was made",
			f:      NewTagFinder(list, IndexLag(lag)), deadBy: died, now: died.Add(lag), want: report.OutcomeCleared,
		},
		"OldManagedResource": {
			reason: "an annotation-only candidate of a days-old MR: its age proves nothing; the first sighting counts",
			f:      NewTagFinder(list, IndexLag(lag)), deadBy: begin.Add(72 * time.Hour), now: begin.Add(72*time.Hour + time.Minute), want: report.OutcomeUnresolved,
		},
		"VerifyArgsForwards": {
			reason: "VerifyArgs keeps the tag finder's wait",
			f:      VerifyArgs(NewTagFinder(list, IndexLag(lag)), MatcherFn(nil)), deadBy: died, now: died.Add(time.Minute), want: report.OutcomeUnresolved,
		},
		"ReadAfterWrite": {
			reason: "a read-after-write source proves absence at once",
			f:      NewTagFinder(list), deadBy: died, now: died, want: report.OutcomeCleared,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := candidate(false)
			c.Intent.TaggedSpec, c.Intent.CreatedAt, c.DeadBy = true, begin, tc.deadBy
			found, err := tc.f.Find(context.Background(), c)
			d := Decide(c, found, err, Rules{AbsenceUnproven: AbsenceUnproven(tc.f, c), AbsenceProvenAt: AbsenceProvenAt(tc.f, c), Now: tc.now})
			if d.Outcome != tc.want {
				t.Errorf("%s\nDecide: %s/%s %q, want %s", tc.reason, d.Outcome, d.Reason, d.Message, tc.want)
			}
			if d.Outcome == report.OutcomeUnresolved && (d.Reason != ReasonAbsenceNotYetProven || !strings.Contains(d.Action, "looks again")) {
				t.Errorf("%s\nan unresolved wait: %s %q, want %s and a wait, not an operator's task", tc.reason, d.Reason, d.Action, ReasonAbsenceNotYetProven)
			}
		})
	}
}

// TestSightings: the first sighting of an intent is kept across passes
// until it is resolved.
func TestSightings(t *testing.T) {
	s := NewSightings()
	c := candidate(false)
	t1 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	if got := s.First(c, t1); !got.Equal(t1) {
		t.Fatalf("first sighting %s, want %s", got, t1)
	}
	if got := s.First(c, t1.Add(time.Hour)); !got.Equal(t1) {
		t.Errorf("a later pass moved the first sighting to %s: the lag would never run out", got)
	}
	s.Forget(c)
	if got := s.First(c, t1.Add(time.Hour)); !got.Equal(t1.Add(time.Hour)) {
		t.Errorf("after Forget, first sighting %s, want the new one", got)
	}
}
