package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

// TestParseLineFlags covers the flags only the v2 line has;
// providercmd's TestParseFlags covers the rest.
func TestParseLineFlags(t *testing.T) {
	cases := map[string]struct {
		reason string
		args   []string
		want   lineOptions
	}{
		"Default": {
			reason: "crossplane-runtime's default: an incomplete create stops the reconciler.",
			want:   lineOptions{},
		},
		"DeterministicExternalName": {
			reason: "--deterministic-external-name lets an incomplete create go ahead, wrapped or not.",
			args:   []string{"--deterministic-external-name"},
			want:   lineOptions{deterministicExternalName: true},
		},
		"DeterministicExternalNameWithJournal": {
			reason: "With the journal the gate is what stands between a crash and a repeat create.",
			args:   []string{"--journal=/j.db", "--deterministic-external-name"},
			want:   lineOptions{deterministicExternalName: true},
		},
		"NoUIDTag": {
			reason: "--uid-tag=false tags with upjet's own tagger: crossplane's tags alone.",
			args:   []string{"--journal=/j.db", "--uid-tag=false"},
			want:   lineOptions{noUIDTag: true},
		},
		"UIDTag": {
			reason: "--uid-tag is the default, said out loud.",
			args:   []string{"--journal=/j.db", "--uid-tag"},
			want:   lineOptions{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got lineOptions
			if _, err := providercmd.ParseFlags(tc.args, &bytes.Buffer{}, got.addFlags); err != nil {
				t.Fatalf("%s\nParseFlags(%q): %v", tc.reason, tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(lineOptions{})); diff != "" {
				t.Errorf("%s\nParseFlags(%q): -want, +got:\n%s", tc.reason, tc.args, diff)
			}
		})
	}
}
