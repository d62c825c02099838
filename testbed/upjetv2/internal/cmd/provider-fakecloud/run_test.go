package main

import (
	"bytes"
	"strings"
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

// TestValidateLineFlags covers the line's flags that only make sense
// together.
func TestValidateLineFlags(t *testing.T) {
	cases := map[string]struct {
		reason  string
		args    []string
		wantErr string
	}{
		"DeterministicUnwrapped": {
			reason:  "upjet's template sets no reconciler option of its own: without the Adapter the flag would do nothing.",
			args:    []string{"--deterministic-external-name"},
			wantErr: "--deterministic-external-name needs --journal or --annotation-only",
		},
		"DeterministicWithJournal": {
			reason: "The wrapped controllers take it from the Adapter.",
			args:   []string{"--journal=/j.db", "--deterministic-external-name"},
		},
		"DeterministicAnnotationOnly": {
			reason: "The annotation-only Adapter wraps too.",
			args:   []string{"--annotation-only", "--deterministic-external-name"},
		},
		"TerraformWithoutMirror": {
			reason:  "OpenTofu with nowhere to install the provider from cannot create.",
			args:    []string{"--terraform=/bin/tofu"},
			wantErr: "go together",
		},
		"MirrorWithoutTerraform": {
			reason:  "A mirror with no CLI to read it is a mistake.",
			args:    []string{"--terraform-plugin-mirror=/m"},
			wantErr: "go together",
		},
		"Terraform": {
			reason: "The CLI kinds' full setup.",
			args:   []string{"--terraform=/bin/tofu", "--terraform-plugin-mirror=/m", "--fresh-workspaces", "--terraform-state-dir=/s"},
		},
		"WorkspacesWithoutTerraform": {
			reason:  "Workspaces are the Terraform CLI's: without it the flags would do nothing.",
			args:    []string{"--fresh-workspaces"},
			wantErr: "need --terraform",
		},
		"None": {
			reason: "The CLI kinds cannot create, and say so at start.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var l lineOptions
			o, err := providercmd.ParseFlags(tc.args, &bytes.Buffer{}, l.addFlags)
			if err != nil {
				t.Fatalf("%s\nParseFlags(%q): %v", tc.reason, tc.args, err)
			}
			err = l.validate(o)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s\nvalidate(%q): %v, want no error", tc.reason, tc.args, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s\nvalidate(%q): %v, want an error containing %q", tc.reason, tc.args, err, tc.wantErr)
			}
		})
	}
}
