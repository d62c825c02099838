package failpoint

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    []Term
		wantErr bool
	}{
		"Empty": {
			reason: "No variable arms nothing.",
			in:     "",
		},
		"OnlySeparators": {
			reason: "Empty terms are skipped.",
			in:     " ; ;",
		},
		"KillDefaultsToFirstHit": {
			reason: "Without @N the first hit fires.",
			in:     "before-begin=kill",
			want:   []Term{{Point: BeforeBegin, Action: ActionKill, OnHit: 1}},
		},
		"KillOnThirdHit": {
			reason: "@N fires on the Nth hit.",
			in:     "after-begin=kill@3",
			want:   []Term{{Point: AfterBegin, Action: ActionKill, OnHit: 3}},
		},
		"TwoPointsWithSpaces": {
			reason: "Terms are separated by ';' and trimmed.",
			in:     " after-create = kill @ 2 ; recovery-resolved=kill ",
			want: []Term{
				{Point: AfterCreate, Action: ActionKill, OnHit: 2},
				{Point: RecoveryResolved, Action: ActionKill, OnHit: 1},
			},
		},
		"UnknownPoint": {
			reason:  "A misspelt point must not silently stay unarmed.",
			in:      "after-begn=kill",
			wantErr: true,
		},
		"UnknownAction": {
			reason:  "Only kill is an action.",
			in:      "after-begin=panic",
			wantErr: true,
		},
		"NoAction": {
			reason:  "A term needs '='.",
			in:      "after-begin",
			wantErr: true,
		},
		"ZeroHit": {
			reason:  "Hits count from 1.",
			in:      "after-begin=kill@0",
			wantErr: true,
		},
		"NegativeHit": {
			reason:  "Hits count from 1.",
			in:      "after-begin=kill@-1",
			wantErr: true,
		},
		"HugeHit": {
			reason:  "A hit beyond the bound is refused.",
			in:      "after-begin=kill@99999999999999999999",
			wantErr: true,
		},
		"EmptyHit": {
			reason:  "'@' needs a number.",
			in:      "after-begin=kill@",
			wantErr: true,
		},
		"Twice": {
			reason:  "A point may be armed once.",
			in:      "after-begin=kill@1;after-begin=kill@2",
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Parse(%q): %s\nerr = %v, want error %t", tc.in, tc.reason, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrSyntax) {
				t.Errorf("Parse(%q): error %v does not wrap ErrSyntax", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q): %s\n-want, +got:\n%s", tc.in, tc.reason, diff)
			}
		})
	}
}

func TestFormatRoundTrip(t *testing.T) {
	terms := []Term{
		{Point: AfterBegin, Action: ActionKill, OnHit: 3},
		{Point: RecoveryResolved, Action: ActionKill, OnHit: 1},
	}
	s := Format(terms...)
	got, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(Format()) = %v", err)
	}
	if diff := cmp.Diff(terms, got); diff != "" {
		t.Errorf("Parse(%q) should give back the formatted terms; -want, +got:\n%s", s, diff)
	}
}

// FuzzParse checks that Parse never panics, and that whatever it accepts
// formats to a list it parses to the same terms.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "after-begin=kill@3", "before-begin=kill;recovery-resolved=kill@2", "x=y@z", ";;=@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrSyntax", s, err)
			}
			return
		}
		again, err := Parse(Format(terms...))
		if err != nil {
			t.Fatalf("Parse(Format(Parse(%q))) = %v", s, err)
		}
		if diff := cmp.Diff(terms, again); diff != "" {
			t.Fatalf("round trip of %q changed the terms; -first, +second:\n%s", s, diff)
		}
	})
}
