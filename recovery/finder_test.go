package recovery

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
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
