package recovery

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
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
	began := func(c *Candidate) time.Time { return c.NotBefore() }
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
		{name: "an index, the create older than its lag", f: NewTagFinder(list, IndexLag(5*time.Minute), tagFinderClock(func() time.Time { return began(candidate(false)).Add(6 * time.Minute) })),
			c: tagged(candidate(false)), proven: true},
		{name: "an index, the create younger than its lag", f: NewTagFinder(list, IndexLag(5*time.Minute), tagFinderClock(func() time.Time { return began(candidate(false)).Add(4 * time.Minute) })),
			c: tagged(candidate(false))},
		{name: "an index, the create's start unknown", f: NewTagFinder(list, IndexLag(5*time.Minute)),
			c: func() *Candidate {
				c := tagged(candidate(false))
				c.Intent.CreatedAt = time.Time{}
				c.Object = nil
				return c
			}()},
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
